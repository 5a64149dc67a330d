package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/hub"
)

// Routes registers the native API on e, the one place where its routes are
// listed, and the front ends that speak it. The paths the Mastodon API
// serves too (mastodon.SharedPaths) it does not register: it returns their
// handlers, with their middleware around them, by "METHOD /path" as
// registered, for the server to hand to the Mastodon API, which answers
// each request as the API it speaks. The server's middleware of both APIs
// (CORS, the body limit, SameOriginWrites) runs before any of them.
func (a *API) Routes(e *echo.Echo) (shared map[string]echo.HandlerFunc) {
	st, rl, ttl := a.st, a.d.Limits, a.d.SessionTTL
	v1 := e.Group("/api/v1")
	anyone := authenticate(st, false)
	member := authenticate(st, true)
	shared = make(map[string]echo.HandlerFunc)
	share := func(method, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
		shared[method+" /api/v1"+path] = chain(h, mw...)
	}

	v1.POST("/users", handleRegister(st, a.d.Signup, rl.Signup, ttl))
	v1.POST("/sessions", handleLogin(st, a.d.LDAP, rl.Login, rl.LoginAccount, ttl))
	v1.DELETE("/sessions/current", handleLogout(st), member)
	v1.DELETE("/sessions", handleLogoutAll(st), member)
	v1.GET("/auth/providers", handleProviders(st, a.d.Signup, a.d.Mail, a.signInProviders()), anyone)
	v1.POST("/password_resets", handleRequestReset(st, a.d.Mail, rl.PasswordReset))
	v1.POST("/password_resets/:token", handleReset(st, a.d.Mail))
	v1.POST("/email_confirmations/:token", handleConfirmEmail(st, a.d.Mail))
	a.mailPages(e)

	if o := a.d.OIDC; o.Client != nil {
		e.GET(OIDCLoginPath, handleOIDCLogin(st, o, rl.Login), anyone)
		e.GET(OIDCCallbackPath, handleOIDCCallback(st, o.Client, rl.Login, ttl, a.d.Logger), anyone)
		v1.POST(OIDCHandoverPath, handleOIDCHandover(st), member)
	}

	ops := a.ops
	v1.GET("/me", handleMe(st, ops), member)
	v1.PATCH("/me", handleUpdateMe(st, ops, a.d.Mail, rl.PasswordReset), member)
	v1.PUT("/me/password", handleChangePassword(st, rl.Login, rl.LoginAccount), member)
	v1.DELETE("/me", handleDeleteMe(st, rl.Login, rl.LoginAccount), member)
	v1.GET("/users/:username", handleUser(st), anyone)
	v1.PUT("/users/:username/follow", handleFollow(st, true, rl.Follow), member)
	v1.DELETE("/users/:username/follow", handleFollow(st, false, rl.Follow), member)
	v1.GET("/users/:username/followers", handleRelations(st, true), anyone)
	v1.GET("/users/:username/following", handleRelations(st, false), anyone)
	v1.GET("/users/:username/posts", handleUserPosts(st), anyone)

	v1.POST("/posts", handleCreatePost(st, rl.Post), member)
	v1.GET("/posts/:id", handleGetPost(st), anyone)
	v1.DELETE("/posts/:id", handleDeletePost(st), member)
	v1.PATCH("/posts/:id", handleEditPost(st, rl.Post), member)
	v1.GET("/posts/:id/history", handleHistory(st), anyone)
	v1.POST("/posts/:id/comments", handleCreateComment(st, rl.Post), member)
	v1.GET("/posts/:id/comments", handleComments(st), anyone)
	share(http.MethodGet, "/polls/:id", handlePoll(st), anyone)
	share(http.MethodPost, "/polls/:id/votes", handleVote(st), member)

	share(http.MethodGet, "/timelines/home", handleHomeTimeline(st), member)
	share(http.MethodGet, "/timelines/public", handlePublicTimeline(st), anyone)

	v1.DELETE("/posts/:id/repost", handleUnrepost(st), member)
	v1.PUT("/posts/:id/like", handleMark(st.Like, true), member)
	v1.DELETE("/posts/:id/like", handleMark(st.Like, false), member)
	v1.GET("/posts/:id/likes", handleLikers(st), anyone)
	v1.PUT("/posts/:id/pin", handleMark(st.Pin, true), member)
	v1.DELETE("/posts/:id/pin", handleMark(st.Pin, false), member)
	v1.GET("/users/:username/pinned", handlePinned(st), anyone)
	v1.PUT("/posts/:id/bookmark", handleMark(st.Bookmark, true), member)
	v1.DELETE("/posts/:id/bookmark", handleMark(st.Bookmark, false), member)
	v1.GET("/me/bookmarks", handleBookmarks(st), member)
	share(http.MethodGet, "/notifications", handleNotifications(st), member)
	v1.POST("/notifications/read", handleMarkRead(st), member)
	v1.GET("/tags/:tag/posts", handleTagPosts(st), anyone)
	share(http.MethodGet, "/tags/:tag", handleTag(st), anyone)
	v1.PUT("/tags/:tag/follow", handleFollowTag(st, true, rl.Follow), member)
	v1.DELETE("/tags/:tag/follow", handleFollowTag(st, false, rl.Follow), member)
	v1.GET("/me/tags", handleFollowedTags(st), member)
	v1.GET("/search/users", handleSearchUsers(st), anyone)
	v1.GET("/search/tags", handleSearchTags(st), anyone)
	v1.GET("/search/posts", handleSearchPosts(st), anyone)
	share(http.MethodGet, "/trends/tags", handleTrends(st), anyone)
	v1.GET("/suggestions/users", handleSuggestions(st), member)

	v1.PUT("/users/:username/block", handleBlock(st, false, true, rl.Follow), member)
	v1.DELETE("/users/:username/block", handleBlock(st, false, false, rl.Follow), member)
	v1.PUT("/users/:username/mute", handleBlock(st, true, true, rl.Follow), member)
	v1.DELETE("/users/:username/mute", handleBlock(st, true, false, rl.Follow), member)
	v1.GET("/me/blocks", handleMyList(st.Blocks), member)
	v1.GET("/me/mutes", handleMyList(st.Mutes), member)
	v1.GET("/me/filters", handleFilters(st), member)
	v1.PUT("/me/filters", handleSetFilters(st), member)
	v1.GET("/me/follow_requests", handleMyList(st.FollowRequests), member)
	v1.PUT("/me/follow_requests/:username", handleFollowRequest(st, true), member)
	v1.DELETE("/me/follow_requests/:username", handleFollowRequest(st, false), member)
	share(http.MethodPost, "/reports", handleReport(st, rl.Post), member)

	v1.GET("/me/lists", handleLists(st), member)
	v1.POST("/me/lists", handleCreateList(st), member)
	v1.GET("/me/lists/:id", handleList(st), member)
	v1.PATCH("/me/lists/:id", handleUpdateList(st), member)
	v1.DELETE("/me/lists/:id", handleDeleteList(st), member)
	v1.GET("/me/lists/:id/members", handleListMembers(st), member)
	v1.PUT("/me/lists/:id/members/:username", handleListMember(st, true), member)
	v1.DELETE("/me/lists/:id/members/:username", handleListMember(st, false), member)
	v1.GET("/me/lists/:id/posts", handleListPosts(st), member)
	v1.GET("/users/:username/lists", handleListsWith(st), member)

	v1.POST("/conversations/:username/messages", handleSendDM(st, rl.DM), member)
	share(http.MethodGet, "/conversations", handleConversations(st), member)
	v1.GET("/conversations/:username/messages", handleConversationDMs(st), member)
	share(http.MethodPost, "/conversations/:username/read", handleReadConversation(st), member)
	share(http.MethodPost, "/conversations/:username/unread", handleUnreadConversation(st), member)
	v1.DELETE("/messages/:id", handleDeleteDM(st), member)
	if a.d.Push != nil {
		v1.GET("/me/push", handleGetPush(st, a.d.Push), member)
		v1.PUT("/me/push", handlePutPush(st, a.d.Push), member)
		v1.DELETE("/me/push", handleDeletePush(st), member)
	}

	admin := v1.Group("/admin", member, ops.only)
	admin.GET("/reports", handleReports(st))
	admin.POST("/reports/:id/resolve", handleResolveReport(st))
	admin.POST("/users/:username/suspend", handleSuspend(st, true))
	admin.DELETE("/users/:username/suspend", handleSuspend(st, false))
	admin.DELETE("/posts/:id", handleRemovePost(st))
	admin.GET("/domain_blocks", handleDomainBlocks(a.d.Domains))
	admin.PUT("/domain_blocks/:domain", handleBlockDomain(a.d.Domains, true))
	admin.DELETE("/domain_blocks/:domain", handleBlockDomain(a.d.Domains, false))

	share(http.MethodPost, UploadPath, handleUpload(st, a.d.Media, rl.Post), member)
	v1.PUT(AvatarPath, handleAvatar(st, a.d.Media, rl.Post), member)
	v1.PUT(HeaderPath, handleHeader(st, a.d.Media, rl.Post), member)
	e.Match([]string{http.MethodGet, http.MethodHead}, "/media/:name", handleMediaFile(a.d.Media))

	frontEndRoutes(e, a.d.Bundle)
	return shared
}

// LiveRoutes registers the live feed, GET /ws, once the live hub is up;
// gate caps its sockets.
func (a *API) LiveRoutes(e *echo.Echo, h *hub.Hub, gate SocketGate) {
	e.GET("/ws", handleWS(h, a.st, a.d.AllowedOrigins, gate))
}
