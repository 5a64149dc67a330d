package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"microblog/store"
)

// editPost edits mid as token's user and returns the Post answered.
func (ts *testServer) editPost(t testing.TB, token string, mid int64, content string) store.Post {
	t.Helper()
	status, body := ts.call(t, "PATCH", postPath(mid), token, map[string]string{"content": content})
	if status != http.StatusOK {
		t.Fatalf("edit %d: %d %s", mid, status, body)
	}
	var p store.Post
	mustDecode(t, body, &p)
	return p
}

func postPath(mid int64) string { return "/api/v1/posts/" + strconv.FormatInt(mid, 10) }

// TestAPIEdit: PATCH /posts/:id and GET /posts/:id/history as the contract
// says (§11): the author edits a post or a comment, 10 times at most; the
// Post answered and read back carries the new content and edited_at, its
// id and created_at unchanged; the history lists every version, oldest
// first; a repost shows the edit.
func TestAPIEdit(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	pid := ts.newPost(t, alice, "helo #typo")
	var orig store.Post
	ts.getJSON(t, "", postPath(pid), &orig)
	if orig.EditedAt != nil {
		t.Fatalf("a new post has edited_at %v", *orig.EditedAt)
	}

	ts.wantStatus(t, "PATCH", postPath(pid), bob, map[string]string{"content": "mine"}, 403, "not_author")
	ts.wantStatus(t, "PATCH", postPath(pid), "", map[string]string{"content": "anyone"}, 401, "unauthorized")
	ts.wantStatus(t, "PATCH", postPath(pid), alice, map[string]string{}, 400, "invalid_content")
	ts.wantStatus(t, "PATCH", postPath(pid), alice, map[string]string{"content": " "}, 400, "content_empty")
	ts.wantStatus(t, "PATCH", postPath(999999), alice, map[string]string{"content": "x"}, 404, "post_not_found")
	ts.wantStatus(t, "GET", postPath(999999)+"/history", "", nil, 404, "post_not_found")

	status, body := ts.call(t, "POST", "/api/v1/posts", bob, map[string]any{"repost_of": pid})
	if status != http.StatusCreated {
		t.Fatalf("repost: %d %s", status, body)
	}
	var rp store.Post
	mustDecode(t, body, &rp)

	e := ts.editPost(t, alice, pid, "hello #fixed")
	if e.ID != pid || e.Content != "hello #fixed" || e.CreatedAt != orig.CreatedAt || e.EditedAt == nil ||
		!slices.Equal(e.Tags, []string{"fixed"}) || e.RepostsCount != 1 {
		t.Fatalf("edited post answered as %+v", e)
	}
	var read store.Post
	ts.getJSON(t, bob, postPath(pid), &read)
	if read.Content != e.Content || read.EditedAt == nil || *read.EditedAt != *e.EditedAt {
		t.Errorf("edited post read back as %+v", read)
	}
	ts.getJSON(t, bob, postPath(rp.ID), &read)
	if read.RepostOf == nil || read.RepostOf.Content != "hello #fixed" || read.RepostOf.EditedAt == nil {
		t.Errorf("the repost shows %+v", read.RepostOf)
	}

	var hist struct {
		Items []json.RawMessage `json:"items"`
	}
	ts.getJSON(t, "", postPath(pid)+"/history", &hist)
	var versions []store.Version
	for _, raw := range hist.Items {
		var v store.Version
		mustDecode(t, raw, &v)
		var fields map[string]any
		mustDecode(t, raw, &fields)
		if len(fields) != 2 {
			t.Errorf("a version has fields %v, want content and created_at", fields)
		}
		versions = append(versions, v)
	}
	if len(versions) != 2 || versions[0].Content != "helo #typo" || versions[0].CreatedAt != orig.CreatedAt ||
		versions[1].Content != "hello #fixed" || versions[1].CreatedAt != *e.EditedAt {
		t.Fatalf("history %+v", versions)
	}

	status, body = ts.call(t, "POST", postPath(pid)+"/comments", bob, map[string]string{"content": "nice"})
	if status != http.StatusCreated {
		t.Fatalf("comment: %d %s", status, body)
	}
	var c store.Post
	mustDecode(t, body, &c)
	if ec := ts.editPost(t, bob, c.ID, "very nice"); ec.Kind != store.KindComment || ec.EditedAt == nil {
		t.Errorf("edited comment %+v", ec)
	}
	ts.wantStatus(t, "PATCH", postPath(c.ID), bob, map[string]string{"content": ""}, 400, "content_empty")

	for i := 2; i <= store.MaxEdits; i++ {
		ts.editPost(t, alice, pid, fmt.Sprintf("edit %d", i))
	}
	ts.wantStatus(t, "PATCH", postPath(pid), alice, map[string]string{"content": "one more"}, 409, "edit_limit")
	ts.getJSON(t, "", postPath(pid)+"/history", &hist)
	if len(hist.Items) != store.MaxEdits+1 {
		t.Errorf("history of %d versions, want %d", len(hist.Items), store.MaxEdits+1)
	}
}

// TestAPIEditLive: an edit goes out live as post_update, to the author's
// fans, to the fans of whoever reposted it, and a comment's to the author
// of what it answers; a user blocked by the author gets 404 for the
// history, as for the post.
func TestAPIEditLive(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	fan, _ := ts.register(t, "fan")
	bobsFan, _ := ts.register(t, "bobsfan")
	blocked, _ := ts.register(t, "blocked")
	ts.follow(t, fan, "alice", true)
	ts.follow(t, bobsFan, "bob", true)
	pid := ts.newPost(t, alice, "first words")
	if status, body := ts.call(t, "POST", "/api/v1/posts", bob, map[string]any{"repost_of": pid}); status != http.StatusCreated {
		t.Fatalf("repost: %d %s", status, body)
	}
	status, body := ts.call(t, "POST", postPath(pid)+"/comments", bob, map[string]string{"content": "a comment"})
	if status != http.StatusCreated {
		t.Fatalf("comment: %d %s", status, body)
	}
	var c store.Post
	mustDecode(t, body, &c)

	fanWS, bobsFanWS, aliceWS := ts.dialWS(t, fan, ""), ts.dialWS(t, bobsFan, ""), ts.dialWS(t, alice, "")
	for _, ws := range []*wsClient{fanWS, bobsFanWS, aliceWS} {
		ws.ready(t)
	}
	ts.editPost(t, alice, pid, "better words")
	for _, ws := range []*wsClient{fanWS, bobsFanWS} {
		f := ws.expect(t, store.EventPostUpdate, pid)
		var p store.Post
		if mustDecode(t, f.Data, &p); p.Content != "better words" || p.EditedAt == nil {
			t.Errorf("post_update frame %s", f)
		}
	}
	aliceWS.expect(t, store.EventPostUpdate, pid) // her own connections too
	ts.editPost(t, bob, c.ID, "a better comment")
	aliceWS.expect(t, store.EventPostUpdate, c.ID)

	if status, body := ts.call(t, "PUT", "/api/v1/users/blocked/block", alice, nil); status != http.StatusNoContent {
		t.Fatalf("block: %d %s", status, body)
	}
	ts.wantStatus(t, "GET", postPath(pid)+"/history", blocked, nil, 404, "post_not_found")
	ts.wantStatus(t, "GET", postPath(pid)+"/history", bob, nil, 200, "")
}

// TestRateLimitedEdits: an edit counts against the rate limit of posts.
func TestRateLimitedEdits(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=post=2/1h") // limits count in fixed windows: a minute's could end mid-test
	alice, _ := ts.register(t, "alice")
	pid := ts.newPost(t, alice, "one")
	ts.editPost(t, alice, pid, "one, edited")
	ts.wantStatus(t, "PATCH", postPath(pid), alice, map[string]string{"content": "again"}, 429, "rate_limited")
}
