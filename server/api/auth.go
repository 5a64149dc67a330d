package api

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// The session cookie. Over plain HTTP it is the contract's auth; over HTTPS
// (TLS, or X-Forwarded-Proto from a trusted proxy) it is __Host-auth, which a
// browser keeps only when it is Secure, for Path=/ and without Domain, so
// that neither a sibling subdomain nor a plain-HTTP page can set or shadow
// it. Over HTTPS only __Host-auth is read: a plain auth cookie there may have
// been planted by a sibling subdomain (cookie tossing).
const (
	CookieName     = "auth"
	HostCookieName = "__Host-auth"
)

// Context keys of the authenticated caller.
const (
	ctxUID       = "uid"
	ctxTokenHash = "token_hash"
)

// authToken returns the session token of a request: the Authorization bearer
// token when there is one, else the session cookie.
func authToken(c echo.Context) (token string, fromCookie bool) {
	if h := c.Request().Header.Get("Authorization"); h != "" {
		t, _ := BearerToken(h)
		return t, false
	}
	if t, ok := sessionCookie(c); ok {
		return t, true
	}
	return "", false
}

// BearerToken reads an Authorization header of the Bearer scheme, whose name
// is case-insensitive (RFC 7235): the session token here, the metrics
// token for the server.
func BearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// sessionCookie is the token in the request's session cookie, if any: the
// one its scheme sets.
func sessionCookie(c echo.Context) (string, bool) {
	name := CookieName
	if OverHTTPS(c) {
		name = HostCookieName
	}
	if ck, err := c.Request().Cookie(name); err == nil && ck.Value != "" {
		return ck.Value, true
	}
	return "", false
}

// viewer is the uid of the logged-in caller, 0 when anonymous.
func viewer(c echo.Context) int64 {
	uid, _ := c.Get(ctxUID).(int64)
	return uid
}

// authenticate resolves the caller's token, if any. With required set, an
// anonymous caller gets 401; otherwise it goes on as anonymous. A token that
// was given but is not valid is always 401, so clients learn to log in again.
func authenticate(st store.Accounts, required bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			token, fromCookie := authToken(c)
			hasAuthHeader := c.Request().Header.Get("Authorization") != ""
			if token == "" && !hasAuthHeader {
				if required {
					return store.ErrNotLoggedIn
				}
				return next(c)
			}
			uid, hash, err := st.Authenticate(c.Request().Context(), token)
			if err != nil {
				if fromCookie && !required && !errors.Is(err, store.ErrUnavailable) {
					// A stale cookie on a public page: forget it and read on as anonymous.
					clearSessionCookie(c)
					return next(c)
				}
				return err
			}
			c.Set(ctxUID, uid)
			c.Set(ctxTokenHash, hash)
			return next(c)
		}
	}
}

// SameOriginWrites refuses writes authenticated by the cookie that come from
// another origin (cross-site request forgery), besides those of allowed.
// Bearer tokens are never sent by a browser on its own, so they need no
// such check. The server runs it before every route, with the other
// middleware both APIs share.
func SameOriginWrites(allowed []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			if _, fromCookie := authToken(c); fromCookie && !originAllowed(c, allowed) {
				return store.NewError(store.ErrForbidden, store.CodeCrossOrigin, "cookie-authenticated writes must come from this site")
			}
			return next(c)
		}
	}
}

// originAllowed tells whether a browser request comes from the server's own
// origin (its scheme, host and port: http://host is not https://host) or
// from one in the allow-list. Requests without an Origin header (not from a
// browser script) are allowed.
func originAllowed(c echo.Context, allowed []string) bool {
	r := c.Request()
	origin := r.Header.Get("Origin")
	if origin == "" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := "http"
	if OverHTTPS(c) {
		scheme = "https"
	}
	if strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(withoutPort(u.Host, scheme), withoutPort(r.Host, scheme)) {
		return true
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, strings.TrimRight(origin, "/")) {
			return true
		}
	}
	return false
}

// withoutPort is host without the scheme's default port, which browsers
// leave out of an Origin and clients may put in a Host.
func withoutPort(host, scheme string) string {
	if scheme == "https" {
		return strings.TrimSuffix(host, ":443")
	}
	return strings.TrimSuffix(host, ":80")
}

// setSessionCookie gives the browser the session token as an HttpOnly
// cookie: __Host-auth over HTTPS, auth over plain HTTP.
func setSessionCookie(c echo.Context, token string, ttl time.Duration) {
	ck := &http.Cookie{Name: CookieName, Value: token, Path: "/",
		MaxAge: int(ttl.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if OverHTTPS(c) {
		ck.Name, ck.Secure = HostCookieName, true
	}
	c.SetCookie(ck)
}

// clearSessionCookie removes both session cookies, whichever the browser has.
func clearSessionCookie(c echo.Context) {
	for _, name := range []string{CookieName, HostCookieName} {
		c.SetCookie(&http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
			SameSite: http.SameSiteLaxMode, Secure: name == HostCookieName || OverHTTPS(c)})
	}
}

// OverHTTPS tells whether the browser reached us over TLS, directly or
// through a trusted proxy (the scheme the server's proxy settings give the
// request).
func OverHTTPS(c echo.Context) bool {
	s := c.Scheme()
	return s == "https" || s == "wss"
}
