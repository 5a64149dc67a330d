package main

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// credentials is the body of sign-up and login.
type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// sessionResponse answers sign-up and login.
type sessionResponse struct {
	User  store.User `json:"user"`
	Token string     `json:"token"`
}

// handleRegister creates an account and logs it in: 201 {"user","token"}.
func handleRegister(st store.Service, limit store.Limit, ttl time.Duration) echo.HandlerFunc {
	return openSession(st, "signup", limit, ttl, http.StatusCreated, func(c echo.Context, username, password string) (store.User, string, error) {
		return st.Register(c.Request().Context(), username, password)
	})
}

// handleLogin opens a new session: 200 {"user","token"}. Besides the client
// address's limit, failed passwords count against the account (guard): see
// store.Attempt.
func handleLogin(st store.Service, limit, guard store.Limit, ttl time.Duration) echo.HandlerFunc {
	return openSession(st, "login", limit, ttl, http.StatusOK, func(c echo.Context, username, password string) (store.User, string, error) {
		return st.Login(c.Request().Context(), username, password, attempt(c, guard))
	})
}

// attempt is where a request proving a password comes from, and its guard.
func attempt(c echo.Context, guard store.Limit) store.Attempt {
	return store.Attempt{Client: c.RealIP(), Guard: guard}
}

// openSession reads {"username","password"}, counts the request against the
// client address's limit in bucket, lets open make the session, and answers
// it with the session cookie set.
func openSession(st store.Limiter, bucket string, limit store.Limit, ttl time.Duration, status int,
	open func(c echo.Context, username, password string) (store.User, string, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in credentials
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, bucket, c.RealIP(), limit); err != nil {
			return err
		}
		u, token, err := open(c, in.Username, in.Password)
		if err != nil {
			return err
		}
		setSessionCookie(c, token, ttl)
		return c.JSON(status, sessionResponse{User: u, Token: token})
	}
}

// handleLogout ends the caller's session at once, everywhere.
func handleLogout(st store.Accounts) echo.HandlerFunc {
	return func(c echo.Context) error {
		tokenHash, _ := c.Get(ctxTokenHash).(string)
		if err := st.Logout(c.Request().Context(), viewer(c), tokenHash); err != nil {
			return err
		}
		clearSessionCookie(c)
		return noContent(c)
	}
}

// handleLogoutAll ends every session of the caller, this one included, at
// once, everywhere (their live sockets are closed with 4001).
func handleLogoutAll(st store.Accounts) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := st.LogoutAll(c.Request().Context(), viewer(c)); err != nil {
			return err
		}
		clearSessionCookie(c)
		return noContent(c)
	}
}
