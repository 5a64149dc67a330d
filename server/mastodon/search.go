package mastodon

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Search v2 and trends. Statuses are found by the service's full-text
// search (§10); with the archive off it has none, and the statuses are an
// empty list, as Mastodon answers without its search engine, rather than
// failing the accounts and hashtags with it.

// searchRoutes registers the search and trends routes.
func (a *API) searchRoutes(r *router) {
	anyone := a.auth("", false)
	r.add(http.MethodGet, "/api/v2/search", a.search, a.auth("read:search", false))
	r.add(http.MethodGet, "/api/v1/trends/tags", a.trendTags, anyone)
	r.add(http.MethodGet, "/api/v1/trends", a.trendTags, anyone)
	r.add(http.MethodGet, "/api/v1/trends/statuses", emptyList, anyone)
	r.add(http.MethodGet, "/api/v1/trends/links", emptyList, anyone)
}

// SearchResults is Mastodon's Search.
type SearchResults struct {
	Accounts []Account `json:"accounts"`
	Statuses []Status  `json:"statuses"`
	Hashtags []Tag     `json:"hashtags"`
}

// maxSearchOffset bounds ?offset=, which the store's searches serve by
// reading past what is skipped.
const maxSearchOffset = store.MaxLimit - maxLimit

// searchQuery is what a search asked for.
type searchQuery struct {
	q, kind       string
	limit, offset int
}

// searchQueryOf reads and checks ?q=, ?type=, ?limit= and ?offset=.
func searchQueryOf(c echo.Context) (searchQuery, error) {
	s := searchQuery{q: strings.TrimSpace(c.QueryParam("q")), kind: c.QueryParam("type"), limit: defaultLimit}
	if s.q == "" {
		return s, store.Invalid(store.CodeInvalidQuery, "q is missing")
	}
	switch s.kind {
	case "", "accounts", "statuses", "hashtags":
	default:
		return s, store.Invalid(store.CodeInvalidField, "type must be accounts, statuses or hashtags")
	}
	for _, p := range []struct {
		name string
		to   *int
		min  int
	}{{"limit", &s.limit, 1}, {"offset", &s.offset, 0}} {
		if v := c.QueryParam(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < p.min {
				return s, store.Invalid(store.CodeInvalidField, p.name+" must be a number of at least "+strconv.Itoa(p.min))
			}
			*p.to = n
		}
	}
	s.limit, s.offset = min(s.limit, maxLimit), min(s.offset, maxSearchOffset)
	return s, nil
}

// window is what of a list of n found items the page shows.
func (s searchQuery) window(n int) (from, to int) {
	return min(s.offset, n), min(s.offset+s.limit, n)
}

// search answers GET /api/v2/search: accounts whose name starts with q
// (an @ and this server's domain allowed), statuses that hold every word
// of q, hashtags that start with q (a # allowed) and have a post the
// caller may see. A q that cannot be a name or a tag finds none rather
// than failing the others.
func (a *API) search(c echo.Context) error {
	s, err := searchQueryOf(c)
	if err != nil {
		return err
	}
	ctx, m, uid := c.Request().Context(), mapperOf(c), viewer(c)
	out := SearchResults{Accounts: []Account{}, Statuses: []Status{}, Hashtags: []Tag{}}
	want := func(kind string) bool { return s.kind == "" || s.kind == kind }
	if a.d.Federation != nil && isURLQuery(s.q) { // search_url.go
		if err := a.searchURL(c, s, want, &out); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
	name, ok := localName(s.q, hostOf(m.origin))
	if !ok && a.d.Federation != nil {
		// Handles name the public URL's host, which a proxy in front may
		// not pass on as the request's.
		name, ok = localName(s.q, a.d.Federation.Host())
	}
	if ok && want("accounts") {
		users, err := a.findAccounts(ctx, name, uid, s.offset+s.limit)
		if err != nil {
			return err
		}
		from, to := s.window(len(users))
		for _, u := range users[from:to] {
			out.Accounts = append(out.Accounts, m.account(u))
		}
	} else if !ok && a.d.Federation != nil && strings.Count(strings.TrimPrefix(s.q, "@"), "@") == 1 && want("accounts") && s.offset == 0 {
		// Another server's account, name@domain: the one known here, or,
		// with resolve=true, looked up through WebFinger (the store the
		// API was given resolves such names).
		handle := strings.TrimPrefix(s.q, "@")
		if c.QueryParam("resolve") == "true" && uid != 0 {
			u, err := a.st.UserByName(ctx, handle, uid)
			if err == nil {
				out.Accounts = append(out.Accounts, m.account(u))
			} else if errors.Is(err, store.ErrUnavailable) {
				return err
			}
		} else {
			users, err := a.findAccounts(ctx, strings.ToLower(handle), uid, s.limit)
			if err != nil {
				return err
			}
			for _, u := range users {
				out.Accounts = append(out.Accounts, m.account(u))
			}
		}
	}
	if want("statuses") {
		if out.Statuses, err = a.searchStatuses(c, s); err != nil {
			return err
		}
	}
	if want("hashtags") {
		tags, err := a.st.SearchTags(ctx, strings.TrimPrefix(s.q, "#"), store.PageQuery{Limit: s.offset + s.limit, Viewer: uid})
		if err != nil && !errors.Is(err, store.ErrInvalid) {
			return err
		}
		from, to := s.window(len(tags))
		for _, t := range tags[from:to] {
			if isHashtagName(t.Tag) { // as a status's tags[] (entities.go)
				out.Hashtags = append(out.Hashtags, m.tag(t.Tag, nil))
			}
		}
		a.markFollowing(c, out.Hashtags)
	}
	return c.JSON(http.StatusOK, out)
}

// localName is the user name an account search for q looks for: q
// without a leading @ and without this server's domain; false when q
// names another server's account.
func localName(q, host string) (string, bool) {
	name, domain, _ := strings.Cut(strings.TrimPrefix(q, "@"), "@")
	bare, _, _ := strings.Cut(host, ":")
	return name, domain == "" || strings.EqualFold(domain, host) || strings.EqualFold(domain, bare)
}

// searchStatuses are the posts of a search's page, as the reader may see
// them, newest first; none without an archive.
func (a *API) searchStatuses(c echo.Context, s searchQuery) ([]Status, error) {
	pg, err := a.st.SearchPosts(c.Request().Context(), s.q, store.PageQuery{Limit: s.offset + s.limit, Viewer: viewer(c)})
	if errors.Is(err, store.ErrSearchUnavailable) {
		return []Status{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := mapperOf(c)
	from, to := s.window(len(pg.Items))
	out := make([]Status, 0, to-from)
	for _, p := range pg.Items[from:to] {
		out = append(out, m.status(p))
	}
	return out, nil
}

// trendTags answers GET /api/v1/trends/tags (and /api/v1/trends, its old
// name): the topics most people used lately, most people first.
func (a *API) trendTags(c echo.Context) error {
	limit, offset := 10, 0
	if v, err := strconv.Atoi(c.QueryParam("limit")); err == nil && v > 0 {
		limit = min(v, 20)
	}
	if v, err := strconv.Atoi(c.QueryParam("offset")); err == nil && v > 0 {
		offset = v
	}
	ts, err := a.st.Trends(c.Request().Context())
	if err != nil {
		return err
	}
	// Only topics whose names are Mastodon hashtags, as a status's tags[]
	// (entities.go): apps put the name into links and markup.
	ts = slices.DeleteFunc(ts, func(t store.Trend) bool { return !isHashtagName(t.Tag) })
	ts = ts[min(offset, len(ts)):min(offset+limit, len(ts))]
	m, now := mapperOf(c), time.Now()
	out := make([]Tag, 0, len(ts))
	for _, t := range ts {
		out = append(out, m.trend(t, now))
	}
	a.markFollowing(c, out)
	return c.JSON(http.StatusOK, out)
}

// maxBlockPages bounds how many pages of the caller's blocks an account
// search reads for the accounts it blocks (store.MaxLimit each).
const maxBlockPages = 10

// findAccounts are the accounts whose name starts with prefix, at most
// limit, as the caller uid finds them: as the store's user search has them
// (no one across a block), and, as on Mastodon, the accounts the caller
// blocks too (among its first maxBlockPages pages of blocks), so that an
// app can find one to unblock it. Accounts that block the caller stay out.
// A prefix that cannot be a name finds none.
func (a *API) findAccounts(ctx context.Context, prefix string, uid int64, limit int) ([]store.User, error) {
	pg, err := a.st.SearchUsers(ctx, prefix, store.PageQuery{Limit: limit, Viewer: uid})
	if errors.Is(err, store.ErrInvalid) {
		return nil, nil
	}
	if err != nil || uid == 0 {
		return pg.Items, err
	}
	found := pg.Items
	lower := strings.ToLower(prefix)
	q := store.PageQuery{Limit: store.MaxLimit, Viewer: uid}
	for range maxBlockPages {
		blocked, err := a.st.Blocks(ctx, uid, q)
		if err != nil {
			return nil, err
		}
		for _, u := range blocked.Items {
			name := strings.ToLower(u.Username)
			if !strings.HasPrefix(name, lower) {
				continue
			}
			if name == lower { // an exact match first, as the store's search puts it
				found = append([]store.User{u}, found...)
			} else {
				found = append(found, u)
			}
		}
		if blocked.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*blocked.NextCursor); err != nil {
			return nil, err
		}
	}
	return found[:min(len(found), limit)], nil
}
