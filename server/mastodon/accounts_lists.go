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
		return answerPage(c, page, mapper.account)
	}
}

// mine answers a list of the caller's: users (follow requests, blocks,
// mutes) or statuses (bookmarks, favourites), each mapped by one.
func mine[T, E any](list myList[T], one func(mapper, T) E) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, err := pageOf(c)
		if err != nil {
			return err
		}
		page, err := list(c.Request().Context(), viewer(c), p.PageQuery)
		if err != nil {
			return err
		}
		return answerPage(c, page, one)
	}
}

// answerPage answers a store page as entities (one maps each), with its
// next link.
func answerPage[T, E any](c echo.Context, page store.Page[T], one func(mapper, T) E) error {
	m := mapperOf(c)
	out := make([]E, 0, len(page.Items))
	for _, it := range page.Items {
		out = append(out, one(m, it))
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
