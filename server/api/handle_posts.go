package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// IdempotencyHeader names the header that makes a retried create safe.
const IdempotencyHeader = "Idempotency-Key"

// deleteTimeout bounds a delete, which does not end with its client.
const deleteTimeout = 10 * time.Second

// handleCreatePost writes a post or, with repost_of, a repost: 201 Post.
func handleCreatePost(st store.Posts, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Content  string         `json:"content"`
			RepostOf *int64         `json:"repost_of"`
			MediaIDs []int64        `json:"media_ids"`
			Poll     *store.NewPoll `json:"poll"`
			Spoiler  string         `json:"spoiler"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		np := store.NewPost{Author: viewer(c), Content: in.Content, MediaIDs: in.MediaIDs, Poll: in.Poll, Spoiler: in.Spoiler,
			IdempotencyKey: c.Request().Header.Get(IdempotencyHeader)}
		if in.RepostOf != nil {
			if *in.RepostOf <= 0 {
				return store.ErrPostNotFound
			}
			np.RepostOf = *in.RepostOf
		}
		return createPost(c, st, limit, np)
	}
}

// handleCreateComment writes a comment on the post or comment in the path: 201 Post.
func handleCreateComment(st store.Posts, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		parent, err := idParam(c)
		if err != nil {
			return err
		}
		var in struct {
			Content string `json:"content"`
			Spoiler string `json:"spoiler"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		return createPost(c, st, limit, store.NewPost{Author: viewer(c), Parent: parent,
			Content: in.Content, Spoiler: in.Spoiler, IdempotencyKey: c.Request().Header.Get(IdempotencyHeader)})
	}
}

// createPost writes the message; Create counts it against the author's
// rate limit in the same round trip as its claim.
func createPost(c echo.Context, st store.Posts, limit store.Limit, np store.NewPost) error {
	np.Limit = limit
	p, err := st.Create(c.Request().Context(), np)
	if err != nil {
		return err
	}
	if p.Encoded != nil { // as its live event carries it
		return c.JSONBlob(http.StatusCreated, p.Encoded)
	}
	return c.JSON(http.StatusCreated, p)
}

// handleGetPost returns one post or comment.
func handleGetPost(st store.Posts) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		p, err := st.Post(c.Request().Context(), mid, viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, p)
	}
}

// handleDeletePost removes one of the caller's posts or comments.
func handleDeletePost(st store.Posts) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		// Like a create (see redisdb.Create), a delete once begun is carried
		// through even if the client goes away.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
		defer cancel()
		if err := st.Delete(ctx, viewer(c), mid); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleComments lists the comments on the post or comment in the path.
func handleComments(st store.Posts) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		mid, err := idParam(c)
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		return st.Comments(c.Request().Context(), mid, q)
	})
}

// handleHomeTimeline lists the caller's own posts and its stars', newest first.
func handleHomeTimeline(st store.Posts) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return st.HomeTimeline(c.Request().Context(), viewer(c), q)
	})
}

// handlePublicTimeline lists everyone's newest posts.
func handlePublicTimeline(st store.Posts) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return st.PublicTimeline(c.Request().Context(), q)
	})
}
