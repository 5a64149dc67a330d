package api

import (
	"github.com/labstack/echo/v4"

	"microblog/store"
)

// handleChangePassword replaces the caller's password: {"old_password",
// "new_password"}, 204. A wrong old password is 401 invalid_credentials and
// counts against the account like a failed login (limit per address, guard
// per account). Every other session of the user ends; the caller's own
// session, the one that proved the old password, stays.
func handleChangePassword(st store.Service, limit, guard store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Old *string `json:"old_password"`
			New *string `json:"new_password"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Old == nil {
			return store.Invalid(store.CodeInvalidField, "old_password is missing")
		}
		if in.New == nil {
			return store.Invalid(store.CodeInvalidPassword, "new_password is missing")
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "login", c.RealIP(), limit); err != nil {
			return err
		}
		tokenHash, _ := c.Get(ctxTokenHash).(string)
		if err := st.ChangePassword(ctx, viewer(c), tokenHash, *in.Old, *in.New, attempt(c, guard)); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleDeleteMe deletes the caller's account once its password is proved:
// {"password"}, 204. See redisdb's DeleteAccount for what goes.
func handleDeleteMe(st store.Service, limit, guard store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Password *string `json:"password"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Password == nil {
			return store.Invalid(store.CodeInvalidField, "password is missing")
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "login", c.RealIP(), limit); err != nil {
			return err
		}
		if err := st.DeleteAccount(ctx, viewer(c), *in.Password, attempt(c, guard)); err != nil {
			return err
		}
		clearSessionCookie(c)
		return noContent(c)
	}
}
