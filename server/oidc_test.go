package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"microblog/server/oidcauth/oidctest"
	"microblog/store"
)

// ssoEnv is a server with OpenID Connect sign-in against a real provider.
type ssoEnv struct {
	ts *testServer
	op *oidctest.Provider
}

const ssoClientID, ssoSecret = "microblog", "microblog-test-secret"

// startSSO starts a provider that knows the server (and another client
// with the same callback) and the server, on an address chosen first so
// that the provider can be told the callback URL.
func startSSO(t *testing.T) ssoEnv {
	addr := "127.0.0.1:" + freeTCPPort(t)
	cb := []string{"http://" + addr + oidcCallbackPath}
	op := oidctest.Start(t, oidctest.Client{ID: ssoClientID, Secret: ssoSecret, RedirectURIs: cb},
		oidctest.Client{ID: "other-app", Secret: "other-secret", RedirectURIs: cb})
	ts := newTestServer(t, "MICROBLOG_ADDR="+addr, "MICROBLOG_OIDC_ISSUER="+op.URL,
		"MICROBLOG_OIDC_CLIENT_ID="+ssoClientID, "MICROBLOG_OIDC_CLIENT_SECRET="+ssoSecret)
	return ssoEnv{ts: ts, op: op}
}

// newBrowser is an HTTP client with a cookie jar that stops at every
// redirect, so that each step can be checked.
func newBrowser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// open sends a GET (or, with a body, a POST) as a browser page of the
// server's origin would.
func (e ssoEnv) open(t *testing.T, b *http.Client, method, u string) *http.Response {
	t.Helper()
	if !strings.Contains(u, "://") {
		u = e.ts.URL + u
	}
	req, _ := http.NewRequest(method, u, nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if method != http.MethodGet {
		req.Header.Set("Origin", e.ts.URL)
	}
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// start opens the login route (query such as "app=mobile") and returns the
// provider's URL it sends the browser to.
func (e ssoEnv) start(t *testing.T, b *http.Client, query string) string {
	t.Helper()
	resp := e.open(t, b, http.MethodGet, oidcLoginPath+"?"+query)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, e.op.URL+"/") {
		t.Fatalf("login: %s to %q, want 302 to the provider", resp.Status, loc)
	}
	return loc
}

// atProvider signs in as u at the provider and returns the callback URL.
func (e ssoEnv) atProvider(t *testing.T, b *http.Client, authURL string, u oidctest.User) string {
	t.Helper()
	back, err := e.op.SignIn(context.Background(), b, authURL, u.Username, u.Password)
	if err != nil {
		t.Fatal(err)
	}
	return back.String()
}

// callback opens the callback URL and returns where it sends the browser
// and whether it set a session cookie.
func (e ssoEnv) callback(t *testing.T, b *http.Client, cb string) (string, bool) {
	t.Helper()
	resp := e.open(t, b, http.MethodGet, cb)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("callback: %s, want 302", resp.Status)
	}
	signedIn := false
	for _, ck := range resp.Cookies() {
		signedIn = signedIn || (ck.Name == cookieName && ck.Value != "")
	}
	return resp.Header.Get("Location"), signedIn
}

// signIn goes the whole way as u and returns where the browser lands.
func (e ssoEnv) signIn(t *testing.T, b *http.Client, query string, u oidctest.User) (string, bool) {
	t.Helper()
	return e.callback(t, b, e.atProvider(t, b, e.start(t, b, query), u))
}

// me is the user b's cookie signs in, or "" when none.
func (e ssoEnv) me(t *testing.T, b *http.Client) store.User {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.ts.URL+"/api/v1/me", nil)
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var u store.User
	if resp.StatusCode == http.StatusOK {
		json.NewDecoder(resp.Body).Decode(&u)
	}
	return u
}

// TestOIDCSignIn signs in through the provider's login page: the first
// time makes an account, the second reaches the same one, and the same
// callback opened again signs no one in.
func TestOIDCSignIn(t *testing.T) {
	parallel(t)
	e := startSSO(t)
	var list providersResponse
	e.ts.getJSON(t, "", "/api/v1/auth/providers", &list)
	if len(list.Providers) != 1 || list.Providers[0] != (provider{ID: "oidc", Name: DefaultOIDCName, Kind: "redirect", LoginURL: oidcLoginPath}) {
		t.Fatalf("providers: %+v, want the OpenID Connect sign-in", list.Providers)
	}
	b := newBrowser()
	cb := e.atProvider(t, b, e.start(t, b, ""), oidctest.Grace)
	to, signedIn := e.callback(t, b, cb)
	if to != "/" || !signedIn {
		t.Fatalf("first sign-in went to %q (session %v), want / with a session", to, signedIn)
	}
	first := e.me(t, b)
	if first.ID == 0 || !strings.HasPrefix(strings.ToLower(first.Username), "grace") {
		t.Fatalf("first sign-in made %+v, want an account named after grace.hopper", first)
	}

	b2 := newBrowser()
	if to, signedIn := e.signIn(t, b2, "", oidctest.Grace); to != "/" || !signedIn {
		t.Fatalf("second sign-in went to %q (session %v)", to, signedIn)
	}
	if again := e.me(t, b2); again.ID != first.ID {
		t.Fatalf("second sign-in reached uid %d, want %d", again.ID, first.ID)
	}

	// Replayed: the same code and state again, from the same browser and
	// from another.
	for _, br := range []*http.Client{b, newBrowser()} {
		if to, signedIn := e.callback(t, br, cb); signedIn || !strings.Contains(to, "sso_error=invalid_state") {
			t.Fatalf("replayed callback went to %q (session %v), want invalid_state and no session", to, signedIn)
		}
	}
}

// TestOIDCRefused checks that forged, cross-browser, expired, tampered or
// denied sign-ins sign no one in.
func TestOIDCRefused(t *testing.T) {
	parallel(t)
	e := startSSO(t)
	refused := func(t *testing.T, b *http.Client, cb, code string) {
		t.Helper()
		to, signedIn := e.callback(t, b, cb)
		if signedIn || to != "/login?sso_error="+code {
			t.Fatalf("went to %q (session %v), want /login?sso_error=%s and no session", to, signedIn, code)
		}
		if u := e.me(t, b); u.ID != 0 {
			t.Fatalf("signed in as %s", u.Username)
		}
	}
	// tamper changes one parameter of the provider's URL.
	tamper := func(authURL, name, value string) string {
		u, _ := url.Parse(authURL)
		q := u.Query()
		q.Set(name, value)
		u.RawQuery = q.Encode()
		return u.String()
	}

	t.Run("forged state", func(t *testing.T) {
		b := newBrowser()
		e.start(t, b, "")
		refused(t, b, oidcCallbackPath+"?state=forged&code=forged", "invalid_state")
	})
	t.Run("no state", func(t *testing.T) {
		refused(t, newBrowser(), oidcCallbackPath+"?code=x", "invalid_state")
	})
	t.Run("another browser", func(t *testing.T) {
		cb := e.atProvider(t, newBrowser(), e.start(t, newBrowser(), ""), oidctest.Ada)
		refused(t, newBrowser(), cb, "invalid_state")
	})
	t.Run("expired state", func(t *testing.T) {
		b := newBrowser()
		authURL := e.start(t, b, "")
		state, _ := url.Parse(authURL)
		key := keysOf(e.ts.rdb()).OIDCState(store.TokenHash(state.Query().Get("state")))
		if ttl := e.ts.rdb().PTTL(context.Background(), key).Val(); ttl < oidcStateTTL-time.Minute || ttl > oidcStateTTL {
			t.Fatalf("the state lives %v, want %v", ttl, oidcStateTTL)
		}
		e.ts.rdb().PExpire(context.Background(), key, time.Millisecond) // as if ten minutes had passed
		time.Sleep(20 * time.Millisecond)
		refused(t, b, e.atProvider(t, b, authURL, oidctest.Ada), "invalid_state")
	})
	t.Run("wrong nonce", func(t *testing.T) {
		b := newBrowser()
		refused(t, b, e.atProvider(t, b, tamper(e.start(t, b, ""), "nonce", "attackers-nonce"), oidctest.Ada), "rejected")
	})
	t.Run("another client's code", func(t *testing.T) {
		b := newBrowser()
		refused(t, b, e.atProvider(t, b, tamper(e.start(t, b, ""), "client_id", "other-app"), oidctest.Ada), "rejected")
	})
	t.Run("provider error", func(t *testing.T) {
		b := newBrowser()
		state, _ := url.Parse(e.start(t, b, ""))
		refused(t, b, oidcCallbackPath+"?error=access_denied&state="+state.Query().Get("state"), "denied")
	})
}

// TestOIDCLink links the provider to a local account from its session,
// after which signing in through the provider reaches that account.
func TestOIDCLink(t *testing.T) {
	parallel(t)
	e := startSSO(t)
	b := newBrowser()
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/api/v1/users", strings.NewReader(`{"username":"linda","password":"linda-password"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := b.Do(req); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %v %v", resp, err)
	}
	linda := e.me(t, b)

	// Another site cannot start the linking.
	req, _ = http.NewRequest(http.MethodGet, e.ts.URL+oidcLoginPath, nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, _ := b.Do(req); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-site link: %s, want 403", resp.Status)
	}

	if to, signedIn := e.signIn(t, b, "", oidctest.Ada); to != "/account?sso_linked=oidc" || signedIn {
		t.Fatalf("linking went to %q (new session %v), want /account?sso_linked=oidc", to, signedIn)
	}
	other := newBrowser()
	if to, _ := e.signIn(t, other, "", oidctest.Ada); to != "/" {
		t.Fatalf("sign-in after linking went to %q", to)
	}
	if u := e.me(t, other); u.ID != linda.ID {
		t.Fatalf("sign-in after linking reached %d (%s), want linda's %d", u.ID, u.Username, linda.ID)
	}

	// Ada's identity is linda's: linking it to another account is refused.
	b3 := newBrowser()
	if to, _ := e.signIn(t, b3, "", oidctest.Grace); to != "/" {
		t.Fatalf("grace's sign-in went to %q", to)
	}
	if to, _ := e.signIn(t, b3, "", oidctest.Ada); to != "/account?sso_error=identity_taken" {
		t.Fatalf("linking a taken identity went to %q", to)
	}
}

// TestOIDCMobileHandover signs in for the mobile app, which takes the
// session's token once, from its own origin only.
func TestOIDCMobileHandover(t *testing.T) {
	parallel(t)
	e := startSSO(t)
	b := newBrowser()
	if to, signedIn := e.signIn(t, b, "app=mobile", oidctest.Ada); to != "/m/#/sso" || !signedIn {
		t.Fatalf("mobile sign-in went to %q (session %v), want /m/#/sso", to, signedIn)
	}
	handover := func(origin string) (int, sessionResponse) {
		req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/api/v1"+oidcHandoverPath, nil)
		req.Header.Set("Origin", origin)
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out sessionResponse
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if status, _ := handover("http://evil.example"); status != http.StatusForbidden {
		t.Fatalf("handover to another origin: %d, want 403", status)
	}
	// The refusal spent the hand-over: sign in again (in a new browser, as
	// this one's session would make it a linking).
	b = newBrowser()
	if to, _ := e.signIn(t, b, "app=mobile", oidctest.Ada); to != "/m/#/sso" {
		t.Fatalf("mobile sign-in went to %q", to)
	}
	status, out := handover(e.ts.URL)
	if status != http.StatusOK || out.Token == "" || out.User.ID == 0 {
		t.Fatalf("handover: %d %+v", status, out)
	}
	if code, _ := e.ts.call(t, http.MethodGet, "/api/v1/me", out.Token, nil); code != http.StatusOK {
		t.Fatalf("the handed-over token: /me %d", code)
	}
	if status, _ := handover(e.ts.URL); status != http.StatusForbidden {
		t.Fatalf("second handover: %d, want 403", status)
	}
}

// TestOIDCProviderDown checks that the server starts while the provider is
// down and answers 503 at login.
func TestOIDCProviderDown(t *testing.T) {
	parallel(t)
	e := startSSO(t)
	e.op.Close()
	if resp := e.open(t, newBrowser(), http.MethodGet, oidcLoginPath); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("login with the provider down: %s, want 503", resp.Status)
	}
}

// TestOIDCConfig checks that a configuration set in part, or with a bad
// value, fails at start naming the variable.
func TestOIDCConfig(t *testing.T) {
	parallel(t)
	full := map[string]string{"MICROBLOG_OIDC_ISSUER": "https://sso.example.edu/realms/campus",
		"MICROBLOG_OIDC_CLIENT_ID": "microblog", "MICROBLOG_OIDC_CLIENT_SECRET": "s"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range full {
			m[a] = b
		}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"MICROBLOG_OIDC_CLIENT_ID": "x"}, "MICROBLOG_OIDC_CLIENT_ID is set but MICROBLOG_OIDC_ISSUER"},
		{with("MICROBLOG_OIDC_CLIENT_SECRET", ""), "MICROBLOG_OIDC_CLIENT_SECRET is not set"},
		{with("MICROBLOG_OIDC_CLIENT_ID", ""), "MICROBLOG_OIDC_CLIENT_ID is not set"},
		{with("MICROBLOG_OIDC_ISSUER", "http://sso.example.edu"), "invalid MICROBLOG_OIDC_ISSUER"},
		{with("MICROBLOG_OIDC_REDIRECT_URL", "https://mb.example.edu/elsewhere"), "invalid MICROBLOG_OIDC_REDIRECT_URL"},
		{with("MICROBLOG_OIDC_NAME", "two\nlines"), "invalid MICROBLOG_OIDC_NAME"},
	} {
		_, err := loadConfig(nil, func(k string) string { return tc.env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.env, err, tc.want)
		}
	}
	cfg, err := loadConfig(nil, func(k string) string { return full[k] }, io.Discard)
	if err != nil || cfg.OIDC.Name != DefaultOIDCName {
		t.Fatalf("full configuration: %v, name %q", err, cfg.OIDC.Name)
	}
}
