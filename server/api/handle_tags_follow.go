package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// TagView is a topic as GET /api/v1/tags/:tag answers it: its key and
// whether the caller follows it (false for an anonymous caller).
type TagView struct {
	Name      string `json:"name"`
	Following bool   `json:"following"`
}

// handleTag answers GET /api/v1/tags/:tag: the topic and whether the caller
// follows it.
func handleTag(st store.Service) echo.HandlerFunc {
	return func(c echo.Context) error {
		key, err := store.CheckTagName(c.Param("tag"))
		if err != nil {
			return err
		}
		v := TagView{Name: key}
		if uid := viewer(c); uid != 0 {
			got, err := st.FollowsTags(c.Request().Context(), uid, []string{key})
			if err != nil {
				return err
			}
			v.Following = got[0]
		}
		return c.JSON(http.StatusOK, v)
	}
}

// handleFollowTag answers PUT (follow) and DELETE (unfollow)
// /api/v1/tags/:tag/follow: 204, or 422 tag_follow_limit past
// store.MaxFollowedTags. It counts in the follow rate limit.
func handleFollowTag(st store.Service, follow bool, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "follow", strconv.FormatInt(viewer(c), 10), limit); err != nil {
			return err
		}
		if _, err := st.FollowTag(ctx, viewer(c), c.Param("tag"), follow); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleFollowedTags answers GET /api/v1/me/tags: a page of the topics the
// caller follows, newest follow first.
func handleFollowedTags(st store.FollowedTags) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.FollowedTag], error) {
		return st.FollowedTags(c.Request().Context(), viewer(c), q)
	})
}
