package main

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleMe returns the caller's own User.
func handleMe(st store.Accounts) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, err := st.User(c.Request().Context(), viewer(c), viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
}

// handleUpdateMe changes the caller's bio.
func handleUpdateMe(st store.Accounts) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Bio *string `json:"bio"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Bio == nil {
			return store.Invalid(store.CodeInvalidBio, "bio is missing")
		}
		u, err := st.SetBio(c.Request().Context(), viewer(c), *in.Bio)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
}

// handleUser returns the User named in the path.
func handleUser(st store.Accounts) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, err := st.UserByName(c.Request().Context(), c.Param("username"), viewer(c))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
}

// handleFollow makes the caller follow (follow true) or unfollow the user in
// the path. Follows and unfollows count together against the caller's limit.
func handleFollow(st store.Service, follow bool, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "follow", strconv.FormatInt(viewer(c), 10), limit); err != nil {
			return err
		}
		star, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		if follow {
			err = st.Follow(ctx, viewer(c), star)
		} else {
			err = st.Unfollow(ctx, viewer(c), star)
		}
		if err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleRelations lists the followers (fans true) or the followed users of the user in the path.
func handleRelations(st store.Service, fans bool) echo.HandlerFunc {
	list := st.Following
	if fans {
		list = st.Followers
	}
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.User], error) {
		ctx := c.Request().Context()
		uid, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return store.Page[store.User]{}, err
		}
		return list(ctx, uid, viewer(c), q)
	})
}

// handleUserPosts lists the posts of the user in the path, newest first.
func handleUserPosts(st store.Service) echo.HandlerFunc {
	return pageHandler(func(c echo.Context, q store.PageQuery) (store.Page[store.Post], error) {
		ctx := c.Request().Context()
		uid, err := st.UIDByName(ctx, c.Param("username"))
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		return st.UserPosts(ctx, uid, q)
	})
}
