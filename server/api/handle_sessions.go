package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/server/ldapauth"
	"microblog/store"
)

// credentials is the body of sign-up and login.
type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
	// Provider is who checks the password at login: "" (or "local") this
	// server, "ldap" the directory.
	Provider string `json:"provider"`
}

// errSignupClosed answers sign-ups while MICROBLOG_LOCAL_SIGNUP is false.
var errSignupClosed = store.NewError(store.ErrForbidden, store.CodeSignupClosed,
	"this server makes no new local accounts; sign in with one of the providers of GET /api/v1/auth/providers")

// Session answers sign-up and login.
type Session struct {
	User  store.User `json:"user"`
	Token string     `json:"token"`
}

// handleRegister creates an account and logs it in: 201 {"user","token"};
// 403 signup_closed when local sign-up is off.
func handleRegister(st store.Service, open bool, limit store.Limit, ttl time.Duration) echo.HandlerFunc {
	if !open {
		return func(echo.Context) error { return errSignupClosed }
	}
	return openSession(st, "signup", limit, ttl, http.StatusCreated, func(c echo.Context, in credentials) (store.User, string, error) {
		return st.Register(c.Request().Context(), in.Username, in.Password)
	})
}

// handleLogin opens a new session: 200 {"user","token"}, the password
// checked by this server or, with "provider": "ldap", by the directory (dir,
// nil when LDAP is off). Besides the client address's limit, failed
// passwords count against the account (guard): see store.Attempt.
func handleLogin(st store.Service, dir *ldapauth.Directory, limit, guard store.Limit, ttl time.Duration) echo.HandlerFunc {
	return openSession(st, "login", limit, ttl, http.StatusOK, func(c echo.Context, in credentials) (store.User, string, error) {
		ctx := c.Request().Context()
		switch in.Provider {
		case "", "local":
			return st.Login(ctx, in.Username, in.Password, attempt(c, guard))
		case "ldap":
			if dir == nil {
				return store.User{}, "", store.Invalid(store.CodeInvalidField, "this server signs in with no LDAP directory (see GET /api/v1/auth/providers)")
			}
			return signInLDAP(c, st, dir, in, guard)
		}
		return store.User{}, "", store.Invalid(store.CodeInvalidField, `provider must be "ldap" or left out`)
	})
}

// signInLDAP binds to the directory as the user, under the login guard of
// that name, and signs in the account linked to the directory entry (made
// on first login). A wrong password never falls back to a local one.
func signInLDAP(c echo.Context, st store.Service, dir *ldapauth.Directory, in credentials, guard store.Limit) (store.User, string, error) {
	ctx := c.Request().Context()
	var subject, name string
	err := st.GuardExternal(ctx, ldapProvider, in.Username, attempt(c, guard), func() error {
		var err error
		subject, name, err = dir.Authenticate(ctx, in.Username, in.Password)
		return err
	})
	if err != nil {
		return store.User{}, "", err
	}
	return st.SignInExternal(ctx, ldapProvider, subject, name)
}

// attempt is where a request proving a password comes from, and its guard.
func attempt(c echo.Context, guard store.Limit) store.Attempt {
	return store.Attempt{Client: c.RealIP(), Guard: guard}
}

// openSession reads {"username","password"}, counts the request against the
// client address's limit in bucket, lets open make the session, and answers
// it with the session cookie set.
func openSession(st store.Limiter, bucket string, limit store.Limit, ttl time.Duration, status int,
	open func(c echo.Context, in credentials) (store.User, string, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in credentials
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, bucket, c.RealIP(), limit); err != nil {
			return err
		}
		u, token, err := open(c, in)
		if err != nil {
			return err
		}
		setSessionCookie(c, token, ttl)
		return c.JSON(status, Session{User: u, Token: token})
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
