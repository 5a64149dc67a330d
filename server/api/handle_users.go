package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleMe returns the caller's own User.
func handleMe(st store.Service, ops operators) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		u, err := st.User(ctx, viewer(c), viewer(c))
		if err != nil {
			return err
		}
		if u.Admin, err = ops.is(ctx, u.ID); err != nil {
			return err
		}
		email, err := st.Email(ctx, u.ID)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, me{u, email})
	}
}

// handleUpdateMe changes the caller's bio, display name or fields
// (profileIn), turns its protection on or off, sets who may write to it
// (messages_from), or its email address (mailing the address a link that
// confirms it: handle_mail.go), or any of them at once.
func handleUpdateMe(st store.Service, ops operators, mailOn bool, emailLimit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Bio       *string `json:"bio"`
			Protected *bool   `json:"protected"`
			DMsFrom   *string `json:"messages_from"`
			Email     *string `json:"email"`
			Lang      string  `json:"lang"` // of the email's confirmation mail
			profileIn
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Bio == nil && in.Protected == nil && in.DMsFrom == nil && in.Email == nil && in.profileIn.empty() {
			return store.Invalid(store.CodeInvalidBio, "bio is missing (send bio, display_name, fields, protected, messages_from, email, or several)")
		}
		if in.DMsFrom != nil {
			if err := store.CheckDMsFrom(*in.DMsFrom); err != nil {
				return err
			}
		}
		if err := in.profileIn.check(); err != nil {
			return err
		}
		// Last of the checks: it counts against the address's mail limit.
		email := emailChange{address: in.Email, lang: in.Lang}
		if err := email.check(c, st, mailOn, emailLimit); err != nil {
			return err
		}
		ctx := c.Request().Context()
		if in.Bio != nil {
			if err := store.CheckBio(*in.Bio); err != nil {
				return err
			}
			if _, err := st.SetBio(ctx, viewer(c), *in.Bio); err != nil {
				return err
			}
		}
		if err := in.profileIn.save(c, st); err != nil {
			return err
		}
		if in.Protected != nil {
			if _, err := st.SetProtected(ctx, viewer(c), *in.Protected); err != nil {
				return err
			}
		}
		if in.DMsFrom != nil {
			if err := st.SetDMsFrom(ctx, viewer(c), *in.DMsFrom); err != nil {
				return err
			}
		}
		if err := email.apply(c, st); err != nil {
			return err
		}
		return handleMe(st, ops)(c)
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
// the path; following a protected account asks it (202 {"requested": true}). Follows and unfollows count together against the caller's limit.
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
		if !follow {
			if err := st.Unfollow(ctx, viewer(c), star); err != nil {
				return err
			}
			return noContent(c)
		}
		requested, err := st.FollowOrAsk(ctx, viewer(c), star)
		if err != nil {
			return err
		}
		if requested {
			return c.JSON(http.StatusAccepted, map[string]bool{"requested": true})
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
