package api

import (
	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleUnrepost deletes the caller's repost of the post in the path (of
// its original, when it is a repost): 204, idempotent; 404 post_not_found
// for a post the caller may not see.
func handleUnrepost(st store.Reposts) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		if err := st.Unrepost(c.Request().Context(), viewer(c), mid); err != nil {
			return err
		}
		return noContent(c)
	}
}
