package mastodon

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Lists of accounts and of the caller's kept statuses. The store pages
// them by its own opaque cursors (follow, block or bookmark time), which
// the Link header's next page carries in max_id; they have no newer page.

// userList is a store list of the users around uid, as viewer sees them.
type userList func(ctx context.Context, uid, viewer int64, q store.PageQuery) (store.Page[store.User], error)

// myList is a store list of the caller's.
type myList[T any] func(ctx context.Context, uid int64, q store.PageQuery) (store.Page[T], error)

// accountUsers answers a list of the users around the account in the
// path (its followers or whom it follows).
func (a *API) accountUsers(list userList) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		p, err := pageOf(c)
		if err != nil {
			return err
		}
		page, err := list(c.Request().Context(), id, viewer(c), p.PageQuery)
		if err != nil {
			return recordNotFound(err)
		}
		return answerUsers(c, page)
	}
}

// myUsers answers a list of users of the caller's (follow requests,
// blocks, mutes).
func (a *API) myUsers(list myList[store.User]) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, err := pageOf(c)
		if err != nil {
			return err
		}
		page, err := list(c.Request().Context(), viewer(c), p.PageQuery)
		if err != nil {
			return err
		}
		return answerUsers(c, page)
	}
}

// myStatuses answers a list of statuses the caller kept (bookmarks,
// favourites).
func (a *API) myStatuses(list myList[store.Post]) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, err := pageOf(c)
		if err != nil {
			return err
		}
		page, err := list(c.Request().Context(), viewer(c), p.PageQuery)
		if err != nil {
			return err
		}
		m := mapperOf(c)
		out := make([]Status, 0, len(page.Items))
		for _, post := range page.Items {
			out = append(out, m.status(post))
		}
		links(c, deref(page.NextCursor), "")
		return c.JSON(http.StatusOK, out)
	}
}

// answerUsers answers a page of users as accounts, with its next link.
func answerUsers(c echo.Context, page store.Page[store.User]) error {
	m := mapperOf(c)
	out := make([]Account, 0, len(page.Items))
	for _, u := range page.Items {
		out = append(out, m.account(u))
	}
	links(c, deref(page.NextCursor), "")
	return c.JSON(http.StatusOK, out)
}

// deref is a store cursor, "" for none.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
