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
func handleRegister(st *store.Store, limit store.Limit, ttl time.Duration) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in credentials
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "signup", c.RealIP(), limit); err != nil {
			return err
		}
		u, token, err := st.Register(ctx, in.Username, in.Password)
		if err != nil {
			return err
		}
		setSessionCookie(c, token, ttl)
		return c.JSON(http.StatusCreated, sessionResponse{User: u, Token: token})
	}
}

// handleLogin opens a new session: 200 {"user","token"}.
func handleLogin(st *store.Store, limit store.Limit, ttl time.Duration) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in credentials
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "login", c.RealIP(), limit); err != nil {
			return err
		}
		u, token, err := st.Login(ctx, in.Username, in.Password)
		if err != nil {
			return err
		}
		setSessionCookie(c, token, ttl)
		return c.JSON(http.StatusOK, sessionResponse{User: u, Token: token})
	}
}

// handleLogout ends the caller's session at once, everywhere.
func handleLogout(st *store.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, _ := authToken(c)
		if err := st.Logout(c.Request().Context(), token); err != nil {
			return err
		}
		clearSessionCookie(c)
		return noContent(c)
	}
}
