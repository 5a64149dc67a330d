package mastodon

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Conversations are the service's private messages (§9) as Mastodon's
// direct conversations: one per other user, whose uid is its id, with its
// last message as a direct status (DirectIDBase keeps those ids apart from
// posts'). The service keeps every conversation: removing one (DELETE)
// marks it read and answers as Mastodon does; POST :id/unread, which
// Mastodon lacks, marks it unread as the native route does.

// conversationRoutes registers the conversation routes. The paths with an
// id carry the native API's parameter name, :username, as the shared
// route POST /api/v1/conversations/:username/read does; the handlers read
// it by position.
func (a *API) conversationRoutes(r *router) {
	write := a.auth("write:conversations", true)
	r.add(http.MethodGet, "/api/v1/conversations", a.conversations, a.auth("read:statuses", true))
	r.add(http.MethodPost, "/api/v1/conversations/:username/read", a.readConversation, write)
	r.add(http.MethodPost, "/api/v1/conversations/:username/unread", a.unreadConversation, write)
	r.add(http.MethodDelete, "/api/v1/conversations/:username", a.removeConversation, write)
}

// conversations answers GET /api/v1/conversations: latest activity first,
// paged by the store's cursor in max_id.
func (a *API) conversations(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	ctx, uid := c.Request().Context(), viewer(c)
	me, err := a.st.User(ctx, uid, uid)
	if err != nil {
		return err
	}
	pg, err := a.st.ConversationList(ctx, uid, store.PageQuery{Limit: p.Limit, Cursor: p.Cursor, Viewer: uid})
	if err != nil {
		return err
	}
	m := mapperOf(c)
	out := make([]Conversation, 0, len(pg.Items))
	for _, conv := range pg.Items {
		out = append(out, m.conversation(conv, me))
	}
	if pg.NextCursor != nil {
		links(c, *pg.NextCursor, "")
	}
	return c.JSON(http.StatusOK, out)
}

// readConversation answers POST /api/v1/conversations/:id/read: read up
// to its last message.
func (a *API) readConversation(c echo.Context) error {
	conv, err := a.markConversationRead(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, conv)
}

// removeConversation answers DELETE /api/v1/conversations/:id. The
// service keeps it (its messages are the other user's too): it is marked
// read, which is what an app removing it wants to stop showing.
func (a *API) removeConversation(c echo.Context) error {
	if _, err := a.markConversationRead(c); err != nil {
		return err
	}
	return emptyObject(c)
}

// unreadConversation answers POST /api/v1/conversations/:id/unread: the
// conversation marked unread (its newest message), answered as Conversation.
func (a *API) unreadConversation(c echo.Context) error {
	other, err := strconv.ParseInt(c.ParamValues()[0], 10, 64)
	if err != nil || other <= 0 {
		return errRecordNotFound
	}
	ctx, uid := c.Request().Context(), viewer(c)
	unread, err := a.st.MarkConversationUnread(ctx, uid, other)
	if err != nil {
		return recordNotFound(err)
	}
	conv, err := a.conversationWith(c, uid, other, unread, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, conv)
}

// markConversationRead marks the caller's conversation of the path read up
// to its last message and returns it.
func (a *API) markConversationRead(c echo.Context) (Conversation, error) {
	other, err := strconv.ParseInt(c.ParamValues()[0], 10, 64)
	if err != nil || other <= 0 {
		return Conversation{}, errRecordNotFound
	}
	ctx, uid := c.Request().Context(), viewer(c)
	last, err := a.st.ConversationDMs(ctx, uid, other, store.PageQuery{Limit: 1, Viewer: uid})
	if err != nil {
		return Conversation{}, err
	}
	if len(last.Items) == 0 {
		return Conversation{}, errRecordNotFound
	}
	if err := a.st.MarkConversationRead(ctx, uid, other, last.Items[0].ID); err != nil {
		return Conversation{}, err
	}
	return a.conversationWith(c, uid, other, 0, &last.Items[0])
}

// conversationWith is uid's conversation with other as Conversation, with
// unread messages and its last message msg (read when nil).
func (a *API) conversationWith(c echo.Context, uid, other, unread int64, msg *store.DM) (Conversation, error) {
	ctx := c.Request().Context()
	if msg == nil {
		last, err := a.st.ConversationDMs(ctx, uid, other, store.PageQuery{Limit: 1, Viewer: uid})
		if err != nil {
			return Conversation{}, err
		}
		if len(last.Items) == 0 {
			return Conversation{}, errRecordNotFound
		}
		msg = &last.Items[0]
	}
	me, err := a.st.User(ctx, uid, uid)
	if err != nil {
		return Conversation{}, err
	}
	with, err := a.st.User(ctx, other, uid)
	if err != nil {
		return Conversation{}, err
	}
	return mapperOf(c).conversation(store.Conversation{With: with, LastDM: msg, UpdatedAt: msg.CreatedAt, UnreadCount: unread}, me), nil
}
