package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleBlock makes the caller block (on) or unblock the user in the path;
// mute makes it mute or unmute instead. Each counts against the caller's
// follow limit, as it changes who follows whom or what reaches whom.
func handleBlock(st store.Service, mute, on bool, limit store.Limit) echo.HandlerFunc {
	act := st.Block
	if mute {
		act = st.Mute
	}
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "follow", strconv.FormatInt(viewer(c), 10), limit); err != nil {
			return err
		}
		target, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		if err := act(ctx, viewer(c), target, on); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleMyList lists the caller's blocks, mutes or follow requests (list),
// newest first.
func handleMyList(list func(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.User], error)) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.User], error) {
		return list(c.Request().Context(), viewer(c), q)
	})
}

// filtersBody is the body and answer of /me/filters.
type filtersBody struct {
	Words []string `json:"words"`
}

// handleFilters answers the caller's filtered words.
func handleFilters(st store.Safety) echo.HandlerFunc {
	return func(c echo.Context) error {
		words, err := st.Filters(c.Request().Context(), viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, filtersBody{Words: words})
	}
}

// handleSetFilters replaces the caller's filtered words.
func handleSetFilters(st store.Safety) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Words *[]string `json:"words"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Words == nil {
			return store.Invalid(store.CodeInvalidFilter, "words is missing")
		}
		words, err := st.SetFilters(c.Request().Context(), viewer(c), *in.Words)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, filtersBody{Words: words})
	}
}

// handleFollowRequest approves (on) or rejects the request of the user in
// the path to follow the caller.
func handleFollowRequest(st store.Service, approve bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		fan, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		if err := st.AnswerFollowRequest(ctx, viewer(c), fan, approve); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleReport files the caller's report. Reports count in a bucket of
// their own, at the rate of posts.
func handleReport(st store.Service, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Username *string `json:"username"`
			PostIDs  []int64 `json:"post_ids"`
			Reason   *string `json:"reason"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Username == nil {
			return store.Invalid(store.CodeInvalidReport, "username is missing")
		}
		if in.Reason == nil {
			return store.Invalid(store.CodeInvalidReason, "reason is missing")
		}
		ctx := c.Request().Context()
		nr := store.NewReport{PostIDs: in.PostIDs, Reason: *in.Reason}
		if err := nr.Check(); err != nil {
			return err
		}
		target, err := st.UIDByName(ctx, *in.Username)
		if err != nil {
			return err
		}
		nr.Target = target
		if err := st.Allow(ctx, "report", strconv.FormatInt(viewer(c), 10), limit); err != nil {
			return err
		}
		r, err := st.Report(ctx, viewer(c), nr)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, r)
	}
}
