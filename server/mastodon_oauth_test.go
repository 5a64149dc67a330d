package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"microblog/server/mastodon"
	"microblog/store"
	"microblog/store/storetest"
)

// verifyApp calls GET /api/v1/apps/verify_credentials with token and
// returns the status and the app's name.
func (ts *testServer) verifyApp(t testing.TB, token string) (int, string) {
	t.Helper()
	resp := ts.do(t, "GET", "/api/v1/apps/verify_credentials", token, nil, nil)
	defer resp.Body.Close()
	var app struct{ Name string }
	json.NewDecoder(resp.Body).Decode(&app)
	return resp.StatusCode, app.Name
}

// TestMastodonOAuthLogin: an app registers, the user signs in on the
// authorize page and approves, the app exchanges the code with its PKCE
// verifier (golang.org/x/oauth2) and gets Mastodon's Token entity, which
// works; a wrong verifier gets no token.
func TestMastodonOAuthLogin(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "alice")
	cfg := ts.mastodonApp(t, "read write follow")

	tok := ts.oauthLogin(t, cfg, "alice")
	if !strings.HasPrefix(tok.AccessToken, mastodon.TokenPrefix) || tok.TokenType != "Bearer" {
		t.Fatalf("token %q of type %q", tok.AccessToken, tok.TokenType)
	}
	if s := tok.Extra("scope"); s != "read write follow" {
		t.Fatalf("scope %v", s)
	}
	if at, _ := tok.Extra("created_at").(float64); at < 1e9 {
		t.Fatalf("created_at %v, want unix seconds", tok.Extra("created_at"))
	}
	if status, name := ts.verifyApp(t, tok.AccessToken); status != 200 || name != "Test App" {
		t.Fatalf("verify_credentials: %d %q", status, name)
	}

	verifier := oauth2.GenerateVerifier()
	code := ts.authorizeCode(t, cfg, "alice", oauth2.S256ChallengeOption(verifier))
	if _, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(oauth2.GenerateVerifier())); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("a wrong verifier: %v, want invalid_grant", err)
	}
	code = ts.authorizeCode(t, cfg, "alice", oauth2.S256ChallengeOption(verifier))
	if _, err := cfg.Exchange(context.Background(), code); err == nil {
		t.Fatal("no verifier for a code asked with a challenge: got a token")
	}
	// A code is good once.
	code = ts.authorizeCode(t, cfg, "alice", oauth2.S256ChallengeOption(verifier))
	if _, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier)); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier)); err == nil {
		t.Fatal("a code used twice gave a second token")
	}
}

// TestMastodonOAuthWithoutPKCE: apps that send no challenge (as Mastodon
// allows) get a token, here through a JSON token request; the app's secret
// must be right.
func TestMastodonOAuthWithoutPKCE(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "bob")
	cfg := ts.mastodonApp(t, "read")
	code := ts.authorizeCode(t, cfg, "bob")
	body := map[string]string{"grant_type": "authorization_code", "code": code, "client_id": cfg.ClientID,
		"client_secret": "wrong", "redirect_uri": cfg.RedirectURL}
	if status, out := ts.call(t, "POST", "/oauth/token", "", body); status != 401 || !strings.Contains(string(out), "invalid_client") {
		t.Fatalf("wrong secret: %d %s", status, out)
	}
	body["client_secret"] = cfg.ClientSecret
	var tok mastodon.Token
	ts.mastodonJSON(t, "POST", "/oauth/token", "", body, &tok)
	if tok.TokenType != "Bearer" || tok.Scope != "read" || tok.CreatedAt == 0 {
		t.Fatalf("token %+v", tok)
	}
	if status, _ := ts.verifyApp(t, tok.AccessToken); status != 200 {
		t.Fatalf("verify_credentials: %d", status)
	}

	// Browser apps call the token endpoint from their own origin.
	pre := ts.do(t, "OPTIONS", "/oauth/token", "", nil, http.Header{"Origin": {"https://elk.example"},
		"Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"content-type"}})
	pre.Body.Close()
	if pre.StatusCode/100 != 2 || pre.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("CORS preflight: %d %v", pre.StatusCode, pre.Header)
	}
}

// TestMastodonOAuthPagePolicy: the authorize page works without script and
// lets its form's answer redirect to the app (browsers check form-action
// on that redirect), and nowhere else.
func TestMastodonOAuthPagePolicy(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	cfg := ts.mastodonApp(t, "read", "https://app.example/cb?x=1", "com.example.app://oauth")
	for redirect, want := range map[string]string{cfg.RedirectURL: "form-action 'self' https://app.example;",
		"com.example.app://oauth": "form-action 'self' com.example.app://oauth;"} {
		resp, err := http.Get(cfg.AuthCodeURL("state-1234", oauth2.SetAuthURLParam("redirect_uri", redirect)))
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, want) || !strings.Contains(csp, "script-src 'self'") ||
			strings.Contains(string(page), "<script") || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %q\n%s", redirect, resp.StatusCode, csp, page)
		}
	}
}

// TestMastodonOAuthRefusals: a wrong password shows the form again with
// an error and no code; deny sends access_denied back to the app; a scope
// the app did not register is refused.
func TestMastodonOAuthRefusals(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "carol")
	cfg := ts.mastodonApp(t, "read")

	resp := ts.submitAuthorize(t, ts.authorizeForm(t, cfg.AuthCodeURL("state-1234")), "carol", "not the password", "approve")
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("Location") != "" || !strings.Contains(string(page), "Wrong username or password") ||
		!strings.Contains(string(page), `action="/oauth/authorize"`) || strings.Contains(string(page), "code=") {
		t.Fatalf("wrong password: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), page)
	}

	resp = ts.submitAuthorize(t, ts.authorizeForm(t, cfg.AuthCodeURL("state-1234")), "carol", "", "deny")
	resp.Body.Close()
	to, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != 302 || to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "state-1234" || to.Query().Has("code") {
		t.Fatalf("deny: %d %s", resp.StatusCode, to)
	}

	resp, err := noRedirects.Get(cfg.AuthCodeURL("state-1234", oauth2.SetAuthURLParam("scope", "write")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	to, _ = url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != 302 || to.Query().Get("error") != "invalid_scope" {
		t.Fatalf("a scope beyond the app's: %d %s", resp.StatusCode, to)
	}

	// An unknown app or redirect URI is never redirected to.
	resp, err = noRedirects.Get(cfg.AuthCodeURL("s", oauth2.SetAuthURLParam("redirect_uri", "https://evil.example/")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Fatalf("a redirect URI the app did not register: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestMastodonOAuthOutOfBand: an app with urn:ietf:wg:oauth:2.0:oob is
// shown the code on a page, which the app exchanges.
func TestMastodonOAuthOutOfBand(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "dave")
	cfg := ts.mastodonApp(t, "read", "urn:ietf:wg:oauth:2.0:oob")
	resp := ts.submitAuthorize(t, ts.authorizeForm(t, cfg.AuthCodeURL("")), "dave", testPassword, "approve")
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`<code id="code">([^<]+)</code>`).FindSubmatch(page)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("oob: %d\n%s", resp.StatusCode, page)
	}
	tok, err := cfg.Exchange(context.Background(), string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := ts.verifyApp(t, tok.AccessToken); status != 200 {
		t.Fatalf("verify_credentials: %d", status)
	}
}

// TestMastodonOAuthClientCredentials: an app's own token (no user) works
// for the app's endpoints; revoking it ends it.
func TestMastodonOAuthClientCredentials(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	cfg := ts.mastodonApp(t, "read write")
	cc := clientcredentials.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: cfg.Endpoint.TokenURL,
		AuthStyle: oauth2.AuthStyleInParams}
	tok, err := cc.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s := tok.Extra("scope"); s != "read" {
		t.Fatalf("an app asking for no scope got %v, want read (Mastodon's default)", s)
	}
	if status, name := ts.verifyApp(t, tok.AccessToken); status != 200 || name != "Test App" {
		t.Fatalf("verify_credentials: %d %q", status, name)
	}
	ts.revoke(t, cfg, tok.AccessToken)
	if status, _ := ts.verifyApp(t, tok.AccessToken); status != 401 {
		t.Fatalf("a revoked app token: %d, want 401", status)
	}
	cc.Scopes = []string{"follow"}
	if _, err := cc.Token(context.Background()); err == nil || !strings.Contains(err.Error(), "invalid_scope") {
		t.Fatalf("a scope the app did not register: %v", err)
	}
}

// revoke is POST /oauth/revoke of token, by cfg's app.
func (ts *testServer) revoke(t testing.TB, cfg *oauth2.Config, token string) {
	t.Helper()
	resp, err := http.PostForm(ts.URL+"/oauth/revoke", url.Values{"client_id": {cfg.ClientID}, "client_secret": {cfg.ClientSecret}, "token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != "{}" {
		t.Fatalf("revoke: %d %s", resp.StatusCode, b)
	}
}

// TestMastodonOAuthTokenEnds: a user's token ends when revoked, when the
// user logs out everywhere, and when the user is suspended (who then
// cannot authorize an app either).
func TestMastodonOAuthTokenEnds(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ADMINS=Boss")
	boss, _ := ts.register(t, "Boss")
	native, _ := ts.register(t, "erin")
	cfg := ts.mastodonApp(t, "read")

	tok := ts.oauthLogin(t, cfg, "erin").AccessToken
	other := ts.oauthLogin(t, cfg, "erin").AccessToken
	ts.revoke(t, cfg, tok)
	if status, _ := ts.verifyApp(t, tok); status != 401 {
		t.Fatalf("a revoked token: %d, want 401", status)
	}
	if status, _ := ts.verifyApp(t, other); status != 200 {
		t.Fatalf("revoking one token ended another: %d", status)
	}

	if status, body := ts.call(t, "DELETE", "/api/v1/sessions", native, nil); status != 204 {
		t.Fatalf("log out everywhere: %d %s", status, body)
	}
	if status, _ := ts.verifyApp(t, other); status != 401 {
		t.Fatalf("a token after logging out everywhere: %d, want 401", status)
	}

	tok = ts.oauthLogin(t, cfg, "erin").AccessToken
	if status, body := ts.call(t, "POST", "/api/v1/admin/users/erin/suspend", boss, nil); status/100 != 2 {
		t.Fatalf("suspend: %d %s", status, body)
	}
	if status, _ := ts.verifyApp(t, tok); status != 401 {
		t.Fatalf("a suspended user's token: %d, want 401", status)
	}
	resp := ts.submitAuthorize(t, ts.authorizeForm(t, cfg.AuthCodeURL("state-1234")), "erin", testPassword, "approve")
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(page), "suspended") {
		t.Fatalf("a suspended user authorizing: %d\n%s", resp.StatusCode, page)
	}
}

// TestMastodonOAuthNothingInTheClear: no token, code, client secret or
// password is anywhere in Redis, in keys or values.
func TestMastodonOAuthNothingInTheClear(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "frank")
	cfg := ts.mastodonApp(t, "read write")
	verifier := oauth2.GenerateVerifier()
	code := ts.authorizeCode(t, cfg, "frank", oauth2.S256ChallengeOption(verifier))
	tok, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	app, err := (&clientcredentials.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		TokenURL: cfg.Endpoint.TokenURL, AuthStyle: oauth2.AuthStyleInParams}).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{
		"user token": strings.TrimPrefix(tok.AccessToken, mastodon.TokenPrefix), "app token": strings.TrimPrefix(app.AccessToken, mastodon.TokenPrefix),
		"code": code, "client secret": cfg.ClientSecret, "password": testPassword, "verifier": verifier,
	}
	dump := redisDump(t, ts.backend.Client())
	// The dump holds what is kept: the records, and the token's hash.
	if !strings.Contains(dump, "oauth:client:") || !strings.Contains(dump, "oauth:token:"+store.TokenHash(secrets["user token"])) {
		t.Fatalf("no OAuth records in Redis:\n%s", dump)
	}
	for what, s := range secrets {
		if strings.Contains(dump, s) {
			t.Errorf("the %s is in Redis in the clear", what)
		}
	}
}

// redisDump is every key of the database and its value, as text.
func redisDump(t testing.TB, rdb redis.UniversalClient) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, k := range storetest.Keys(t, rdb, "*") {
		b.WriteString(k + " = ")
		var vals []string
		switch rdb.Type(ctx, k).Val() {
		case "string":
			vals = []string{rdb.Get(ctx, k).Val()}
		case "hash":
			for f, v := range rdb.HGetAll(ctx, k).Val() {
				vals = append(vals, f, v)
			}
		case "set":
			vals = rdb.SMembers(ctx, k).Val()
		case "zset":
			vals = rdb.ZRange(ctx, k, 0, -1).Val()
		case "list":
			vals = rdb.LRange(ctx, k, 0, -1).Val()
		case "stream":
			for _, m := range rdb.XRange(ctx, k, "-", "+").Val() {
				for f, v := range m.Values {
					vals = append(vals, f, fmt.Sprint(v))
				}
			}
		}
		b.WriteString(strings.Join(vals, " ") + "\n")
	}
	return b.String()
}
