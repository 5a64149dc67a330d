// Package oidctest starts a real OpenID Provider for tests: the example
// provider of github.com/zitadel/oidc/v3 (its exampleop and storage
// packages, used as a library), with its own login page, on a free
// loopback port, with the clients a test registers and the users below.
package oidctest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// User is a person who can sign in at the provider.
type User struct {
	Subject  string // the sub claim the provider gives
	Username string // what the login page asks for; preferred_username
	Password string
	Email    string
}

// Users are the provider's users.
var (
	Ada   = User{Subject: "sub-ada-1815", Username: "ada", Password: "analytical-engine", Email: "ada@example.edu"}
	Grace = User{Subject: "sub-grace-1906", Username: "grace.hopper", Password: "cobol-and-nanoseconds", Email: "grace@example.edu"}
)

// Client is a relying party registered with the provider: a confidential
// web client (HTTP Basic client authentication) for these redirect URIs.
type Client struct {
	ID, Secret   string
	RedirectURIs []string
}

// Provider is a running OpenID Provider.
type Provider struct {
	URL string // the issuer, http://127.0.0.1:<port>, without a trailing slash
	srv *httptest.Server
}

// Start starts a provider on a free loopback port with clients registered
// and stops it when the test ends.
func Start(t testing.TB, clients ...Client) *Provider {
	t.Helper()
	registered := map[string]*storage.Client{}
	for _, c := range clients {
		registered[c.ID] = storage.WebClient(c.ID, c.Secret, c.RedirectURIs...)
	}
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	st := storage.NewStorageWithClients(users{}, registered)
	// A nil logger keeps the process's default logger as it is.
	srv.Config.Handler = exampleop.SetupServer(issuer, st, nil, false)
	srv.Start()
	t.Cleanup(srv.Close)
	return &Provider{URL: issuer, srv: srv}
}

// Close stops the provider before the test ends: it is down from then on.
func (p *Provider) Close() { p.srv.Close() }

// users is the storage.UserStore of Ada and Grace.
type users struct{}

func (users) GetUserByID(id string) *storage.User {
	for _, u := range []User{Ada, Grace} {
		if u.Subject == id {
			return u.storageUser()
		}
	}
	return nil
}

func (users) GetUserByUsername(name string) *storage.User {
	for _, u := range []User{Ada, Grace} {
		if u.Username == name {
			return u.storageUser()
		}
	}
	return nil
}

// ExampleClientID names the example's service user (JWT profile grants),
// which the storage insists on having.
func (users) ExampleClientID() string { return storage.ServiceUserID }

func (u User) storageUser() *storage.User {
	return &storage.User{ID: u.Subject, Username: u.Username, Password: u.Password,
		FirstName: u.Username, LastName: "Test", Email: u.Email, EmailVerified: true,
		PreferredLanguage: language.English}
}

// hiddenID is the auth request id the login page's form carries.
var hiddenID = regexp.MustCompile(`name="id" value="([^"]*)"`)

// SignIn is what a person does at the provider: it opens authURL (the
// provider's authorization endpoint, as a relying party sent the browser
// there) with browser, fills in the login page with username and password,
// and returns the URL the provider sends the browser back to (the relying
// party's callback, with code and state), without opening it. browser
// should have a cookie jar, as a browser does.
func (p *Provider) SignIn(ctx context.Context, browser *http.Client, authURL, username, password string) (*url.URL, error) {
	c := *browser
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != p.srv.Listener.Addr().String() {
			return http.ErrUseLastResponse // back to the relying party: stop there
		}
		return nil
	}
	page, err := p.get(ctx, &c, authURL)
	if err != nil {
		return nil, err
	}
	m := hiddenID.FindSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("oidctest: no login form at %s: %.300s", authURL, page)
	}
	form := url.Values{"id": {string(m[1])}, "username": {username}, "password": {password}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+"/login/username", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oidctest: submit the login form: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, fmt.Errorf("oidctest: the provider did not send the browser back (%s): %.300s", resp.Status, body)
	}
	return loc, nil
}

// get opens u with c and returns the body of a 200 answer.
func (p *Provider) get(ctx context.Context, c *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oidctest: open %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("oidctest: open %s: %s: %.300s", u, resp.Status, body)
	}
	return body, nil
}
