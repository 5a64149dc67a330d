package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"microblog/hub/wstest"
	"microblog/server/mastodon"
)

// TestOAuthTokenIsNotANativeSession (CONTRACT.md §17): an access token an
// OAuth grant gave is valid on the Mastodon API, within its scopes, and
// nowhere else: the native API, /ws and the operators' routes answer 401 to
// it in any spelling (as given, without its prefix, in another letter case,
// in the session cookie, in ?token=), whatever its scopes. The user's own
// native session still works, and the Mastodon token still works there.
func TestOAuthTokenIsNotANativeSession(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ADMINS=boss")
	alice, _ := ts.register(t, "alice")
	dave, _ := ts.register(t, "dave")
	bossNative, _ := ts.register(t, "boss")
	ts.sendDM(t, alice, "boss", "a secret between us")
	ts.sendDM(t, dave, "boss", "another secret")

	readOnly := ts.mastodonToken(t, "boss", bossNative, "read:statuses")
	media := ts.mastodonToken(t, "boss", bossNative, "write:media")
	full := ts.mastodonToken(t, "boss", bossNative, "read write follow push")
	for _, tok := range []string{readOnly, media, full} {
		if !strings.HasPrefix(tok, mastodon.TokenPrefix) {
			t.Fatalf("an access token %q lacks the prefix %q", tok, mastodon.TokenPrefix)
		}
	}
	raw := strings.TrimPrefix(full, mastodon.TokenPrefix)
	spellings := map[string]string{
		"as given":           full,
		"without its prefix": raw,
		"upper-case prefix":  strings.ToUpper(mastodon.TokenPrefix) + raw,
		"read:statuses bare": strings.TrimPrefix(readOnly, mastodon.TokenPrefix),
		"write:media bare":   strings.TrimPrefix(media, mastodon.TokenPrefix),
	}
	native := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/me", nil},
		{"GET", "/api/v1/conversations/alice/messages", nil},
		{"PATCH", "/api/v1/me", map[string]any{"bio": "taken over"}},
		{"POST", "/api/v1/posts", map[string]any{"content": "as boss"}},
		{"POST", "/api/v1/admin/users/dave/suspend", nil},
		{"GET", "/api/v1/admin/reports", nil},
	}
	for what, tok := range spellings {
		for _, r := range native {
			if status, body := ts.call(t, r.method, r.path, tok, r.body); status != http.StatusUnauthorized {
				t.Errorf("%s %s with the OAuth token %s: %d %s, want 401", r.method, r.path, what, status, body)
			}
		}
		for _, h := range []http.Header{bearer(tok), {"Cookie": {"auth=" + tok}}} {
			if conn, resp, body := ts.dialWSStatus(t, h); conn != nil || resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("/ws with the OAuth token %s (%v): %d %s, want 401", what, h, resp.StatusCode, body)
			}
		}
		conn, resp, body := wstest.TryDial(t, ts.wsURL("token="+url.QueryEscape(tok)), nil)
		if conn != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("/ws?token= with the OAuth token %s: %d %s, want 401", what, resp.StatusCode, body)
		}
		status, body := ts.callCookie(t, "GET", "/api/v1/me", tok)
		if status != http.StatusUnauthorized && status != http.StatusOK || status == http.StatusOK && strings.Contains(string(body), `"username":"boss"`) {
			t.Errorf("GET /api/v1/me with the OAuth token %s as the cookie: %d %s, want 401 or anonymous", what, status, body)
		}
	}
	if u := ts.userAs(t, alice, "dave"); u.Suspended {
		t.Fatal("dave was suspended through an OAuth token")
	}
	if me := ts.me(t, bossNative); me.Bio == "taken over" {
		t.Fatal("the profile was changed through an OAuth token")
	}

	// The token is still good where it was given, within its scopes.
	var acct mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", full, nil, &acct)
	if acct.Username != "boss" {
		t.Fatalf("verify_credentials: %+v", acct)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/home", readOnly, nil, nil)
	if got := ts.mastodonError(t, "POST", "/api/v1/statuses", readOnly, map[string]any{"status": "hi"}, http.StatusForbidden); got == "" {
		t.Fatal("a read:statuses token posted")
	}
	// And the user's own session is what the native side takes.
	if status, body := ts.call(t, "GET", "/api/v1/conversations/alice/messages", bossNative, nil); status != http.StatusOK {
		t.Fatalf("the native session: %d %s", status, body)
	}
}

// callCookie calls path with token in the plain-HTTP session cookie.
func (ts *testServer) callCookie(t testing.TB, method, path, token string) (int, []byte) {
	t.Helper()
	resp := ts.do(t, method, path, "", nil, http.Header{"Cookie": {"auth=" + token}})
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, []byte(b.String())
}
