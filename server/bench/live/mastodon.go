package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"microblog/server/bench/spawn"
)

// The Mastodon streaming part of the delivery bench (-kinds): the same fans
// read the same posts through GET /api/v1/streaming?stream=user, each with
// an access token of its own that the real OAuth flow gave it, instead of
// the native /ws. Both ride the hub's one fan-out (the streaming API is a
// hub.Format), so their figures should match: that is the claim they show.

// Kinds of live feed the fans connect to.
const (
	kindNative   = "native"
	kindMastodon = "mastodon"
	// kindSSE is the Mastodon streaming API's user stream as server-sent
	// events (GET /api/v1/streaming/user), over the same hub.
	kindSSE = "sse"
)

// needsTokens tells whether kinds has a Mastodon feed, whose fans need
// access tokens.
func needsTokens(kinds []string) bool {
	return slices.Contains(kinds, kindMastodon) || slices.Contains(kinds, kindSSE)
}

// oauthRedirect is the redirect URI of the bench's app: nothing listens
// there, as the bench reads the code from the redirect instead of
// following it.
const oauthRedirect = "http://localhost/callback"

// oauthState is the state the bench's app sends with each authorize
// request, and checks on the redirect.
const oauthState = "live-bench"

// parseKinds reads -kinds: native, mastodon, sse, or several, in the order given.
func parseKinds(s string) ([]string, error) {
	var kinds []string
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case kindNative, kindMastodon, kindSSE:
			kinds = append(kinds, f)
		case "":
		default:
			return nil, fmt.Errorf("-kinds: %q is none of %s, %s and %s", f, kindNative, kindMastodon, kindSSE)
		}
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("-kinds: %q names no kind of feed", s)
	}
	return kinds, nil
}

// mastodonLogin gives each of users a Mastodon access token (account.Mastodon)
// as a Mastodon app gets one: it registers one app (POST /api/v1/apps), then
// for each user sends the authorize page's form (sign in and approve, with
// a PKCE S256 challenge) and exchanges the code the redirect carries for a
// token (POST /oauth/token with the verifier).
func (lt *loadTest) mastodonLogin(base string, users []account) error {
	var app struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := spawn.Call(lt.client, base, "POST", "/api/v1/apps", "", map[string]any{
		"client_name": "live bench", "redirect_uris": oauthRedirect, "scopes": "read"}, http.StatusOK, &app); err != nil {
		return fmt.Errorf("register the bench's Mastodon app: %w", err)
	}
	noRedirects := &http.Client{
		Timeout:       lt.client.Timeout,
		Transport:     lt.client.Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return parallel(len(users), lt.par, func(i int) error {
		verifier := rand.Text() + rand.Text() // 52 characters of base32: PKCE wants 43 to 128
		sum := sha256.Sum256([]byte(verifier))
		code, err := authorize(noRedirects, base, url.Values{
			"response_type": {"code"}, "client_id": {app.ClientID}, "redirect_uri": {oauthRedirect},
			"scope": {"read"}, "state": {oauthState},
			"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
			"username": {users[i].Name}, "password": {benchPassword}, "decision": {"approve"},
		})
		if err != nil {
			return fmt.Errorf("authorize %s: %w", users[i].Name, err)
		}
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		err = postForm(lt.client, base+"/oauth/token", url.Values{
			"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {oauthRedirect},
			"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code_verifier": {verifier},
		}, &tok)
		if err == nil && tok.AccessToken == "" {
			err = errors.New("no access_token in the answer")
		}
		if err != nil {
			return fmt.Errorf("exchange %s's code for a token: %w", users[i].Name, err)
		}
		users[i].Mastodon = tok.AccessToken
		return nil
	})
}

// authorize sends the authorize page's form as a browser does and returns
// the code of the redirect to the app, which must carry the app's state.
func authorize(client *http.Client, base string, form url.Values) (string, error) {
	resp, err := client.PostForm(base+"/oauth/authorize", form)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	to, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil || to.Query().Get("code") == "" || to.Query().Get("state") != oauthState {
		return "", fmt.Errorf("POST /oauth/authorize: %s, to %q, want a redirect with a code and the state", resp.Status, resp.Header.Get("Location"))
	}
	return to.Query().Get("code"), nil
}

// postForm posts form to url and decodes the JSON answer into out.
func postForm(client *http.Client, url string, form url.Values, out any) error {
	resp, err := client.PostForm(url, form)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, &b)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
