package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// dmService is what the routes of private messages need of the store.
type dmService interface {
	UIDByName(ctx context.Context, name string) (int64, error)
	store.Conversations
}

// otherParam resolves the user named in the path, the caller's
// correspondent: 404 when there is none.
func otherParam(c echo.Context, st dmService) (int64, error) {
	return st.UIDByName(c.Request().Context(), c.Param("username"))
}

// handleSendDM sends a private message to the user in the path: 201
// Message. The store counts it against the caller's limit in the round
// trip that claims it, and honours the Idempotency-Key as for posts.
func handleSendDM(st dmService, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Content  string  `json:"content"`
			MediaIDs []int64 `json:"media_ids"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		to, err := otherParam(c, st)
		if err != nil {
			return err
		}
		m, err := st.SendDM(c.Request().Context(), store.NewDM{From: viewer(c), To: to,
			Content: in.Content, MediaIDs: in.MediaIDs, Limit: limit,
			IdempotencyKey: c.Request().Header.Get(IdempotencyHeader)})
		if err != nil {
			return err
		}
		if m.Encoded != nil { // as its live event carries it
			return c.JSONBlob(http.StatusCreated, m.Encoded)
		}
		return c.JSON(http.StatusCreated, m)
	}
}

// handleConversations lists the caller's conversations, latest activity first.
func handleConversations(st dmService) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Conversation], error) {
		return st.ConversationList(c.Request().Context(), viewer(c), q)
	})
}

// handleConversationDMs lists the messages between the caller and the
// user in the path, newest first.
func handleConversationDMs(st dmService) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.DM], error) {
		other, err := otherParam(c, st)
		if err != nil {
			return store.Page[store.DM]{}, err
		}
		return st.ConversationDMs(c.Request().Context(), viewer(c), other, q)
	})
}

// handleReadConversation marks the caller's conversation with the user in
// the path read up to {"up_to"}.
func handleReadConversation(st dmService) echo.HandlerFunc {
	return func(c echo.Context) error {
		upTo, err := bindUpTo(c)
		if err != nil {
			return err
		}
		other, err := otherParam(c, st)
		if err != nil {
			return err
		}
		if err := st.MarkConversationRead(c.Request().Context(), viewer(c), other, upTo); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleUnreadConversation marks the caller's conversation with the user
// in the path unread: 200 {"unread_count": n}, the messages now unread
// (its newest, unless some were unread already); 404 when the two have no
// messages.
func handleUnreadConversation(st dmService) echo.HandlerFunc {
	return func(c echo.Context) error {
		other, err := otherParam(c, st)
		if err != nil {
			return err
		}
		n, err := st.MarkConversationUnread(c.Request().Context(), viewer(c), other)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]int64{"unread_count": n})
	}
}

// handleDeleteDM deletes one of the caller's private messages, for
// both users.
func handleDeleteDM(st dmService) echo.HandlerFunc {
	return func(c echo.Context) error {
		pmid, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || pmid <= 0 {
			return store.ErrDMNotFound
		}
		// As a post's, a delete once begun is carried through even if the
		// client goes away.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
		defer cancel()
		if err := st.DeleteDM(ctx, viewer(c), pmid); err != nil {
			return err
		}
		return noContent(c)
	}
}
