package main

import (
	"context"
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
	return openSession(st, "signup", limit, ttl, http.StatusCreated, st.Register)
}

// handleLogin opens a new session: 200 {"user","token"}.
func handleLogin(st store.Service, limit store.Limit, ttl time.Duration) echo.HandlerFunc {
	return openSession(st, "login", limit, ttl, http.StatusOK, st.Login)
}

// openSession reads {"username","password"}, counts the request against the
// client address's limit in bucket, lets open make the session, and answers
// it with the session cookie set.
func openSession(st store.Limiter, bucket string, limit store.Limit, ttl time.Duration, status int,
	open func(ctx context.Context, username, password string) (store.User, string, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in credentials
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, bucket, c.RealIP(), limit); err != nil {
			return err
		}
		u, token, err := open(ctx, in.Username, in.Password)
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
