package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"microblog/store"
)

// patchMe sends PATCH /api/v1/me and returns its status and the User or error it answered.
func (ts *testServer) patchMe(t testing.TB, token string, body any) (int, store.User, string) {
	t.Helper()
	status, b := ts.call(t, "PATCH", "/api/v1/me", token, body)
	var u store.User
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if status == http.StatusOK {
		mustDecode(t, b, &u)
	} else {
		json.Unmarshal(b, &e)
	}
	return status, u, e.Error.Code
}

// searchNames are the usernames GET /search/users?q= answers.
func (ts *testServer) searchNames(t testing.TB, q string) []string {
	t.Helper()
	var page store.Page[store.User]
	ts.getJSON(t, "", "/api/v1/search/users?q="+q, &page)
	var names []string
	for _, u := range page.Items {
		names = append(names, u.Username)
	}
	return names
}

// TestProfileDisplayNameAndFields: PATCH /me takes a display name (bidi
// controls stripped; 31 characters refused with 400
// display_name_too_long, changing nothing) and up to 4 fields (a fifth,
// an empty name or a 101-character value refused with invalid_fields);
// the profile shows both, and a URL value stays as written for the front
// ends to link.
func TestProfileDisplayNameAndFields(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	var u store.User
	ts.getJSON(t, "", "/api/v1/users/alice", &u)
	if u.DisplayName != "" || u.HeaderURL != nil || u.Fields == nil || len(u.Fields) != 0 {
		t.Fatalf("a new user's profile: display_name %q, header_url %v, fields %#v", u.DisplayName, u.HeaderURL, u.Fields)
	}
	status, u, _ := ts.patchMe(t, alice, map[string]any{"display_name": "  \u202e李雷\u202c\u200f  "})
	if status != 200 || u.DisplayName != "李雷" {
		t.Fatalf("display name with bidi controls: %d %q, want 李雷", status, u.DisplayName)
	}
	thirty := strings.Repeat("名", 30)
	if status, u, _ := ts.patchMe(t, alice, map[string]any{"display_name": thirty}); status != 200 || u.DisplayName != thirty {
		t.Fatalf("30 characters: %d %q", status, u.DisplayName)
	}
	ts.patchMe(t, alice, map[string]any{"display_name": "李雷"})
	for _, bad := range []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"display_name": strings.Repeat("名", 31), "bio": "changed"}, "display_name_too_long"},
		{map[string]any{"display_name": "two\nlines"}, "invalid_display_name"},
		{map[string]any{"fields": []store.Field{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "c", Value: "3"}, {Name: "d", Value: "4"}, {Name: "e", Value: "5"}}, "bio": "changed"}, "invalid_fields"},
		{map[string]any{"fields": []store.Field{{Name: "", Value: "1"}}}, "invalid_fields"},
		{map[string]any{"fields": []store.Field{{Name: "site", Value: strings.Repeat("x", 101)}}}, "invalid_fields"},
		{map[string]any{"display_name": 7}, "invalid_field"},
	} {
		if status, _, code := ts.patchMe(t, alice, bad.body); status != 400 || code != bad.code {
			t.Errorf("PATCH /me %v: %d %s, want 400 %s", bad.body, status, code, bad.code)
		}
	}
	ts.getJSON(t, "", "/api/v1/users/alice", &u)
	if u.DisplayName != "李雷" || u.Bio != "" || len(u.Fields) != 0 {
		t.Fatalf("a refused PATCH changed the profile: %q %q %v", u.DisplayName, u.Bio, u.Fields)
	}
	fields := []store.Field{{Name: "网站", Value: "https://example.com/李雷"}, {Name: "城市", Value: " 杭州 "}, {Name: "x", Value: strings.Repeat("y", 100)}, {Name: "mail", Value: "javascript:alert(1)"}}
	status, u, _ = ts.patchMe(t, alice, map[string]any{"fields": fields})
	want := []store.Field{{Name: "网站", Value: "https://example.com/李雷"}, {Name: "城市", Value: "杭州"}, {Name: "x", Value: strings.Repeat("y", 100)}, {Name: "mail", Value: "javascript:alert(1)"}}
	if status != 200 || !slices.Equal(u.Fields, want) || u.DisplayName != "李雷" {
		t.Fatalf("fields: %d %v (display name %q)", status, u.Fields, u.DisplayName)
	}
	if store.FieldLink(u.Fields[0].Value) == "" || store.FieldLink(u.Fields[3].Value) != "" {
		t.Fatal("only the http(s) value is a link")
	}
	ts.getJSON(t, alice, "/api/v1/me", &u)
	if !slices.Equal(u.Fields, want) {
		t.Fatalf("/me fields %v", u.Fields)
	}
	if status, u, _ = ts.patchMe(t, alice, map[string]any{"fields": []store.Field{}, "display_name": ""}); status != 200 || len(u.Fields) != 0 || u.DisplayName != "" {
		t.Fatalf("clearing: %d %v %q", status, u.Fields, u.DisplayName)
	}
}

// TestDisplayNameOnPosts: a post carries its author's display name, live
// and read back; a new display name reaches the posts written before it,
// in Redis and in the archive alike (an author is a card read at read
// time, never a copy in the post), and user search finds the author by the
// start of its display name, in Chinese and in any letter case, and stops
// finding it by the old one.
func TestDisplayNameOnPosts(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	ts.follow(t, bob, "alice", true)
	old := ts.newPost(t, alice, "written before the name")
	if status, _, _ := ts.patchMe(t, alice, map[string]any{"display_name": "李雷 Lei"}); status != 200 {
		t.Fatalf("set display name: %d", status)
	}
	ws := ts.dialWS(t, bob, "")
	ws.ready(t)
	mid := ts.newPost(t, alice, "with my name")
	var live store.Post
	f := ws.expect(t, store.EventPost, mid)
	if err := json.Unmarshal(f.Data, &live); err != nil || live.Author.DisplayName != "李雷 Lei" {
		t.Fatalf("live post's author: %+v (%v)", live.Author, err)
	}
	var p store.Post
	ts.getJSON(t, bob, fmt.Sprintf("/api/v1/posts/%d", old), &p)
	if p.Author.DisplayName != "李雷 Lei" || p.Author.Username != "alice" {
		t.Fatalf("an older post's author: %+v", p.Author)
	}
	repost := ts.post(t, bob, "", mid)
	home := ts.page(t, bob, "/api/v1/timelines/home")
	if len(home.Items) == 0 || home.Items[0].ID != repost.ID || home.Items[0].RepostOf.Author.DisplayName != "李雷 Lei" || home.Items[0].Author.DisplayName != "" {
		t.Fatalf("home's repost: %+v", home.Items[0])
	}
	for _, q := range []string{"李", "李雷", "%E6%9D%8E%E9%9B%B7%20l", "al"} {
		if names := ts.searchNames(t, q); !slices.Equal(names, []string{"alice"}) {
			t.Errorf("search %q: %v, want alice", q, names)
		}
	}

	for i := range 12 { // the first post leaves the hot window of 10
		ts.newPost(t, alice, fmt.Sprint("filler ", i))
	}
	archiveSettled(t, ts.rdb())
	waitEvicted(t, ts.rdb(), old)
	ts.patchMe(t, alice, map[string]any{"display_name": "Han Meimei 韩梅梅"})
	ts.getJSON(t, bob, fmt.Sprintf("/api/v1/posts/%d", old), &p)
	if p.Author.DisplayName != "Han Meimei 韩梅梅" {
		t.Fatalf("an archived post's author after a rename: %+v", p.Author)
	}
	page := ts.page(t, bob, "/api/v1/users/alice/posts?limit=100")
	if n := len(page.Items); n != 14 || page.Items[n-1].ID != old || page.Items[n-1].Author.DisplayName != "Han Meimei 韩梅梅" || page.Items[0].Author.DisplayName != "Han Meimei 韩梅梅" {
		t.Fatalf("alice's posts after a rename: %d, last %+v", n, page.Items[n-1].Author)
	}
	if names := ts.searchNames(t, "han%20mei"); !slices.Equal(names, []string{"alice"}) {
		t.Errorf("search by the new name: %v", names)
	}
	if names := ts.searchNames(t, "李"); len(names) != 0 {
		t.Errorf("the old display name still finds %v", names)
	}
	if status, body := ts.call(t, "DELETE", "/api/v1/me", alice, map[string]string{"password": testPassword}); status != http.StatusNoContent {
		t.Fatalf("delete account: %d %s", status, body)
	}
	if n := ts.rdb().ZCard(context.Background(), keysOf(ts.rdb()).DisplayNames()).Val(); n != 0 {
		t.Fatalf("a deleted account leaves %d display name entries", n)
	}
}

// TestHeaderImage: PUT /api/v1/me/header takes an image as the avatar's
// route does and answers the User with header_url, served as an image;
// a second one replaces the first (whose file goes), text is 415.
func TestHeaderImage(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	status, body := ts.upload(t, "PUT", "/me/header", alice, "wide.jpg", jpegBytes(testImage(600, 200)), "")
	if status != 200 {
		t.Fatalf("header: %d %s", status, body)
	}
	var u store.User
	mustDecode(t, body, &u)
	if u.HeaderURL == nil || u.AvatarURL != nil {
		t.Fatalf("after a header: header_url %v, avatar_url %v", u.HeaderURL, u.AvatarURL)
	}
	first := *u.HeaderURL
	if resp, _ := ts.fetch(t, first); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "image/") {
		t.Fatalf("the header is served as %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ts.getJSON(t, "", "/api/v1/users/alice", &u)
	if u.HeaderURL == nil || *u.HeaderURL != first {
		t.Fatalf("profile header %v", u.HeaderURL)
	}
	ts.upload(t, "PUT", "/me/header", alice, "b.png", pngBytes(testImage(300, 100)), "")
	if resp, _ := ts.fetch(t, first); resp.StatusCode != 404 {
		t.Fatalf("the replaced header is still served: %d", resp.StatusCode)
	}
	if status, body := ts.upload(t, "PUT", "/me/header", alice, "x.txt", []byte("hello"), ""); status != 415 {
		t.Fatalf("text as header: %d %s", status, body)
	}
	if status, _ := ts.upload(t, "PUT", "/me/header", "", "b.png", pngBytes(testImage(30, 10)), ""); status != 401 {
		t.Fatalf("anonymous header: %d", status)
	}
}

// TestMastodonPyProfile: Mastodon.py sets a display name, fields and a
// header through update_credentials, and reads them back on the account
// and on a status (testdata/mastodonpy_profile.py says what it checked).
func TestMastodonPyProfile(t *testing.T) {
	parallel(t)
	const python = "/usr/bin/python3" // Debian's packages load under it alone
	if err := exec.Command(python, "-c", "import mastodon").Run(); err != nil {
		t.Fatalf("Mastodon.py is missing (%v): make deps-test installs Debian's python3-mastodon", err)
	}
	ts := newTestServer(t)
	tok, _ := ts.mastodonUser(t, "pyprofile", "")
	dir := t.TempDir()
	header := dir + "/header.png"
	if err := os.WriteFile(header, pngBytes(testImage(300, 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*hangWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "testdata/mastodonpy_profile.py")
	cmd.Env = append(os.Environ(), "BASE_URL="+ts.URL, "TOKEN="+tok, "HEADER="+header)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all done") {
		t.Fatalf("Mastodon.py: %v\n%s", err, out)
	}
	var u store.User
	ts.getJSON(t, "", "/api/v1/users/pyprofile", &u)
	if u.DisplayName != "韩梅梅" || len(u.Fields) != 2 || u.HeaderURL == nil {
		t.Fatalf("the native API after Mastodon.py: %q %v %v", u.DisplayName, u.Fields, u.HeaderURL)
	}
	t.Logf("Mastodon.py:\n%s", out)
}
