package mastodon

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// The accounts area: who a user is (accounts.go), what it wrote
// (accounts_statuses.go), whom it follows, blocks and mutes and what it
// keeps (accounts_lists.go), what the caller does to an account
// (accounts_actions.go), and the caller's own profile
// (accounts_credentials.go).

// accountRoutes registers the routes of this area.
func (a *API) accountRoutes(r *router) {
	const p = "/api/v1/accounts"
	get, post := http.MethodGet, http.MethodPost
	r.add(get, p+"/verify_credentials", a.verifyCredentials, a.auth("read:accounts", true))
	r.add(http.MethodPatch, p+"/update_credentials", a.updateCredentials, a.auth("write:accounts", true))
	r.add(get, p+"/relationships", a.relationships, a.auth("read:follows", true))
	r.add(get, p+"/lookup", a.lookup, a.auth("read:accounts", false))
	r.add(get, p+"/search", a.searchAccounts, a.auth("read:accounts", true))
	r.add(get, p+"/:id", a.getAccount, a.auth("read:accounts", false))
	r.add(get, p+"/:id/statuses", a.accountStatuses, a.auth("read:statuses", false))
	r.add(get, p+"/:id/followers", a.accountUsers(a.st.Followers), a.auth("read:accounts", false))
	r.add(get, p+"/:id/following", a.accountUsers(a.st.Following), a.auth("read:accounts", false))
	r.add(post, p+"/:id/follow", a.act(a.followOrAsk), a.auth("write:follows", true))
	r.add(post, p+"/:id/unfollow", a.act(a.unfollow), a.auth("write:follows", true))
	r.add(post, p+"/:id/block", a.act(a.blocker(a.st.Block, true)), a.auth("write:blocks", true))
	r.add(post, p+"/:id/unblock", a.act(a.blocker(a.st.Block, false)), a.auth("write:blocks", true))
	r.add(post, p+"/:id/mute", a.act(a.blocker(a.st.Mute, true)), a.auth("write:mutes", true))
	r.add(post, p+"/:id/unmute", a.act(a.blocker(a.st.Mute, false)), a.auth("write:mutes", true))

	r.add(get, "/api/v1/follow_requests", mine(a.st.FollowRequests, mapper.account), a.auth("read:follows", true))
	r.add(post, "/api/v1/follow_requests/:id/authorize", a.act(a.answer(true)), a.auth("write:follows", true))
	r.add(post, "/api/v1/follow_requests/:id/reject", a.act(a.answer(false)), a.auth("write:follows", true))
	r.add(get, "/api/v1/blocks", mine(a.st.Blocks, mapper.account), a.auth("read:blocks", true))
	r.add(get, "/api/v1/mutes", mine(a.st.Mutes, mapper.account), a.auth("read:mutes", true))
	r.add(get, "/api/v1/bookmarks", mine(a.st.Bookmarks, mapper.status), a.auth("read:bookmarks", true))
	r.add(get, "/api/v1/favourites", mine(a.st.Liked, mapper.status), a.auth("read:favourites", true))

	a.mediaRoutes(r)
	a.reportRoutes(r)
}

// errRecordNotFound is Mastodon's answer for an id that names nothing.
var errRecordNotFound = store.NewError(store.ErrNotFound, store.CodeNotFound, "Record not found")

// recordNotFound turns the store's not-found errors into Mastodon's.
func recordNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errRecordNotFound
	}
	return err
}

// parseID reads an id as Mastodon sends them: a positive number in a
// string; anything else names no record.
func parseID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errRecordNotFound
	}
	return n, nil
}

// pathID is the id in the path (the route's first parameter).
func pathID(c echo.Context) (int64, error) {
	if vs := c.ParamValues(); len(vs) > 0 {
		return parseID(vs[0])
	}
	return 0, errRecordNotFound
}

// userOf is the account id as the caller sees it (Record not found when
// there is none).
func (a *API) userOf(ctx context.Context, id, viewer int64) (store.User, error) {
	u, err := a.st.User(ctx, id, viewer)
	return u, recordNotFound(err)
}

// getAccount answers GET /api/v1/accounts/:id: as the native profile, a
// blocked caller still sees the account (its relationship says so).
func (a *API) getAccount(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	u, err := a.userOf(c.Request().Context(), id, viewer(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mapperOf(c).account(u))
}

// lookup answers GET /api/v1/accounts/lookup?acct=: a local account by
// its name, with or without this service's domain.
func (a *API) lookup(c echo.Context) error {
	acct := strings.TrimPrefix(c.QueryParam("acct"), "@")
	name, domain, _ := strings.Cut(acct, "@")
	if name == "" || (domain != "" && !strings.EqualFold(domain, c.Request().Host)) {
		return errRecordNotFound
	}
	u, err := a.st.UserByName(c.Request().Context(), name, viewer(c))
	if err != nil {
		return recordNotFound(err)
	}
	return c.JSON(http.StatusOK, mapperOf(c).account(u))
}

// searchAccounts answers GET /api/v1/accounts/search?q=: the accounts
// whose name starts with q (a leading @ aside), as the native search of
// users finds them.
func (a *API) searchAccounts(c echo.Context) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	q := strings.TrimPrefix(strings.TrimSpace(c.QueryParam("q")), "@")
	q, _, _ = strings.Cut(q, "@")
	out := []Account{}
	if q == "" {
		return c.JSON(http.StatusOK, out)
	}
	// A search has no pages here: offset is not supported.
	users, err := a.findAccounts(c.Request().Context(), q, viewer(c), p.Limit)
	if err != nil {
		return err
	}
	m := mapperOf(c)
	for _, u := range users {
		out = append(out, m.account(u))
	}
	return c.JSON(http.StatusOK, out)
}

// relationships answers GET /api/v1/accounts/relationships?id[]=: the
// caller's relationship to each account that exists, in the order asked.
func (a *API) relationships(c echo.Context) error {
	q := c.QueryParams()
	ids := append(q["id[]"], q["id"]...)
	out := make([]Relationship, 0, len(ids))
	for _, s := range ids {
		id, err := parseID(s)
		if err != nil {
			continue
		}
		r, err := a.relationshipOf(c.Request().Context(), viewer(c), id)
		if errors.Is(err, errRecordNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		out = append(out, r)
	}
	return c.JSON(http.StatusOK, out)
}

// relationshipOf is the relationship of uid to the account id: what the
// store tells of id as uid sees it and of uid as id sees it (whether id
// follows uid, or asks to).
func (a *API) relationshipOf(ctx context.Context, uid, id int64) (Relationship, error) {
	u, err := a.userOf(ctx, id, uid)
	if err != nil {
		return Relationship{}, err
	}
	me, err := a.userOf(ctx, uid, id)
	if err != nil {
		return Relationship{}, err
	}
	r := relationship(u, me.Following != nil && *me.Following)
	r.RequestedBy = me.Requested != nil && *me.Requested
	return r, nil
}
