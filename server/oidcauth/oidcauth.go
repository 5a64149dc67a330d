// Package oidcauth is the server's OpenID Connect relying party: it sends a
// browser to the provider (authorization code flow with state, nonce and
// PKCE S256) and checks what comes back, with github.com/coreos/go-oidc and
// golang.org/x/oauth2 doing every token check. It knows nothing of HTTP
// routing, sessions or accounts: the server keeps the state of each sign-in
// and decides what an identity signs in to.
package oidcauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Config is how the relying party is registered with its provider.
type Config struct {
	Issuer       string // the provider's issuer URL, whose /.well-known/openid-configuration is read
	ClientID     string
	ClientSecret string
}

// Errors of Exchange, by what the caller should tell the user.
var (
	// ErrUnavailable is a provider that cannot be reached (discovery, the
	// token endpoint or its keys): try again later.
	ErrUnavailable = errors.New("oidcauth: the provider cannot be reached")
	// ErrRejected is a code the provider would not exchange, or an ID token
	// that fails a check (signature, issuer, audience, expiry, nonce).
	ErrRejected = errors.New("oidcauth: the sign-in was rejected")
)

// Timeouts of the calls to the provider.
const (
	// requestTimeout bounds each call to the provider, so that a provider
	// that hangs cannot hold a login request for longer.
	requestTimeout = 10 * time.Second
	// retryAfter is how long a failed discovery is remembered: logins in
	// that time fail at once instead of each waiting for the provider.
	retryAfter = 5 * time.Second
)

// Client is a relying party. It discovers its provider on first use, not
// at start, so that the server starts while the provider is down; a failed
// discovery is tried again on a later use.
type Client struct {
	cfg  Config
	http *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	failedAt time.Time
	lastErr  error
}

// New returns a relying party for cfg; it does not call the provider yet.
func New(cfg Config) *Client {
	return &Client{cfg: cfg, http: &http.Client{Timeout: requestTimeout}}
}

// discover returns the provider, reading its discovery document on first
// use, or again once retryAfter has passed since a failure. It holds the
// lock while it reads, so that concurrent logins make one request.
func (c *Client) discover(ctx context.Context) (*oidc.Provider, *oidc.IDTokenVerifier, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, c.verifier, nil
	}
	if !c.failedAt.IsZero() && time.Since(c.failedAt) < retryAfter {
		return nil, nil, c.lastErr
	}
	ctx, cancel := context.WithTimeout(c.clientContext(ctx), requestTimeout)
	defer cancel()
	p, err := oidc.NewProvider(ctx, c.cfg.Issuer)
	if err != nil {
		c.failedAt, c.lastErr = time.Now(), fmt.Errorf("%w: discover %s: %w", ErrUnavailable, c.cfg.Issuer, err)
		return nil, nil, c.lastErr
	}
	c.provider = p
	c.verifier = p.Verifier(&oidc.Config{ClientID: c.cfg.ClientID})
	return c.provider, c.verifier, nil
}

// clientContext is ctx carrying the client's HTTP client, which oauth2 and
// go-oidc use for their requests.
func (c *Client) clientContext(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, c.http)
}

func (c *Client) oauth2Config(p *oidc.Provider, redirectURL string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     c.cfg.ClientID,
		ClientSecret: c.cfg.ClientSecret,
		Endpoint:     p.Endpoint(),
		RedirectURL:  redirectURL,
		Scopes:       []string{oidc.ScopeOpenID, "profile", "email"},
	}
}

// Start is the beginning of a sign-in: the secrets the callback needs
// (kept by the caller, never sent to the browser except State) and the
// provider's URL to send the browser to.
type Start struct {
	State    string // sent to the provider and back: finds this sign-in again
	Nonce    string // sent to the provider, which puts it in the ID token
	Verifier string // PKCE: only its S256 hash goes to the provider
	URL      string // the provider's authorization endpoint with all of the above
}

// Begin makes a new state, nonce and PKCE verifier and the URL that sends
// the browser to the provider, which will send it back to redirectURL. It
// is ErrUnavailable while the provider cannot be discovered.
func (c *Client) Begin(ctx context.Context, redirectURL string) (Start, error) {
	p, _, err := c.discover(ctx)
	if err != nil {
		return Start{}, err
	}
	s := Start{State: RandomString(), Nonce: RandomString(), Verifier: oauth2.GenerateVerifier()}
	s.URL = c.oauth2Config(p, redirectURL).AuthCodeURL(s.State, oidc.Nonce(s.Nonce), oauth2.S256ChallengeOption(s.Verifier))
	return s, nil
}

// Identity is who the provider says signed in.
type Identity struct {
	Subject string // the sub claim: the provider's stable id of the user
	// PreferredName is the name the user would like: preferred_username,
	// else the local part of email, else name; it may be empty.
	PreferredName string
}

// claims are the ID token's and the UserInfo's claims the server uses.
type claims struct {
	Subject           string `json:"sub"`
	PreferredUsername string `json:"preferred_username"`
	Email             string `json:"email"`
	Name              string `json:"name"`
}

func (cl claims) preferredName() string {
	if cl.PreferredUsername != "" {
		return cl.PreferredUsername
	}
	if local, _, ok := strings.Cut(cl.Email, "@"); ok && local != "" {
		return local
	}
	return cl.Name
}

// Exchange finishes a sign-in: it trades code for tokens with the PKCE
// verifier (at the same redirectURL), and verifies the ID token (signature
// against the provider's published keys, issuer, audience, expiry) and
// that it carries nonce. When the ID token names no user, the UserInfo
// endpoint is asked, and believed only for the same subject.
func (c *Client) Exchange(ctx context.Context, code, redirectURL, verifier, nonce string) (Identity, error) {
	p, v, err := c.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	ctx, cancel := context.WithTimeout(c.clientContext(ctx), requestTimeout)
	defer cancel()
	tok, err := c.oauth2Config(p, redirectURL).Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Identity{}, exchangeError(err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, fmt.Errorf("%w: the token response has no id_token", ErrRejected)
	}
	cl, err := verifyIDToken(ctx, v, raw, nonce)
	if err != nil {
		return Identity{}, err
	}
	if cl.preferredName() == "" {
		// Providers such as the zitadel example keep profile claims out of
		// the ID token: ask UserInfo, and take its word for this subject only.
		var more claims
		if info, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok)); err == nil && info.Claims(&more) == nil && more.Subject == cl.Subject {
			cl.PreferredUsername, cl.Email, cl.Name = more.PreferredUsername, more.Email, more.Name
		}
	}
	return Identity{Subject: cl.Subject, PreferredName: cl.preferredName()}, nil
}

// verifyIDToken checks a raw ID token: signature against the provider's
// published keys, issuer, audience (this client), expiry, and nonce.
func verifyIDToken(ctx context.Context, v *oidc.IDTokenVerifier, raw, nonce string) (claims, error) {
	idt, err := v.Verify(ctx, raw)
	if err != nil {
		return claims{}, fmt.Errorf("%w: verify the ID token: %w", ErrRejected, err)
	}
	// go-oidc leaves the nonce to the caller. Both are random strings the
	// server made, so a plain comparison gives nothing away.
	if nonce == "" || idt.Nonce != nonce {
		return claims{}, fmt.Errorf("%w: the ID token's nonce is not this sign-in's", ErrRejected)
	}
	var cl claims
	if err := idt.Claims(&cl); err != nil || cl.Subject == "" {
		return claims{}, fmt.Errorf("%w: the ID token names no subject", ErrRejected)
	}
	return cl, nil
}

// exchangeError sorts a failed code exchange: the provider's refusal
// (invalid_grant for a code used twice, for another client or whose PKCE
// verifier does not match) or a provider that did not answer.
func exchangeError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
		return fmt.Errorf("%w: exchange the code: %w", ErrRejected, err)
	}
	return fmt.Errorf("%w: exchange the code: %w", ErrUnavailable, err)
}

// RandomString is 32 random bytes in URL-safe base64: a state, a nonce, a
// browser binding.
func RandomString() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
