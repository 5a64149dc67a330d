package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Lists (关注分组) of the caller's, under /me/lists: they are private, so
// their paths are the caller's own and collide with none of the Mastodon
// API's (/api/v1/lists).

// listBody is the body of POST /me/lists and PATCH /me/lists/:id: a new
// list's title, replies policy and exclusive flag, or the ones that change.
type listBody struct {
	Title         *string `json:"title"`
	RepliesPolicy *string `json:"replies_policy"`
	Exclusive     *bool   `json:"exclusive"`
}

// listParam reads a list id from the path; a malformed one is not found.
func listParam(c echo.Context) (int64, error) {
	n, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, store.ErrListNotFound
	}
	return n, nil
}

// handleLists answers the caller's lists, oldest first: {"items": [List]}.
func handleLists(st store.Lists) echo.HandlerFunc {
	return func(c echo.Context) error {
		ls, err := st.Lists(c.Request().Context(), viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, listItems(ls))
	}
}

// listItems is ls as a list answer, [] when empty.
func listItems(ls []store.List) any {
	if ls == nil {
		ls = []store.List{}
	}
	return struct {
		Items []store.List `json:"items"`
	}{ls}
}

// handleCreateList makes a list of the caller's: 201 and the List.
func handleCreateList(st store.Lists) echo.HandlerFunc {
	return func(c echo.Context) error {
		var b listBody
		if err := bindJSON(c, &b); err != nil {
			return err
		}
		if b.Title == nil {
			return store.Invalid(store.CodeInvalidField, "title is required")
		}
		nl := store.NewList{Title: *b.Title}
		if b.RepliesPolicy != nil {
			nl.RepliesPolicy = *b.RepliesPolicy
			if nl.RepliesPolicy == "" {
				return store.CheckRepliesPolicy("")
			}
		}
		if b.Exclusive != nil {
			nl.Exclusive = *b.Exclusive
		}
		l, err := st.CreateList(c.Request().Context(), viewer(c), nl)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, l)
	}
}

// handleList answers one of the caller's lists.
func handleList(st store.Lists) echo.HandlerFunc {
	return func(c echo.Context) error {
		lid, err := listParam(c)
		if err != nil {
			return err
		}
		l, err := st.List(c.Request().Context(), viewer(c), lid)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, l)
	}
}

// handleUpdateList changes the fields the body holds of one of the
// caller's lists, and answers the List.
func handleUpdateList(st store.Lists) echo.HandlerFunc {
	return func(c echo.Context) error {
		lid, err := listParam(c)
		if err != nil {
			return err
		}
		var b listBody
		if err := bindJSON(c, &b); err != nil {
			return err
		}
		l, err := st.UpdateList(c.Request().Context(), viewer(c), lid,
			store.ListChange{Title: b.Title, RepliesPolicy: b.RepliesPolicy, Exclusive: b.Exclusive})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, l)
	}
}

// handleDeleteList removes one of the caller's lists: 204.
func handleDeleteList(st store.Lists) echo.HandlerFunc {
	return func(c echo.Context) error {
		lid, err := listParam(c)
		if err != nil {
			return err
		}
		if err := st.DeleteList(c.Request().Context(), viewer(c), lid); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleListMembers is a page of a list's members, newest added first.
func handleListMembers(st store.Lists) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.User], error) {
		lid, err := listParam(c)
		if err != nil {
			return store.Page[store.User]{}, err
		}
		return st.ListMembers(c.Request().Context(), viewer(c), lid, q)
	})
}

// handleListMember adds (on) or removes the user in the path to or from
// one of the caller's lists: 204.
func handleListMember(st store.Service, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		lid, err := listParam(c)
		if err != nil {
			return err
		}
		uid, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		change := st.RemoveListMembers
		if on {
			change = st.AddListMembers
		}
		if err := change(ctx, viewer(c), lid, []int64{uid}); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleListPosts is a page of a list's timeline, newest first.
func handleListPosts(st store.Lists) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		lid, err := listParam(c)
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		return st.ListTimeline(c.Request().Context(), viewer(c), lid, q)
	})
}

// handleListsWith answers those of the caller's lists that hold the user
// in the path: {"items": [List]}.
func handleListsWith(st store.Service) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		uid, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		ls, err := st.ListsWith(ctx, viewer(c), uid)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, listItems(ls))
	}
}
