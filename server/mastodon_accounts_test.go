package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"microblog/server/mastodon"
	"microblog/store"
)

// mastodonForm sends a multipart form of fields, and file in the part
// fileField unless that is "", and answers the status and body.
func (ts *testServer) mastodonForm(t testing.TB, method, path, token string, fields map[string]string, fileField string, file []byte) (int, []byte) {
	t.Helper()
	return ts.multipart(t, method, path, token, fields, fileField, "picture.png", file)
}

// multipart sends a multipart form of fields, and file (named filename)
// in the part fileField unless that is "", and answers the status and
// body.
func (ts *testServer) multipart(t testing.TB, method, path, token string, fields map[string]string, fileField, filename string, file []byte) (int, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if fileField != "" {
		fw, _ := mw.CreateFormFile(fileField, filename)
		fw.Write(file)
	}
	mw.Close()
	req, _ := http.NewRequest(method, ts.URL+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// mastodonError calls the API, wants status, and wants Mastodon's error
// body: {"error": "..."} and nothing of the native one.
func (ts *testServer) mastodonError(t testing.TB, method, path, token string, body any, status int) string {
	t.Helper()
	got, b := ts.call(t, method, path, token, body)
	if got != status {
		t.Fatalf("%s %s: %d %s, want %d", method, path, got, b, status)
	}
	var e map[string]any
	mustDecode(t, b, &e)
	msg, ok := e["error"].(string)
	if !ok || msg == "" {
		t.Fatalf("%s %s: error body %s", method, path, b)
	}
	if _, native := e["error"].(map[string]any); native {
		t.Fatalf("%s %s: a native error body %s", method, path, b)
	}
	return msg
}

// mastodonPages follows the next links of a list from path to its end and
// answers every item's id, failing on a repeated one.
func (ts *testServer) mastodonPages(t testing.TB, path, token string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	for pages := 0; path != ""; pages++ {
		if pages > 50 {
			t.Fatalf("more than 50 pages at %s", path)
		}
		var items []struct {
			ID string `json:"id"`
		}
		resp := ts.mastodonJSON(t, "GET", path, token, nil, &items)
		for _, it := range items {
			if seen[it.ID] {
				t.Fatalf("%s: id %s again", path, it.ID)
			}
			seen[it.ID] = true
			ids = append(ids, it.ID)
		}
		path = nextLink(t, resp.Header.Get("Link"), "next")
		if len(items) == 0 {
			break
		}
	}
	return ids
}

func sid(id int64) string { return strconv.FormatInt(id, 10) }

// The caller's own account, any account by id, name or prefix: Mastodon's
// shapes, ids as strings, and Record not found for ids that name nothing.
func TestMastodonAccountLookups(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ADMINS=root")
	tok, uid := ts.mastodonUser(t, "alice", "")
	_, bid := ts.mastodonUser(t, "bobby", "")
	rootTok, _ := ts.mastodonUser(t, "root", "")

	var raw map[string]any
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", tok, nil, &raw)
	for _, f := range []string{"id", "username", "acct", "display_name", "locked", "created_at", "note", "url", "avatar",
		"header", "followers_count", "following_count", "statuses_count", "emojis", "fields", "source", "role"} {
		if _, ok := raw[f]; !ok {
			t.Errorf("verify_credentials has no %s: %v", f, raw)
		}
	}
	var me mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", tok, nil, &me)
	if me.ID != sid(uid) || me.Username != "alice" || me.Source == nil || me.Source.Privacy != "public" ||
		me.Source.Fields == nil || me.Role == nil || me.Role.Permissions == "1" {
		t.Fatalf("verify_credentials: %+v %+v %+v", me, me.Source, me.Role)
	}
	var root mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", rootTok, nil, &root)
	if root.Role == nil || root.Role.Permissions != "1" {
		t.Fatalf("an operator's role: %+v", root.Role)
	}

	var bob mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/"+sid(bid), "", nil, &bob)
	if bob.ID != sid(bid) || bob.Acct != "bobby" || bob.Source != nil {
		t.Fatalf("account: %+v", bob)
	}
	var found mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/lookup?acct=@bobby", tok, nil, &found)
	if found.ID != sid(bid) {
		t.Fatalf("lookup: %+v", found)
	}
	var hits []mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/search?q=bob", tok, nil, &hits)
	if len(hits) != 1 || hits[0].ID != sid(bid) {
		t.Fatalf("search: %+v", hits)
	}
	for _, path := range []string{"/api/v1/accounts/999999", "/api/v1/accounts/abc", "/api/v1/accounts/-1/statuses",
		"/api/v1/accounts/lookup?acct=nobody", "/api/v1/accounts/999999/followers"} {
		if msg := ts.mastodonError(t, "GET", path, tok, nil, http.StatusNotFound); msg != "Record not found" {
			t.Errorf("%s: %q", path, msg)
		}
	}
	ts.mastodonError(t, "GET", "/api/v1/accounts/verify_credentials", "", nil, http.StatusUnauthorized)
	ts.mastodonError(t, "GET", "/api/v1/accounts/verify_credentials", mastodon.TokenPrefix+"nope", nil, http.StatusUnauthorized)
}

// update_credentials changes what the native API shows: the note is the
// bio, locked the protection, the avatar the avatar; from JSON, a form or
// a multipart form.
func TestMastodonUpdateCredentials(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.mastodonUser(t, "alice", "")
	var acct mastodon.Account
	ts.mastodonJSON(t, "PATCH", "/api/v1/accounts/update_credentials", tok, map[string]any{"note": "hello <there>", "locked": true}, &acct)
	if !acct.Locked || acct.Source.Note != "hello <there>" || acct.Source.Privacy != "private" || acct.Note != "<p>hello &lt;there&gt;</p>" {
		t.Fatalf("after JSON: %+v %+v", acct, acct.Source)
	}
	var native store.User
	ts.getJSON(t, "", "/api/v1/users/alice", &native)
	if native.Bio != "hello <there>" || !native.Protected {
		t.Fatalf("native after JSON: %+v", native)
	}

	resp := ts.do(t, "PATCH", "/api/v1/accounts/update_credentials", tok, "locked=false&note=plain", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	resp.Body.Close()
	ts.getJSON(t, "", "/api/v1/users/alice", &native)
	if resp.StatusCode != http.StatusOK || native.Bio != "plain" || native.Protected {
		t.Fatalf("native after a form: %d %+v", resp.StatusCode, native)
	}

	status, body := ts.mastodonForm(t, "PATCH", "/api/v1/accounts/update_credentials", tok, map[string]string{"note": "with a face"}, "avatar", pngBytes(testImage(40, 30)))
	if status != http.StatusOK {
		t.Fatalf("multipart: %d %s", status, body)
	}
	mustDecode(t, body, &acct)
	ts.getJSON(t, "", "/api/v1/users/alice", &native)
	if native.AvatarURL == nil || native.Bio != "with a face" || !strings.HasSuffix(acct.Avatar, *native.AvatarURL) {
		t.Fatalf("native after multipart: %+v, account avatar %s", native, acct.Avatar)
	}
	if r, _ := ts.fetch(t, *native.AvatarURL); r.StatusCode != http.StatusOK {
		t.Fatalf("the avatar: %d", r.StatusCode)
	}

	ts.mastodonError(t, "PATCH", "/api/v1/accounts/update_credentials", tok, map[string]any{"note": strings.Repeat("x", store.MaxBio+1)}, http.StatusUnprocessableEntity)
	ts.mastodonError(t, "PATCH", "/api/v1/accounts/update_credentials", tok, "[1,", http.StatusUnprocessableEntity)
}
