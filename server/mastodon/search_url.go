package mastodon

import (
	"context"
	"errors"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// A search whose q is a URL, with resolve=true and federation on, finds
// what the URL names (as Mastodon's does): an account's actor or profile
// page, or a post, this server's or another's, read from its server the
// first time (federation's ResolveURL).

// urlResolver is the federation's lookup of a URL: the account (uid) or
// post (mid) it names, both 0 when neither.
type urlResolver interface {
	ResolveURL(ctx context.Context, u string) (uid, mid int64, err error)
}

// isURLQuery tells whether a search's q is an http(s) URL.
func isURLQuery(q string) bool {
	return (strings.HasPrefix(q, "https://") || strings.HasPrefix(q, "http://")) && !strings.ContainsAny(q, " \t\n")
}

// searchURL fills out with what the URL q names, when the caller is
// signed in and asked resolve=true; a URL that cannot be read finds
// nothing.
func (a *API) searchURL(c echo.Context, s searchQuery, want func(string) bool, out *SearchResults) error {
	r, ok := a.d.Federation.(urlResolver)
	uid := viewer(c)
	if !ok || c.QueryParam("resolve") != "true" || uid == 0 || s.offset != 0 {
		return nil
	}
	ctx := c.Request().Context()
	found, mid, err := r.ResolveURL(ctx, s.q)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			return err
		}
		return nil
	}
	if found != 0 && want("accounts") {
		u, err := a.st.User(ctx, found, uid)
		switch {
		case err == nil:
			out.Accounts = append(out.Accounts, mapperOf(c).account(u))
		case errors.Is(err, store.ErrUnavailable):
			return err
		}
	}
	if mid != 0 && want("statuses") {
		p, err := a.st.Post(ctx, mid, uid)
		switch {
		case err == nil:
			st, err := a.statusOf(c, p)
			if err != nil {
				return err
			}
			out.Statuses = append(out.Statuses, st)
		case errors.Is(err, store.ErrUnavailable):
			return err
		}
	}
	return nil
}
