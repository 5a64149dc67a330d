package api

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleMark sets (on) or clears one of the caller's marks on the post in
// the path with mark: a like, a pin, a bookmark.
func handleMark(mark func(ctx context.Context, uid, mid int64, on bool) error, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		if err := mark(c.Request().Context(), viewer(c), mid, on); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handlePinned lists the pinned posts of the user in the path, newest pin
// first: {"items": [Post]}.
func handlePinned(st store.Service) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		uid, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		posts, err := st.Pinned(ctx, uid, viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, struct {
			Items []store.Post `json:"items"`
		}{posts})
	}
}

// handleBookmarks lists the caller's bookmarks, newest bookmark first.
func handleBookmarks(st store.Keeps) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return st.Bookmarks(c.Request().Context(), viewer(c), q)
	})
}
