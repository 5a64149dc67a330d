package mastodon

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Notifications: the caller's notifications as Mastodon's, filtered by
// type and paged by id. Dismissing one or clearing them all removes them
// from the store (AppState), for the native API too, as in Mastodon;
// reading them is the notifications marker (markers.go), which moves the
// native read mark.

// notificationRoutes registers the notification routes.
func (a *API) notificationRoutes(r *router) {
	read, write := a.auth("read:notifications", true), a.auth("write:notifications", true)
	r.add(http.MethodGet, "/api/v1/notifications", a.notifications, read)
	r.add(http.MethodGet, "/api/v1/notifications/:id", a.notification, read)
	r.add(http.MethodPost, "/api/v1/notifications/clear", a.clearNotifications, write)
	r.add(http.MethodPost, "/api/v1/notifications/:id/dismiss", a.dismissNotification, write)
}

// notificationFilter is which notifications a list request wants, by
// Mastodon's types[], exclude_types[] and account_id.
type notificationFilter struct {
	types, exclude map[string]bool
	account        string
}

// notificationFilterOf reads a request's filter; Mastodon's parameters
// come with or without the brackets.
func notificationFilterOf(q url.Values) notificationFilter {
	set := func(name string) map[string]bool {
		vals := append(q[name+"[]"], q[name]...)
		if len(vals) == 0 {
			return nil
		}
		m := make(map[string]bool, len(vals))
		for _, v := range vals {
			m[v] = true
		}
		return m
	}
	return notificationFilter{types: set("types"), exclude: set("exclude_types"), account: q.Get("account_id")}
}

// filters tells whether the filter may leave any notification out.
func (f notificationFilter) filters() bool {
	return f.types != nil || f.exclude != nil || f.account != ""
}

// keeps tells whether the filter lets n (mapped) through.
func (f notificationFilter) keeps(n Notification) bool {
	return (f.types == nil || f.types[n.Type]) && !f.exclude[n.Type] && (f.account == "" || f.account == n.Account.ID)
}

// notifications answers GET /api/v1/notifications: newest first, below
// max_id, above since_id, or the page right above min_id. The store keeps
// a user's newest notifications only, so reading on until the page is
// full (what the filter or the bounds leave out is skipped) stays cheap.
func (a *API) notifications(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	f, m, uid := notificationFilterOf(c.QueryParams()), mapperOf(c), viewer(c)
	out := []Notification{}
	// A plain page reads what it shows; one that filters, or starts from
	// min_id and goes down to it, reads in the store's largest pages.
	q := store.PageQuery{Limit: p.Limit, Cursor: p.Cursor, Viewer: uid}
	if p.MinID > 0 || f.filters() {
		q.Limit = store.MaxLimit
	}
	for done := false; !done; {
		pg, err := a.st.Notifications(c.Request().Context(), uid, q)
		if err != nil {
			return err
		}
		for _, n := range pg.Items {
			if n.ID <= p.After {
				done = true
				break
			}
			if !hasType(n.Kind) {
				continue
			}
			if mn := m.notification(n); f.keeps(mn) {
				out = append(out, mn)
			}
		}
		if pg.NextCursor == nil || (p.MinID == 0 && len(out) >= p.Limit) {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*pg.NextCursor); err != nil {
			return err
		}
	}
	if len(out) > p.Limit {
		if p.MinID > 0 { // the page right above min_id: its oldest ones
			out = out[len(out)-p.Limit:]
		} else {
			out = out[:p.Limit]
		}
	}
	if len(out) > 0 {
		links(c, out[len(out)-1].ID, out[0].ID)
	}
	return c.JSON(http.StatusOK, out)
}

// notificationID reads the notification id of the path, by position.
func notificationID(c echo.Context) (int64, error) {
	n, err := strconv.ParseInt(c.ParamValues()[0], 10, 64)
	if err != nil || n <= 0 {
		return 0, errRecordNotFound
	}
	return n, nil
}

// notification answers GET /api/v1/notifications/:id.
func (a *API) notification(c echo.Context) error {
	nid, err := notificationID(c)
	if err != nil {
		return err
	}
	uid := viewer(c)
	pg, err := a.st.Notifications(c.Request().Context(), uid, store.PageQuery{Limit: 1, Cursor: store.Cursor{Score: nid + 1}, Viewer: uid})
	if err != nil {
		return err
	}
	if len(pg.Items) == 0 || pg.Items[0].ID != nid || !hasType(pg.Items[0].Kind) {
		return errRecordNotFound
	}
	return c.JSON(http.StatusOK, mapperOf(c).notification(pg.Items[0]))
}

// clearNotifications answers POST /api/v1/notifications/clear.
func (a *API) clearNotifications(c echo.Context) error {
	if err := a.st.ClearNotifications(c.Request().Context(), viewer(c)); err != nil {
		return err
	}
	return emptyObject(c)
}

// dismissNotification answers POST /api/v1/notifications/:id/dismiss.
func (a *API) dismissNotification(c echo.Context) error {
	nid, err := notificationID(c)
	if err != nil {
		return err
	}
	if err := a.st.DismissNotification(c.Request().Context(), viewer(c), nid); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errRecordNotFound
		}
		return err
	}
	return emptyObject(c)
}

// emptyObject answers {}, as Mastodon answers an action with nothing to
// show.
func emptyObject(c echo.Context) error { return c.JSONBlob(http.StatusOK, []byte("{}")) }
