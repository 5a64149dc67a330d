package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleEditPost replaces the content of one of the caller's posts or
// comments: 200 Post. An edit counts against the rate limit of posts, in
// their bucket.
func handleEditPost(st store.Service, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		var in struct {
			Content *string `json:"content"`
			Spoiler *string `json:"spoiler"` // absent: the content warning stays
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Content == nil {
			return store.Invalid(store.CodeInvalidContent, "content is missing")
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "post", strconv.FormatInt(viewer(c), 10), limit); err != nil {
			return err
		}
		// Once its write begins, Edit carries it through even if the client
		// goes away.
		p, err := st.EditPost(ctx, viewer(c), mid, store.PostEdit{Content: *in.Content, Spoiler: in.Spoiler})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, p)
	}
}

// handleHistory lists every version of a post or comment, oldest first:
// 200 {"items": [Version]}.
func handleHistory(st store.Edits) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		vs, err := st.History(c.Request().Context(), mid, viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, struct {
			Items []store.Version `json:"items"`
		}{vs})
	}
}
