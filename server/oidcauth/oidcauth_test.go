package oidcauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"golang.org/x/oauth2"

	"microblog/server/oidcauth/oidctest"
)

const callback = "http://127.0.0.1:1/auth/oidc/callback" // never opened: SignIn stops before it

var (
	ours  = oidctest.Client{ID: "microblog", Secret: "microblog-secret", RedirectURIs: []string{callback}}
	other = oidctest.Client{ID: "other-app", Secret: "other-secret", RedirectURIs: []string{callback}}
)

// signIn begins a sign-in with c and signs in as u at the provider, as a
// browser would; it returns the sign-in's secrets and the code.
func signIn(t *testing.T, p *oidctest.Provider, c *Client, u oidctest.User) (Start, string) {
	t.Helper()
	ctx := context.Background()
	s, err := c.Begin(ctx, callback)
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	back, err := p.SignIn(ctx, &http.Client{Jar: jar}, s.URL, u.Username, u.Password)
	if err != nil {
		t.Fatal(err)
	}
	q := back.Query()
	if got := back.Scheme + "://" + back.Host + back.Path; got != callback || q.Get("state") != s.State || q.Get("code") == "" {
		t.Fatalf("the provider sent the browser back to %s, want %s with the state and a code", back, callback)
	}
	return s, q.Get("code")
}

func newClient(p *oidctest.Provider, c oidctest.Client) *Client {
	return New(Config{Issuer: p.URL, ClientID: c.ID, ClientSecret: c.Secret})
}

// TestExchange signs in at a real provider and checks what the relying
// party makes of the answer: the identity once, and nothing for a code
// used twice, a nonce or verifier that is not the sign-in's.
func TestExchange(t *testing.T) {
	p := oidctest.Start(t, ours, other)
	c := newClient(p, ours)
	ctx := context.Background()

	s, code := signIn(t, p, c, oidctest.Grace)
	if u, _ := url.Parse(s.URL); u.Query().Get("code_challenge_method") != "S256" || u.Query().Get("nonce") != s.Nonce {
		t.Fatalf("the authorization URL %s has no S256 challenge or nonce", s.URL)
	}
	id, err := c.Exchange(ctx, code, callback, s.Verifier, s.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	if id != (Identity{Subject: oidctest.Grace.Subject, PreferredName: oidctest.Grace.Username}) {
		t.Fatalf("identity %+v", id)
	}
	if _, err := c.Exchange(ctx, code, callback, s.Verifier, s.Nonce); !errors.Is(err, ErrRejected) {
		t.Fatalf("the same code twice: %v, want ErrRejected", err)
	}

	s, code = signIn(t, p, c, oidctest.Ada)
	if _, err := c.Exchange(ctx, code, callback, s.Verifier, "another-nonce"); !errors.Is(err, ErrRejected) {
		t.Fatalf("a nonce not the sign-in's: %v, want ErrRejected", err)
	}
	s, code = signIn(t, p, c, oidctest.Ada)
	if _, err := c.Exchange(ctx, code, callback, oauth2.GenerateVerifier(), s.Nonce); !errors.Is(err, ErrRejected) {
		t.Fatalf("a PKCE verifier not the sign-in's: %v, want ErrRejected", err)
	}
	// A code the provider gave another client is of no use to this one.
	o := newClient(p, other)
	s, code = signIn(t, p, o, oidctest.Ada)
	if _, err := c.Exchange(ctx, code, callback, s.Verifier, s.Nonce); !errors.Is(err, ErrRejected) {
		t.Fatalf("another client's code: %v, want ErrRejected", err)
	}
}

// TestIDTokenForAnotherClient checks that a genuine ID token the provider
// signed for another client is refused (its audience is not ours).
func TestIDTokenForAnotherClient(t *testing.T) {
	p := oidctest.Start(t, ours, other)
	o := newClient(p, other)
	ctx := context.Background()
	s, code := signIn(t, p, o, oidctest.Ada)
	pr, _, err := o.discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := o.oauth2Config(pr, callback).Exchange(o.clientContext(ctx), code, oauth2.VerifierOption(s.Verifier))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if _, err := verifyIDToken(ctx, o.verifier, raw, s.Nonce); err != nil {
		t.Fatalf("the token is not good even for its own client: %v", err)
	}
	c := newClient(p, ours)
	_, v, err := c.discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifyIDToken(ctx, v, raw, s.Nonce); !errors.Is(err, ErrRejected) {
		t.Fatalf("another client's ID token: %v, want ErrRejected", err)
	}
}

// TestProviderDown checks that a provider that does not answer is
// ErrUnavailable, while one that does is found.
func TestProviderDown(t *testing.T) {
	p := oidctest.Start(t, ours)
	p.Close()
	c := newClient(p, ours)
	if _, err := c.Begin(context.Background(), callback); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Begin with the provider down: %v, want ErrUnavailable", err)
	}
	up := oidctest.Start(t, ours)
	c = newClient(up, ours)
	if _, err := c.Begin(context.Background(), callback); err != nil {
		t.Fatalf("Begin with the provider up: %v", err)
	}
}
