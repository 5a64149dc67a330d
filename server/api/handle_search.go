package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleSearchPosts lists the posts whose content holds every word of ?q=,
// newest first.
func handleSearchPosts(st store.Search) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return st.SearchPosts(c.Request().Context(), c.QueryParam("q"), q)
	})
}

// handleTrends lists the topics the most people used lately.
func handleTrends(st store.Search) echo.HandlerFunc {
	return func(c echo.Context) error {
		ts, err := st.Trends(c.Request().Context())
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, struct {
			Items []store.Trend `json:"items"`
		}{ts})
	}
}
