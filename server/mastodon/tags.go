package mastodon

import (
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Followed hashtags: a topic's Tag entity (with following and history),
// following and unfollowing it, and the caller's followed tags. The posts
// of followed topics join the home timeline and the user stream
// (streaming_events.go) as the store and the hub bring them.

// tagRoutes registers those routes. GET /api/v1/tags/:tag is a shared path:
// its name is read by position.
func (a *API) tagRoutes(r *router) {
	follows := a.auth("write:follows", true)
	r.add(http.MethodGet, "/api/v1/tags/:tag", a.getTag, a.auth("", false))
	r.add(http.MethodPost, "/api/v1/tags/:tag/follow", a.followTag(true), follows)
	r.add(http.MethodPost, "/api/v1/tags/:tag/unfollow", a.followTag(false), follows)
	r.add(http.MethodGet, "/api/v1/followed_tags", mine(a.st.FollowedTags, func(m mapper, ft store.FollowedTag) Tag {
		t, yes := m.tag(ft.Name, nil), true
		t.Following = &yes
		return t
	}), a.auth("read:follows", true))
}

// tagParam is the tag named in the path, by position (a shared path).
func tagParam(c echo.Context) string {
	if v := c.ParamValues(); len(v) > 0 {
		return v[0]
	}
	return ""
}

// getTag answers GET /api/v1/tags/:name: the Tag, with following for a
// user.
func (a *API) getTag(c echo.Context) error {
	key, err := store.CheckTagName(tagParam(c))
	if err != nil {
		return err
	}
	return a.answerTag(c, key, nil)
}

// followTag answers POST /api/v1/tags/:name/follow and .../unfollow,
// counted in the follow rate limit.
func (a *API) followTag(on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := a.allowFollow(c.Request().Context(), viewer(c)); err != nil {
			return err
		}
		key, err := a.st.FollowTag(c.Request().Context(), viewer(c), tagParam(c), on)
		if err != nil {
			return err
		}
		return a.answerTag(c, key, &on)
	}
}

// answerTag answers the Tag of key: following as given, or as the store
// has it for a user; history today's use if the topic trends.
func (a *API) answerTag(c echo.Context, key string, following *bool) error {
	ctx := c.Request().Context()
	var history []TagHistory
	if ts, err := a.st.Trends(ctx); err == nil {
		if i := slices.IndexFunc(ts, func(t store.Trend) bool { return t.Tag == key }); i >= 0 {
			history = mapperOf(c).trend(ts[i], time.Now()).History
		}
	}
	t := mapperOf(c).tag(key, history)
	t.Following = following
	if following == nil && viewer(c) != 0 {
		got, err := a.st.FollowsTags(ctx, viewer(c), []string{key})
		if err != nil {
			return err
		}
		t.Following = &got[0]
	}
	return c.JSON(http.StatusOK, t)
}

// markFollowing sets following on tags for a user caller, in one read; on
// failure they are left without it, as for an anonymous caller.
func (a *API) markFollowing(c echo.Context, tags []Tag) {
	uid := viewer(c)
	if uid == 0 || len(tags) == 0 {
		return
	}
	keys := make([]string, len(tags))
	for i, t := range tags {
		keys[i] = t.Name
	}
	got, err := a.st.FollowsTags(c.Request().Context(), uid, keys)
	if err != nil {
		return
	}
	for i := range tags {
		tags[i].Following = &got[i]
	}
}
