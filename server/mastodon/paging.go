package mastodon

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Paging as Mastodon pages lists: ?limit= (default 20, at most 40; more is
// cut to 40, as Mastodon does), ?max_id= (older than), ?since_id= (newer
// than, newest first) and ?min_id= (newer than, the page right above it),
// and Link headers with the next (older) and prev (newer) pages. Lists in
// id order (statuses, notifications) take ids; lists in another order
// (followers, blocks ...) give out and take the native API's opaque
// cursors in max_id.

// Mastodon's page sizes.
const (
	defaultLimit = 20
	maxLimit     = 40
)

// page is what a list request asked for.
type page struct {
	store.PageQuery
	// MinID: the page right above this id (oldest first in the store's
	// terms), which Mastodon answers newest first.
	MinID int64
}

// pageOf reads a list request's paging parameters.
func pageOf(c echo.Context) (page, error) {
	var p page
	q := c.QueryParams()
	p.Limit = defaultLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return p, store.Invalid(store.CodeInvalidLimit, "limit must be a positive number")
		}
		p.Limit = min(n, maxLimit)
	}
	if s := q.Get("max_id"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			p.Cursor = store.Cursor{Score: n}
		} else if cur, err := store.DecodeCursor(s); err == nil {
			p.Cursor = cur
		} else {
			return p, store.Invalid(store.CodeInvalidCursor, "max_id must be an id")
		}
	}
	for _, name := range []string{"since_id", "min_id"} {
		s := q.Get(name)
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return p, store.Invalid(store.CodeInvalidAfter, name+" must be an id")
		}
		if name == "since_id" {
			p.After = max(p.After, n)
		} else {
			p.MinID = n
			p.After = max(p.After, n)
		}
	}
	p.Viewer = viewer(c)
	return p, nil
}

// links sets the Link header of a page: next (older) from max_id next,
// prev (newer) from min_id prev; an empty value leaves that link out.
func links(c echo.Context, next, prev string) {
	u := *c.Request().URL
	base := strings.TrimRight(originOf(c), "/") + u.Path
	var parts []string
	for _, l := range []struct{ param, value, rel string }{{"max_id", next, "next"}, {"min_id", prev, "prev"}} {
		if l.value == "" {
			continue
		}
		q := url.Values{}
		for k, v := range u.Query() {
			switch k {
			case "max_id", "min_id", "since_id", "access_token":
			default:
				q[k] = v
			}
		}
		q.Set(l.param, l.value)
		parts = append(parts, "<"+base+"?"+q.Encode()+`>; rel="`+l.rel+`"`)
	}
	if len(parts) > 0 {
		c.Response().Header().Set("Link", strings.Join(parts, ", "))
	}
}

// originOf is the service's origin as the request reached it.
func originOf(c echo.Context) string {
	if a, ok := c.Get(ctxAPI).(*API); ok && a.d.Origin != nil {
		return a.d.Origin(c)
	}
	return c.Scheme() + "://" + c.Request().Host
}

// ctxAPI holds the API that serves the request, for originOf.
const ctxAPI = "mastodon.api"

// mapperOf is the entity mapper for a request.
func mapperOf(c echo.Context) mapper {
	return mapper{origin: strings.TrimRight(originOf(c), "/"), viewer: viewer(c)}
}
