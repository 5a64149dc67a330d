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
// name (password testPassword, native session token native), with scopes.
// Until the OAuth server gives out tokens, one is TokenPrefix and a native
// token.
func (ts *testServer) mastodonToken(t testing.TB, name, native, scopes string) string {
	t.Helper()
	return mastodon.TokenPrefix + native
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
