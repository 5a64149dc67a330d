package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"microblog/hub"
	"microblog/mobile"
	"microblog/server/mastodon"
	"microblog/store"
	"microblog/web"
)

// addRoutes is the one place where every route is listed, the Mastodon
// API's in its own package (mst.Routes).
func addRoutes(e *echo.Echo, s *server, mst *mastodon.API) {
	st, rl, ttl := s.store, s.cfg.RateLimits, s.cfg.SessionTTL

	e.Match([]string{http.MethodGet, http.MethodHead}, "/healthz", handleHealthz)
	e.GET("/readyz", handleReadyz(st))
	e.GET("/metrics", handleMetrics(s.reg), metricsAccess(s.cfg.Edges))

	// API middleware is global, with the CORS part skipping non-API paths:
	// group middleware would make Echo answer 404 instead of 405 for a known
	// path with the wrong method.
	isAPI := func(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }
	e.Use(
		middleware.CORSWithConfig(middleware.CORSConfig{
			Skipper: func(c echo.Context) bool { return !isAPI(c) },
			// Any origin may call the API with a bearer token (the packaged
			// mobile app runs from file://); cookies are never sent cross-origin.
			AllowOrigins:  []string{"*"},
			AllowMethods:  []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
			AllowHeaders:  []string{"Authorization", "Content-Type", idempotencyHeader},
			ExposeHeaders: []string{"Retry-After", "Link"},
			MaxAge:        86400,
		}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
			Limit: strconv.Itoa(maxBodyBytes>>10) + "KiB", // "K" would be 1000 bytes
			// Uploads are read with their own, larger limit.
			Skipper: func(c echo.Context) bool { return isUpload(c.Request().URL.Path) },
		}),
		sameOriginWrites(s.cfg.AllowedOrigins),
	)
	api := e.Group("/api/v1")
	anyone := authenticate(st, false)
	member := authenticate(st, true)
	// The paths the Mastodon API serves too (mastodon.SharedPaths): their
	// native handlers go to mst.Routes, which answers each request as the
	// API it speaks.
	natives := make(map[string]echo.HandlerFunc)
	shared := func(method, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
		natives[method+" /api/v1"+path] = mastodon.Chain(h, mw...)
	}

	auth := s.cfg.Auth
	api.POST("/users", handleRegister(st, auth.LocalSignup, rl.Signup, ttl))
	api.POST("/sessions", handleLogin(st, auth.LDAP, rl.Login, rl.LoginAccount, ttl))
	api.DELETE("/sessions/current", handleLogout(st), member)
	api.DELETE("/sessions", handleLogoutAll(st), member)
	api.GET("/auth/providers", handleProviders(st, auth.LocalSignup, signInProviders(s.cfg)), anyone)

	if rp := s.cfg.OIDC.newRelyingParty(); rp != nil {
		e.GET(oidcLoginPath, handleOIDCLogin(st, rp, s.cfg.OIDC, rl.Login), anyone)
		e.GET(oidcCallbackPath, handleOIDCCallback(st, rp, rl.Login, ttl, s.logger), anyone)
		api.POST(oidcHandoverPath, handleOIDCHandover(st), member)
	}

	ops := operators{st: st, names: s.cfg.Safety.Admins}
	api.GET("/me", handleMe(st, ops), member)
	api.PATCH("/me", handleUpdateMe(st, ops), member)
	api.PUT("/me/password", handleChangePassword(st, rl.Login, rl.LoginAccount), member)
	api.DELETE("/me", handleDeleteMe(st, rl.Login, rl.LoginAccount), member)
	api.GET("/users/:username", handleUser(st), anyone)
	api.PUT("/users/:username/follow", handleFollow(st, true, rl.Follow), member)
	api.DELETE("/users/:username/follow", handleFollow(st, false, rl.Follow), member)
	api.GET("/users/:username/followers", handleRelations(st, true), anyone)
	api.GET("/users/:username/following", handleRelations(st, false), anyone)
	api.GET("/users/:username/posts", handleUserPosts(st), anyone)

	api.POST("/posts", handleCreatePost(st, rl.Post), member)
	api.GET("/posts/:id", handleGetPost(st), anyone)
	api.DELETE("/posts/:id", handleDeletePost(st), member)
	api.PATCH("/posts/:id", handleEditPost(st, rl.Post), member)
	api.GET("/posts/:id/history", handleHistory(st), anyone)
	api.POST("/posts/:id/comments", handleCreateComment(st, rl.Post), member)
	api.GET("/posts/:id/comments", handleComments(st), anyone)

	shared(http.MethodGet, "/timelines/home", handleHomeTimeline(st), member)
	shared(http.MethodGet, "/timelines/public", handlePublicTimeline(st), anyone)

	api.PUT("/posts/:id/like", handleMark(st.Like, true), member)
	api.DELETE("/posts/:id/like", handleMark(st.Like, false), member)
	api.GET("/posts/:id/likes", handleLikers(st), anyone)
	api.PUT("/posts/:id/pin", handleMark(st.Pin, true), member)
	api.DELETE("/posts/:id/pin", handleMark(st.Pin, false), member)
	api.GET("/users/:username/pinned", handlePinned(st), anyone)
	api.PUT("/posts/:id/bookmark", handleMark(st.Bookmark, true), member)
	api.DELETE("/posts/:id/bookmark", handleMark(st.Bookmark, false), member)
	api.GET("/me/bookmarks", handleBookmarks(st), member)
	shared(http.MethodGet, "/notifications", handleNotifications(st), member)
	api.POST("/notifications/read", handleMarkRead(st), member)
	api.GET("/tags/:tag/posts", handleTagPosts(st), anyone)
	api.GET("/search/users", handleSearchUsers(st), anyone)
	api.GET("/search/tags", handleSearchTags(st), anyone)
	api.GET("/search/posts", handleSearchPosts(st), anyone)
	shared(http.MethodGet, "/trends/tags", handleTrends(st), anyone)
	api.GET("/suggestions/users", handleSuggestions(st), member)

	api.PUT("/users/:username/block", handleBlock(st, false, true, rl.Follow), member)
	api.DELETE("/users/:username/block", handleBlock(st, false, false, rl.Follow), member)
	api.PUT("/users/:username/mute", handleBlock(st, true, true, rl.Follow), member)
	api.DELETE("/users/:username/mute", handleBlock(st, true, false, rl.Follow), member)
	api.GET("/me/blocks", handleMyList(st.Blocks), member)
	api.GET("/me/mutes", handleMyList(st.Mutes), member)
	api.GET("/me/filters", handleFilters(st), member)
	api.PUT("/me/filters", handleSetFilters(st), member)
	api.GET("/me/follow_requests", handleMyList(st.FollowRequests), member)
	api.PUT("/me/follow_requests/:username", handleFollowRequest(st, true), member)
	api.DELETE("/me/follow_requests/:username", handleFollowRequest(st, false), member)
	shared(http.MethodPost, "/reports", handleReport(st, rl.Post), member)

	api.POST("/conversations/:username/messages", handleSendDM(st, rl.DM), member)
	shared(http.MethodGet, "/conversations", handleConversations(st), member)
	api.GET("/conversations/:username/messages", handleConversationDMs(st), member)
	shared(http.MethodPost, "/conversations/:username/read", handleReadConversation(st), member)
	api.DELETE("/messages/:id", handleDeleteDM(st), member)

	admin := api.Group("/admin", member, ops.only)
	admin.GET("/reports", handleReports(st))
	admin.POST("/reports/:id/resolve", handleResolveReport(st))
	admin.POST("/users/:username/suspend", handleSuspend(st, true))
	admin.DELETE("/users/:username/suspend", handleSuspend(st, false))
	admin.DELETE("/posts/:id", handleRemovePost(st))

	shared(http.MethodPost, uploadPath, handleUpload(st, s.media, rl.Post), member)
	api.PUT(avatarPath, handleAvatar(st, s.media, rl.Post), member)
	e.Match([]string{http.MethodGet, http.MethodHead}, "/media/:name", handleMediaFile(s.media))

	for _, sp := range mastodon.SharedPaths {
		if natives[sp] == nil {
			panic("routes: no native handler for the shared path " + sp)
		}
	}
	mst.Routes(e, natives)

	e.GET("/m", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/m/") })
	readOnly := []string{http.MethodGet, http.MethodHead}
	e.Match(readOnly, "/m/*", mobileSite())
	e.Match(readOnly, "/*", webSite())
}

// The front ends are embedded in the binary, so each is prepared (versioned
// and compressed: static.go) once per process, not once per server made in
// it: the tests start hundreds, and preparing took a sixth of their CPU.
var (
	webSite    = sync.OnceValue(func() echo.HandlerFunc { return handleStatic(web.FS(), "/") })
	mobileSite = sync.OnceValue(func() echo.HandlerFunc { return handleStatic(mobile.FS(), "/m/") })
)

// addLiveRoutes lists the live feed's routes, ours and the Mastodon API's
// streaming; run adds them once the hub is up.
func addLiveRoutes(e *echo.Echo, mst *mastodon.API, h *hub.Hub, st store.Accounts, allowedOrigins []string, caps *socketCaps) {
	e.GET("/ws", handleWS(h, st, allowedOrigins, caps))
	mst.StreamingRoutes(e, h, caps.acquire)
}
