package main

import (
	"net/http"
	"testing"

	"microblog/server/mastodon"
)

// mastodonUser registers a user and returns an access token of the
// Mastodon API for it, with scopes ("" for read write follow push), and
// its uid.
func (ts *testServer) mastodonUser(t testing.TB, name, scopes string) (string, int64) {
	t.Helper()
	native, uid := ts.register(t, name)
	return ts.mastodonToken(t, name, native, scopes), uid
}

// mastodonToken returns an access token of the Mastodon API for the user
// name (password testPassword), with scopes ("" for read write follow
// push), through the real OAuth flow over HTTP: an app registers, the user
// signs in on the authorize page, the app exchanges the code (PKCE S256).
// native, the user's native session token, is not needed for it; nativeOf
// gives it back for the token.
func (ts *testServer) mastodonToken(t testing.TB, name, native, scopes string) string {
	t.Helper()
	if scopes == "" {
		scopes = "read write follow push"
	}
	tok := ts.oauthLogin(t, ts.mastodonApp(t, scopes), name).AccessToken
	if native != "" {
		nativeTokens.Store(tok, native)
	}
	return tok
}

// mastodonJSON calls the Mastodon API and decodes a 2xx answer into out
// (unless nil), failing the test on any other status.
func (ts *testServer) mastodonJSON(t testing.TB, method, path, token string, body any, out any) *http.Response {
	t.Helper()
	resp := ts.do(t, method, path, token, body, nil)
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var e mastodon.ErrorBody
		jsonDecode(resp, &e)
		t.Fatalf("%s %s: %d %q", method, path, resp.StatusCode, e.Error)
	}
	if out != nil {
		if err := jsonDecode(resp, out); err != nil {
			t.Fatalf("%s %s: decode: %v", method, path, err)
		}
	}
	return resp
}
