package api

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/server/oidcauth"
	"microblog/store"
)

// The OpenID Connect sign-in's routes: the login and the callback outside
// /api (the browser navigates to them), the mobile app's handover under
// /api/v1.
const (
	OIDCLoginPath    = "/auth/oidc/login"
	OIDCCallbackPath = "/auth/oidc/callback"
	OIDCHandoverPath = "/auth/oidc/handover"
)

// OIDCStateTTL is how long a sign-in may take at the provider.
const OIDCStateTTL = 10 * time.Minute

// What the sign-in keeps.
const (
	// oidcProvider is the provider name of the identities the sign-in links.
	oidcProvider = "oidc"
	// oidcBindCookie holds a random value whose hash the state keeps, so that
	// only the browser that started a sign-in can finish it.
	oidcBindCookie = "oidc_bind"
	// oidcHandoverCookie marks a browser that has just signed in for the
	// mobile app, which may then take its session token once.
	oidcHandoverCookie = "oidc_handover"
	oidcHandoverTTL    = 2 * time.Minute
)

// oidcRecord is what a sign-in started with, kept by the store under its
// state until the callback takes it.
type oidcRecord struct {
	Verifier    string `json:"v"`           // PKCE
	Nonce       string `json:"n"`           // the ID token must carry it
	BindHash    string `json:"b"`           // hash of the browser's oidc_bind cookie
	RedirectURL string `json:"r"`           // the callback URL the provider was given
	LinkUID     int64  `json:"u,omitempty"` // a signed-in user linking the provider
	Mobile      bool   `json:"m,omitempty"` // started from the mobile app
}

// The front-end pages a callback sends the browser back to.
const (
	desktopLoginPage    = "/login"
	desktopSettingsPage = "/account"
	mobileApp           = "/m/"
)

// back is where the browser goes once the sign-in is over, the query
// (sso_error or sso_linked) added; only these fixed local pages, never a
// URL from the request, so there is no open redirect.
func (r oidcRecord) back(q url.Values) string {
	switch {
	case r.Mobile && r.LinkUID != 0:
		return mobileApp + "?" + q.Encode() + "#/settings"
	case r.Mobile:
		return mobileApp + "?" + q.Encode() + "#/login"
	case r.LinkUID != 0:
		return desktopSettingsPage + "?" + q.Encode()
	}
	return desktopLoginPage + "?" + q.Encode()
}

// handleOIDCLogin starts a sign-in (or, sent with a session, the linking of
// the provider to that user): it keeps a new state, nonce and PKCE
// verifier in the store, binds them to this browser with a cookie, and
// sends the browser to the provider. ?app=mobile brings it back to the
// mobile app. 503 while the provider cannot be reached.
func handleOIDCLogin(st store.Service, o OIDC, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "login", c.RealIP(), limit); err != nil {
			return err
		}
		rec := oidcRecord{LinkUID: viewer(c), Mobile: c.QueryParam("app") == "mobile"}
		if rec.LinkUID != 0 && !sameOriginNavigation(c) {
			// Another site may not make a signed-in user link whatever
			// account their browser has at the provider.
			return store.NewError(store.ErrForbidden, store.CodeCrossOrigin, "linking must start from this site's Settings page")
		}
		rec.RedirectURL = o.RedirectURL
		if rec.RedirectURL == "" {
			if !PlainHost(c.Request().Host) {
				return store.Invalid(store.CodeBadRequest, "bad Host header")
			}
			rec.RedirectURL = schemeOf(c) + "://" + c.Request().Host + OIDCCallbackPath
		}
		start, err := o.Client.Begin(ctx, rec.RedirectURL)
		if err != nil {
			return providerError(err)
		}
		rec.Verifier, rec.Nonce = start.Verifier, start.Nonce
		bind := oidcauth.RandomString()
		rec.BindHash = store.TokenHash(bind)
		data, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("oidc login: encode the state: %w", err)
		}
		if err := st.PutOIDCState(ctx, start.State, data, OIDCStateTTL); err != nil {
			return err
		}
		setOIDCCookie(c, oidcBindCookie, bind, "/", int(OIDCStateTTL.Seconds()), http.SameSiteLaxMode)
		return c.Redirect(http.StatusFound, start.URL)
	}
}

// handleOIDCCallback finishes a sign-in: the state must be one this
// browser started and not used yet, the code must trade for an ID token
// that passes every check. Then it links the identity (link flow) or signs
// in as a password login does, and sends the browser back to the front
// end it came from; any failure signs no one in and comes back with
// ?sso_error=<code>.
func handleOIDCCallback(st store.Service, rp *oidcauth.Client, limit store.Limit, ttl time.Duration, logger *slog.Logger) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "login", c.RealIP(), limit); err != nil {
			return err
		}
		bind, _ := oidcCookie(c, oidcBindCookie)
		setOIDCCookie(c, oidcBindCookie, "", "/", -1, http.SameSiteLaxMode)
		var rec oidcRecord
		fail := func(code string, err error) error {
			logger.Info("oidc sign-in refused", "code", code, "err", err, "ip", c.RealIP())
			return c.Redirect(http.StatusFound, rec.back(url.Values{"sso_error": {code}}))
		}
		q := c.QueryParams()
		state := q.Get("state")
		if state == "" {
			return fail("invalid_state", errors.New("no state"))
		}
		data, err := st.TakeOIDCState(ctx, state)
		if errors.Is(err, store.ErrNotFound) {
			return fail("invalid_state", errors.New("unknown, used or expired state"))
		} else if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			return fmt.Errorf("oidc callback: decode the state: %w", err)
		}
		if bind == "" || subtle.ConstantTimeCompare([]byte(store.TokenHash(bind)), []byte(rec.BindHash)) != 1 {
			return fail("invalid_state", errors.New("the state was started by another browser"))
		}
		if e := q.Get("error"); e != "" {
			return fail("denied", fmt.Errorf("the provider answered %s", e))
		}
		id, err := rp.Exchange(ctx, q.Get("code"), rec.RedirectURL, rec.Verifier, rec.Nonce)
		if errors.Is(err, oidcauth.ErrUnavailable) {
			return fail("unavailable", err)
		} else if err != nil {
			return fail("rejected", err)
		}
		if rec.LinkUID != 0 {
			if viewer(c) != rec.LinkUID {
				return fail("session_changed", errors.New("the session that started the link is gone"))
			}
			if err := st.LinkExternal(ctx, rec.LinkUID, oidcProvider, id.Subject); err != nil {
				return fail(ssoErrorCode(err), err)
			}
			return c.Redirect(http.StatusFound, rec.back(url.Values{"sso_linked": {oidcProvider}}))
		}
		_, token, err := st.SignInExternal(ctx, oidcProvider, id.Subject, id.PreferredName)
		if err != nil {
			return fail(ssoErrorCode(err), err)
		}
		setSessionCookie(c, token, ttl)
		if rec.Mobile {
			setOIDCCookie(c, oidcHandoverCookie, store.TokenHash(token), "/api/v1"+OIDCHandoverPath, int(oidcHandoverTTL.Seconds()), http.SameSiteStrictMode)
			return c.Redirect(http.StatusFound, mobileApp+"#/sso")
		}
		return c.Redirect(http.StatusFound, "/")
	}
}

// handleOIDCHandover gives the mobile app, which sends a bearer token and
// no cookie, the session a sign-in just opened in this browser: once,
// within oidcHandoverTTL, and only to a page of this very origin.
// 200 {"user","token"}.
func handleOIDCHandover(st store.Accounts) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, fromCookie := authToken(c)
		mark, _ := oidcCookie(c, oidcHandoverCookie)
		setOIDCCookie(c, oidcHandoverCookie, "", "/api/v1"+OIDCHandoverPath, -1, http.SameSiteStrictMode)
		if !fromCookie || !originAllowed(c, nil) || mark == "" ||
			subtle.ConstantTimeCompare([]byte(mark), []byte(store.TokenHash(token))) != 1 {
			return store.NewError(store.ErrForbidden, store.CodeForbidden, "no sign-in to hand over")
		}
		uid := viewer(c)
		u, err := st.User(c.Request().Context(), uid, uid)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, Session{User: u, Token: token})
	}
}

// providerError is the answer to a login the provider keeps from starting.
func providerError(err error) error {
	if errors.Is(err, oidcauth.ErrUnavailable) {
		return fmt.Errorf("%w: %w", store.NewError(store.ErrUnavailable, store.CodeUnavailable, "the sign-in service cannot be reached; try again later"), err)
	}
	return err
}

// ssoErrorCode is the code of a store error, for ?sso_error.
func ssoErrorCode(err error) string {
	var se *store.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	if errors.Is(err, store.ErrUnavailable) {
		return string(store.CodeUnavailable)
	}
	return string(store.CodeInternal)
}

// sameOriginNavigation tells whether a browser navigation was started by a
// page of this origin or by the user (address bar, bookmark). Browsers
// without Fetch Metadata send no Sec-Fetch-Site and are let through.
func sameOriginNavigation(c echo.Context) bool {
	switch c.Request().Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

func schemeOf(c echo.Context) string {
	if OverHTTPS(c) {
		return "https"
	}
	return "http"
}

// oidcCookieName is name over plain HTTP, __Host-name over HTTPS, as the
// session cookie: a sibling subdomain cannot plant it.
func oidcCookieName(c echo.Context, name string) string {
	if OverHTTPS(c) {
		return "__Host-" + name
	}
	return name
}

func oidcCookie(c echo.Context, name string) (string, bool) {
	ck, err := c.Request().Cookie(oidcCookieName(c, name))
	if err != nil || ck.Value == "" {
		return "", false
	}
	return ck.Value, true
}

// setOIDCCookie sets an HttpOnly cookie of the sign-in for maxAge seconds
// (-1: delete it). A __Host- cookie must have Path=/, so over HTTPS the path
// is always /.
func setOIDCCookie(c echo.Context, name, value, path string, maxAge int, sameSite http.SameSite) {
	ck := &http.Cookie{Name: oidcCookieName(c, name), Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, SameSite: sameSite, Secure: OverHTTPS(c)}
	if ck.Secure {
		ck.Path = "/"
	}
	c.SetCookie(ck)
}
