package mastodon

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Lists (关注分组) as Mastodon's: the caller's own, private. A list of
// another user's is "Record not found", and so is an account the caller
// does not follow given to a list (Mastodon's ListAccount finds the follow
// with find_by!). Past the store's limits (store.MaxLists lists,
// store.MaxListMembers members) and on a bad title or replies policy the
// answer is 422.

// List is Mastodon's List.
type List struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	RepliesPolicy string `json:"replies_policy"`
	Exclusive     bool   `json:"exclusive"`
}

// listOf is l as a List.
func listOf(l store.List) List {
	return List{ID: idString(l.ID), Title: l.Title, RepliesPolicy: l.RepliesPolicy, Exclusive: l.Exclusive}
}

// listsOf is ls as Lists, [] when empty.
func listsOf(ls []store.List) []List {
	out := make([]List, 0, len(ls))
	for _, l := range ls {
		out = append(out, listOf(l))
	}
	return out
}

// listRoutes registers the routes of this area.
func (a *API) listRoutes(r *router) {
	const p = "/api/v1/lists"
	read, write := a.auth("read:lists", true), a.auth("write:lists", true)
	r.add(http.MethodGet, p, a.lists, read)
	r.add(http.MethodPost, p, a.createList, write)
	r.add(http.MethodGet, p+"/:id", a.getList, read)
	r.add(http.MethodPut, p+"/:id", a.updateList, write)
	r.add(http.MethodDelete, p+"/:id", a.deleteList, write)
	r.add(http.MethodGet, p+"/:id/accounts", a.listAccounts, read)
	r.add(http.MethodPost, p+"/:id/accounts", a.changeListAccounts(true), write)
	r.add(http.MethodDelete, p+"/:id/accounts", a.changeListAccounts(false), write)
	r.add(http.MethodGet, "/api/v1/accounts/:id/lists", a.accountLists, read)
	r.add(http.MethodGet, "/api/v1/timelines/list/:list_id", a.listTimeline, read)
}

// listError is err as Mastodon answers it: not found (of the list, or of
// a follow) is Record not found, a limit is a failed validation (422).
func listError(err error) error {
	var se *store.Error
	switch {
	case errors.As(err, &se) && se.Code == store.CodeNotFollowing:
		return errRecordNotFound
	case errors.Is(err, store.ErrNotFound):
		return errRecordNotFound
	case errors.As(err, &se) && (se.Code == store.CodeListLimit || se.Code == store.CodeListMembersLimit):
		return store.NewError(store.ErrInvalid, se.Code, "Validation failed: "+se.Message)
	case errors.As(err, &se) && se.Kind == store.ErrInvalid:
		return store.NewError(store.ErrInvalid, se.Code, "Validation failed: "+se.Message)
	}
	return err
}

// lists answers GET /api/v1/lists: the caller's lists.
func (a *API) lists(c echo.Context) error {
	ls, err := a.st.Lists(c.Request().Context(), viewer(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, listsOf(ls))
}

// createList answers POST /api/v1/lists (title, replies_policy,
// exclusive).
func (a *API) createList(c echo.Context) error {
	ps, err := readParams(c)
	if err != nil {
		return err
	}
	nl := store.NewList{Title: ps.Get("title"), RepliesPolicy: ps.Get("replies_policy"), Exclusive: flag(ps.Get("exclusive"))}
	l, err := a.st.CreateList(c.Request().Context(), viewer(c), nl)
	if err != nil {
		return listError(err)
	}
	return c.JSON(http.StatusOK, listOf(l))
}

// getList answers GET /api/v1/lists/:id.
func (a *API) getList(c echo.Context) error {
	lid, err := pathID(c)
	if err != nil {
		return err
	}
	l, err := a.st.List(c.Request().Context(), viewer(c), lid)
	if err != nil {
		return listError(err)
	}
	return c.JSON(http.StatusOK, listOf(l))
}

// updateList answers PUT /api/v1/lists/:id: what the request sets of
// title, replies_policy and exclusive.
func (a *API) updateList(c echo.Context) error {
	lid, err := pathID(c)
	if err != nil {
		return err
	}
	ps, err := readParams(c)
	if err != nil {
		return err
	}
	var ch store.ListChange
	if ps.Has("title") {
		t := ps.Get("title")
		ch.Title = &t
	}
	if ps.Has("replies_policy") {
		p := ps.Get("replies_policy")
		ch.RepliesPolicy = &p
	}
	if ps.Has("exclusive") {
		x := flag(ps.Get("exclusive"))
		ch.Exclusive = &x
	}
	l, err := a.st.UpdateList(c.Request().Context(), viewer(c), lid, ch)
	if err != nil {
		return listError(err)
	}
	return c.JSON(http.StatusOK, listOf(l))
}

// deleteList answers DELETE /api/v1/lists/:id: {}.
func (a *API) deleteList(c echo.Context) error {
	lid, err := pathID(c)
	if err != nil {
		return err
	}
	if err := a.st.DeleteList(c.Request().Context(), viewer(c), lid); err != nil {
		return listError(err)
	}
	return c.JSON(http.StatusOK, struct{}{})
}

// listAccounts answers GET /api/v1/lists/:id/accounts, paged by the
// store's cursor in max_id; limit=0 is every member, as in Mastodon.
func (a *API) listAccounts(c echo.Context) error {
	ctx := c.Request().Context()
	lid, err := pathID(c)
	if err != nil {
		return err
	}
	if c.QueryParam("limit") == "0" {
		return a.allListAccounts(ctx, c, lid)
	}
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	page, err := a.st.ListMembers(ctx, viewer(c), lid, p.PageQuery)
	if err != nil {
		return listError(err)
	}
	return answerPage(c, page, mapper.account)
}

// allListAccounts answers every member of list lid, without pages.
func (a *API) allListAccounts(ctx context.Context, c echo.Context, lid int64) error {
	m := mapperOf(c)
	out := []Account{}
	q := store.PageQuery{Limit: store.MaxLimit, Viewer: viewer(c)}
	for range store.MaxListMembers/store.MaxLimit + 1 {
		page, err := a.st.ListMembers(ctx, viewer(c), lid, q)
		if err != nil {
			return listError(err)
		}
		for _, u := range page.Items {
			out = append(out, m.account(u))
		}
		if page.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, out)
}

// changeListAccounts answers POST (on) and DELETE /api/v1/lists/:id/accounts
// with account_ids[]: {}.
func (a *API) changeListAccounts(on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		lid, err := pathID(c)
		if err != nil {
			return err
		}
		ps, err := readParams(c)
		if err != nil {
			return err
		}
		var uids []int64
		for _, s := range ps["account_ids"] {
			uid, err := parseID(s)
			if err != nil {
				return err
			}
			uids = append(uids, uid)
		}
		if len(uids) == 0 {
			return store.Invalid(store.CodeInvalidField, "Validation failed: account_ids is missing")
		}
		change := a.st.RemoveListMembers
		if on {
			change = a.st.AddListMembers
		}
		if err := change(c.Request().Context(), viewer(c), lid, uids); err != nil {
			return listError(err)
		}
		return c.JSON(http.StatusOK, struct{}{})
	}
}

// accountLists answers GET /api/v1/accounts/:id/lists: the caller's lists
// that hold that account.
func (a *API) accountLists(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if _, err := a.userOf(c.Request().Context(), id, viewer(c)); err != nil {
		return err
	}
	ls, err := a.st.ListsWith(c.Request().Context(), viewer(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, listsOf(ls))
}

// listTimeline answers GET /api/v1/timelines/list/:list_id: the posts of
// the list's members, paged as the home timeline.
func (a *API) listTimeline(c echo.Context) error {
	lid, err := pathID(c)
	if err != nil {
		return err
	}
	uid := viewer(c)
	if _, err := a.st.List(c.Request().Context(), uid, lid); err != nil {
		return listError(err)
	}
	return a.timeline(c, func(ctx context.Context, q store.PageQuery) (store.Page[store.Post], error) {
		page, err := a.st.ListTimeline(ctx, uid, lid, q)
		return page, listError(err)
	}, keepAll)
}
