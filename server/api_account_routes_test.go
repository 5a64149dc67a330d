package main

import (
	"fmt"
	"net/http"
	"testing"

	"microblog/store"
)

// loginToken logs name in with password and returns the new token.
func (ts *testServer) loginToken(t testing.TB, name, password string) string {
	t.Helper()
	status, body := ts.login(t, name, password)
	if status != 200 {
		t.Fatalf("log in %s: %d %s", name, status, body)
	}
	var out struct{ Token string }
	mustDecode(t, body, &out)
	return out.Token
}

// TestChangePasswordRoute: PUT /me/password needs the old password, keeps
// the caller's session and ends (and disconnects) every other.
func TestChangePasswordRoute(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok1, _ := ts.register(t, "alice")
	tok2 := ts.loginToken(t, "alice", testPassword)
	ws := ts.dialWS(t, tok2, "")
	ws.ready(t)
	const path = "/api/v1/me/password"
	ts.wantStatus(t, "PUT", path, tok1, map[string]string{"old_password": "wrong password", "new_password": "a new password"}, 401, "invalid_credentials")
	ts.wantStatus(t, "PUT", path, tok1, map[string]string{"old_password": testPassword, "new_password": "short"}, 400, "invalid_password")
	ts.wantStatus(t, "PUT", path, tok1, map[string]string{"old_password": testPassword}, 400, "invalid_password")
	ts.wantStatus(t, "PUT", path, tok1, map[string]string{"new_password": "a new password"}, 400, "invalid_field")
	ts.wantStatus(t, "PUT", path, "", map[string]string{"old_password": testPassword, "new_password": "a new password"}, 401, "unauthorized")
	ts.wantStatus(t, "PUT", path, tok1, map[string]string{"old_password": testPassword, "new_password": "a new password"}, 204, "")
	ts.wantStatus(t, "GET", "/api/v1/me", tok1, nil, 200, "")
	ts.wantStatus(t, "GET", "/api/v1/me", tok2, nil, 401, "unauthorized")
	if code := ws.CloseCode(t, hangWait); code != 4001 {
		t.Fatalf("the other session's socket closed with %d, want 4001", code)
	}
	if status, _ := ts.login(t, "alice", testPassword); status != 401 {
		t.Fatalf("old password: %d, want 401", status)
	}
	ts.loginToken(t, "alice", "a new password")
}

// TestLogoutEverywhereRoute: DELETE /sessions ends every session of the
// caller, its own included, and closes their sockets.
func TestLogoutEverywhereRoute(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok1, _ := ts.register(t, "bob")
	tok2 := ts.loginToken(t, "bob", testPassword)
	tok3 := ts.loginToken(t, "bob", testPassword)
	other, _ := ts.register(t, "carol")
	ws := ts.dialWS(t, tok1, "")
	ws.ready(t)
	resp := ts.do(t, "DELETE", "/api/v1/sessions", tok2, nil, nil)
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("DELETE /sessions: %d", resp.StatusCode)
	}
	cleared := false
	for _, c := range resp.Cookies() {
		cleared = cleared || (c.Name == "auth" && c.MaxAge < 0)
	}
	if !cleared {
		t.Error("the session cookie was not cleared")
	}
	for _, tok := range []string{tok1, tok2, tok3} {
		ts.wantStatus(t, "GET", "/api/v1/me", tok, nil, 401, "unauthorized")
	}
	if code := ws.CloseCode(t, hangWait); code != 4001 {
		t.Fatalf("socket closed with %d, want 4001", code)
	}
	ts.wantStatus(t, "GET", "/api/v1/me", other, nil, 200, "")
	ts.wantStatus(t, "DELETE", "/api/v1/sessions", "", nil, 401, "unauthorized")
	ts.loginToken(t, "bob", testPassword)
}

// TestDeleteAccountRoute: DELETE /me with the password removes the account:
// its sessions, posts and follows, and frees its name for someone else.
func TestDeleteAccountRoute(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	aliceTok, alice := ts.register(t, "alice")
	bobTok, _ := ts.register(t, "bob")
	carolTok, _ := ts.register(t, "carol")
	ts.follow(t, bobTok, "alice", true)
	ts.follow(t, aliceTok, "carol", true)
	var posts []int64
	for i := range 25 {
		posts = append(posts, ts.newPost(t, aliceTok, fmt.Sprintf("alice's post %d", i)))
	}
	carols := ts.newPost(t, carolTok, "carol's post")
	ts.comment(t, aliceTok, carols, "nice")
	bobWS := ts.dialWS(t, bobTok, "")
	bobWS.ready(t)

	ts.wantStatus(t, "DELETE", "/api/v1/me", aliceTok, map[string]string{"password": "wrong password"}, 401, "invalid_credentials")
	ts.wantStatus(t, "DELETE", "/api/v1/me", aliceTok, map[string]string{}, 400, "invalid_field")
	ts.wantStatus(t, "DELETE", "/api/v1/me", aliceTok, nil, 415, "unsupported_media_type")
	ts.wantStatus(t, "GET", "/api/v1/users/alice", "", nil, 200, "")
	ts.wantStatus(t, "DELETE", "/api/v1/me", aliceTok, map[string]string{"password": testPassword}, 204, "")

	ts.wantStatus(t, "GET", "/api/v1/me", aliceTok, nil, 401, "unauthorized")
	ts.wantStatus(t, "GET", "/api/v1/users/alice", "", nil, 404, "user_not_found")
	for _, id := range posts {
		ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d", id), "", nil, 404, "post_not_found")
	}
	var users store.Page[store.User]
	ts.getJSON(t, "", "/api/v1/users/bob/following", &users)
	if len(users.Items) != 0 {
		t.Errorf("bob still follows %+v", users.Items)
	}
	ts.getJSON(t, "", "/api/v1/users/carol/followers", &users)
	if len(users.Items) != 0 {
		t.Errorf("carol still has fans %+v", users.Items)
	}
	if home := ts.page(t, bobTok, "/api/v1/timelines/home"); len(home.Items) != 0 {
		t.Errorf("bob's home still shows %v", ids(home.Items))
	}
	// Bob's open page hears the posts go.
	deleted := map[int64]bool{}
	for len(deleted) < len(posts) {
		if f := bobWS.Next(t, hangWait); f.Event == store.EventDelete {
			deleted[f.ID()] = true
		}
	}
	// The name is free: someone else may take it.
	_, newAlice := ts.register(t, "alice")
	if newAlice == alice {
		t.Fatalf("the new alice got the old id %d", alice)
	}
	var u store.User
	ts.getJSON(t, "", "/api/v1/users/alice", &u)
	if u.ID != newAlice || u.PostsCount != 0 || u.FollowersCount != 0 {
		t.Fatalf("the new alice is %+v", u)
	}
	if status, _ := ts.login(t, "alice", "another password"); status != http.StatusUnauthorized {
		t.Fatalf("log in with a wrong password as the new alice: %d", status)
	}
}
