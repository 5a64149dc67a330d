package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/oauth2"
)

// testRedirect is the redirect URI the tests' apps register; nothing
// listens there, as the tests read the redirect instead of following it.
const testRedirect = "http://localhost/callback"

// mastodonApp registers an app with scopes (POST /api/v1/apps) and returns
// an OAuth client configuration for it.
func (ts *testServer) mastodonApp(t testing.TB, scopes string, redirects ...string) *oauth2.Config {
	t.Helper()
	if len(redirects) == 0 {
		redirects = []string{testRedirect}
	}
	var app struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	ts.mastodonJSON(t, "POST", "/api/v1/apps", "", map[string]any{
		"client_name": "Test App", "redirect_uris": redirects, "scopes": scopes, "website": "https://app.example"}, &app)
	return &oauth2.Config{ClientID: app.ClientID, ClientSecret: app.ClientSecret, RedirectURL: redirects[0],
		Scopes: strings.Fields(scopes),
		Endpoint: oauth2.Endpoint{AuthURL: ts.URL + "/oauth/authorize", TokenURL: ts.URL + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams}}
}

// noRedirects is a browser that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorizeForm gets the authorize page at authURL and returns the form's
// fields as a browser would send them (hidden fields and their values).
func (ts *testServer) authorizeForm(t testing.TB, authURL string) url.Values {
	t.Helper()
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET authorize page: %d %s", resp.StatusCode, b)
	}
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{}
	var found bool
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "form" {
			found = attr(n, "method") == "post" && attr(n, "action") == "/oauth/authorize"
		}
		if n.Type == html.ElementNode && n.Data == "input" && attr(n, "type") == "hidden" {
			form.Set(attr(n, "name"), attr(n, "value"))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !found {
		t.Fatal("the authorize page has no form posting to /oauth/authorize")
	}
	return form
}

// attr is an HTML element's attribute.
func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// submitAuthorize sends the authorize form with the user's answer, as a
// browser does, without following the redirect.
func (ts *testServer) submitAuthorize(t testing.TB, form url.Values, name, password, decision string) *http.Response {
	t.Helper()
	form.Set("username", name)
	form.Set("password", password)
	form.Set("decision", decision)
	resp, err := noRedirects.PostForm(ts.URL+"/oauth/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// authorizeCode runs the authorize page for cfg as name (password
// testPassword) with opts (PKCE), returning the code of the redirect.
func (ts *testServer) authorizeCode(t testing.TB, cfg *oauth2.Config, name string, opts ...oauth2.AuthCodeOption) string {
	t.Helper()
	resp := ts.submitAuthorize(t, ts.authorizeForm(t, cfg.AuthCodeURL("state-1234", opts...)), name, testPassword, "approve")
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("POST authorize: %d, want 302", resp.StatusCode)
	}
	to, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got := to.Scheme + "://" + to.Host + to.Path; got != cfg.RedirectURL {
		t.Fatalf("redirected to %s, want %s", got, cfg.RedirectURL)
	}
	if s := to.Query().Get("state"); s != "state-1234" {
		t.Fatalf("state %q came back, want state-1234", s)
	}
	return to.Query().Get("code")
}

// oauthLogin is the whole login of an app with PKCE S256, as a Mastodon
// app does it: it returns the token.
func (ts *testServer) oauthLogin(t testing.TB, cfg *oauth2.Config, name string) *oauth2.Token {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	code := ts.authorizeCode(t, cfg, name, oauth2.S256ChallengeOption(verifier))
	tok, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange the code: %v", err)
	}
	return tok
}
