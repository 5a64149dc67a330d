package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// operators are the users named by MICROBLOG_ADMINS.
type operators struct {
	st    store.Accounts
	names []string // lower-case
}

// is tells whether uid is an operator.
func (o operators) is(ctx context.Context, uid int64) (bool, error) {
	if uid <= 0 || len(o.names) == 0 {
		return false, nil
	}
	for _, name := range o.names {
		id, err := o.st.UIDByName(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if id == uid {
			return true, nil
		}
	}
	return false, nil
}

// only lets operators through; everyone else gets 403 not_admin.
func (o operators) only(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ok, err := o.is(c.Request().Context(), viewer(c))
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotAdmin
		}
		return next(c)
	}
}

// handleReports lists the reports, ?resolved=false (the default) or true,
// oldest first.
func handleReports(st store.Safety) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Report], error) {
		resolved := c.QueryParam("resolved")
		if !slices.Contains([]string{"", "true", "false"}, resolved) {
			return store.Page[store.Report]{}, store.Invalid(store.CodeInvalidQuery, "resolved must be true or false")
		}
		return st.Reports(c.Request().Context(), resolved == "true", q)
	})
}

// handleResolveReport marks the report in the path resolved.
func handleResolveReport(st store.Safety) echo.HandlerFunc {
	return func(c echo.Context) error {
		rid, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || rid <= 0 {
			return store.ErrReportNotFound
		}
		r, err := st.ResolveReport(c.Request().Context(), rid)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, r)
	}
}

// handleSuspend suspends (on) the user in the path or lifts its suspension.
func handleSuspend(st store.Service, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		uid, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		if err := st.Suspend(ctx, uid, on); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleRemovePost deletes anyone's post or comment, as its author could.
func handleRemovePost(st store.Safety) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := idParam(c)
		if err != nil {
			return err
		}
		if err := st.Remove(c.Request().Context(), mid); err != nil {
			return err
		}
		return noContent(c)
	}
}
