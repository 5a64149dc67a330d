package mastodon

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// reportRoutes registers POST /api/v1/reports (a path the native API
// serves too).
func (a *API) reportRoutes(r *router) {
	r.add(http.MethodPost, "/api/v1/reports", a.report, a.auth("write:reports", true))
}

// report files the caller's report of account_id, with the statuses
// status_ids and the comment, as the native report is filed (same checks,
// same limit). Mastodon takes a report without a comment; the service
// wants a reason, so then the category ("other" unless named) is it.
func (a *API) report(c echo.Context) error {
	params, err := readParams(c)
	if err != nil {
		return err
	}
	if !params.Has("account_id") {
		return store.Invalid(store.CodeInvalidReport, "account_id is missing")
	}
	target, err := parseID(params.Get("account_id"))
	if err != nil {
		return err
	}
	category := params.Get("category")
	if category == "" {
		category = "other"
	}
	nr := store.NewReport{Target: target, Reason: params.Get("comment")}
	if nr.Reason == "" {
		nr.Reason = category
	}
	for _, s := range params["status_ids"] {
		id, err := parseID(s)
		if err != nil {
			return err
		}
		nr.PostIDs = append(nr.PostIDs, id)
	}
	if err := nr.Check(); err != nil {
		return err
	}
	ctx, uid := c.Request().Context(), viewer(c)
	if _, err := a.userOf(ctx, target, uid); err != nil {
		return err
	}
	if err := a.st.Allow(ctx, "report", strconv.FormatInt(uid, 10), a.d.Limits.Post); err != nil {
		return err
	}
	r, err := a.st.Report(ctx, uid, nr)
	if err != nil {
		return recordNotFound(err)
	}
	return c.JSON(http.StatusOK, mapperOf(c).report(r, category))
}
