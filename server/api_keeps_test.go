package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// pinned lists the pinned posts of user name as token sees them, checking
// the answer is {"items": [...]} and nothing else.
func (ts *testServer) pinned(t testing.TB, token, name string) []store.Post {
	t.Helper()
	status, b := ts.call(t, "GET", "/api/v1/users/"+name+"/pinned", token, nil)
	if status != http.StatusOK {
		t.Fatalf("pinned of %s: %d %s", name, status, b)
	}
	var raw map[string]json.RawMessage
	mustDecode(t, b, &raw)
	if _, ok := raw["items"]; !ok || len(raw) != 1 || string(raw["items"]) == "null" {
		t.Fatalf("pinned of %s: %s, want {\"items\": [...]}", name, b)
	}
	var out struct{ Items []store.Post }
	mustDecode(t, b, &out)
	return out.Items
}

// bookmarks pages through token's bookmarks, limit at a time.
func (ts *testServer) bookmarks(t testing.TB, token string, limit int) []int64 {
	t.Helper()
	var out []int64
	for path := fmt.Sprintf("/api/v1/me/bookmarks?limit=%d", limit); ; {
		page := ts.page(t, token, path)
		out = append(out, ids(page.Items)...)
		if page.NextCursor == nil {
			return out
		}
		path = fmt.Sprintf("/api/v1/me/bookmarks?limit=%d&cursor=%s", limit, *page.NextCursor)
	}
}

// keepFlags are pinned and bookmarked of post mid as token reads it, as
// JSON: "true", "false" or "null".
func (ts *testServer) keepFlags(t testing.TB, token string, mid int64) (pinned, bookmarked string) {
	t.Helper()
	status, b := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", mid), token, nil)
	if status != http.StatusOK {
		t.Fatalf("GET post %d: %d %s", mid, status, b)
	}
	var raw map[string]json.RawMessage
	mustDecode(t, b, &raw)
	return string(raw["pinned"]), string(raw["bookmarked"])
}

// TestPinsAPI: PUT and DELETE /posts/:id/pin by the author, at most 5 (the
// sixth is 409 pin_limit and writes nothing), GET /users/:username/pinned
// newest pin first, pinned on every Post for signed-in readers and null for
// anonymous ones, and a deleted pin leaving the list.
func TestPinsAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	rdb, k := ts.rdb(), keysOf(ts.rdb())
	alice, aliceID := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	var p []int64
	for i := range store.MaxPins + 2 {
		p = append(p, ts.post(t, alice, fmt.Sprint("post ", i), 0).ID)
	}
	pin := func(mid int64) string { return fmt.Sprintf("/api/v1/posts/%d/pin", mid) }
	for _, mid := range p[:store.MaxPins] {
		ts.wantStatus(t, "PUT", pin(mid), alice, nil, 204, "")
		time.Sleep(2 * time.Millisecond) // each pin its own millisecond
	}
	ts.wantStatus(t, "PUT", pin(p[0]), alice, nil, 204, "") // again: idempotent, even when full
	ts.wantStatus(t, "PUT", pin(p[store.MaxPins]), alice, nil, 409, "pin_limit")
	if n := rdb.ZCard(context.Background(), k.Pinned(aliceID)).Val(); n != store.MaxPins {
		t.Fatalf("%d pins after a refused one, want %d", n, store.MaxPins)
	}
	want := slices.Clone(p[:store.MaxPins])
	slices.Reverse(want)
	if got := ids(ts.pinned(t, "", "alice")); !slices.Equal(got, want) {
		t.Fatalf("pinned %v, want %v (newest pin first)", got, want)
	}

	c := ts.comment(t, alice, p[0], "a comment")
	ts.wantStatus(t, "PUT", pin(p[store.MaxPins+1]), bob, nil, 403, "not_yours")
	ts.wantStatus(t, "PUT", pin(c.ID), alice, nil, 400, "bad_request")
	ts.wantStatus(t, "PUT", pin(1<<40), alice, nil, 404, "post_not_found")
	ts.wantStatus(t, "PUT", "/api/v1/posts/abc/pin", alice, nil, 404, "post_not_found")
	ts.wantStatus(t, "PUT", pin(p[0]), "", nil, 401, "unauthorized")
	ts.wantStatus(t, "GET", "/api/v1/users/nobody/pinned", "", nil, 404, "user_not_found")

	if pinned, saved := ts.keepFlags(t, bob, p[0]); pinned != "true" || saved != "false" {
		t.Fatalf("a pinned post read by bob: pinned %s bookmarked %s", pinned, saved)
	}
	if pinned, _ := ts.keepFlags(t, bob, p[store.MaxPins]); pinned != "false" {
		t.Fatalf("a post not pinned read by bob: pinned %s", pinned)
	}
	if pinned, saved := ts.keepFlags(t, "", p[0]); pinned != "null" || saved != "null" {
		t.Fatalf("read anonymously: pinned %s bookmarked %s, want null", pinned, saved)
	}
	for _, post := range ts.page(t, bob, "/api/v1/users/alice/posts").Items {
		if post.Pinned == nil || *post.Pinned != slices.Contains(want, post.ID) {
			t.Errorf("alice's posts read by bob: %d pinned %v", post.ID, post.Pinned)
		}
	}
	for _, post := range ts.pinned(t, bob, "alice") {
		if post.Pinned == nil || !*post.Pinned {
			t.Errorf("alice's pinned posts read by bob: %d pinned %v", post.ID, post.Pinned)
		}
	}

	ts.wantStatus(t, "DELETE", pin(p[1]), alice, nil, 204, "")
	ts.wantStatus(t, "DELETE", pin(p[1]), alice, nil, 204, "")
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", p[2]), alice, nil, 204, "")
	want = []int64{p[4], p[3], p[0]}
	if got := ids(ts.pinned(t, bob, "alice")); !slices.Equal(got, want) {
		t.Fatalf("pinned after an unpin and a delete %v, want %v", got, want)
	}
	// The places are free again.
	ts.wantStatus(t, "PUT", pin(p[store.MaxPins]), alice, nil, 204, "")
	ts.wantStatus(t, "PUT", pin(p[store.MaxPins+1]), alice, nil, 204, "")
}

// TestPinnedSafetyAPI: a blocked reader sees no pins; a protected author's
// pins are for its approved fans.
func TestPinnedSafetyAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	mid := ts.post(t, alice, "pinned", 0).ID
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/pin", mid), alice, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/bob/block", alice, nil, 204, "")
	if got := ts.pinned(t, bob, "alice"); len(got) != 0 {
		t.Fatalf("a blocked reader sees pins %v", ids(got))
	}
	ts.wantStatus(t, "DELETE", "/api/v1/users/bob/block", alice, nil, 204, "")
	ts.wantStatus(t, "PATCH", "/api/v1/me", alice, map[string]bool{"protected": true}, 200, "")
	if got := ts.pinned(t, "", "alice"); len(got) != 0 {
		t.Fatalf("a protected author's pins seen anonymously: %v", ids(got))
	}
	if got := ts.pinned(t, bob, "alice"); len(got) != 0 {
		t.Fatalf("a protected author's pins seen by another: %v", ids(got))
	}
	if got := ts.pinned(t, alice, "alice"); len(got) != 1 {
		t.Fatalf("a protected author's own pins: %v", ids(got))
	}
}

// TestBookmarksAPI: PUT and DELETE /posts/:id/bookmark are idempotent and
// private, GET /me/bookmarks pages them newest bookmark first, and a
// deleted post leaves them; what the caller may not open cannot be saved.
func TestBookmarksAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	var p []int64
	for i := range 4 {
		p = append(p, ts.post(t, alice, fmt.Sprint("post ", i), 0).ID)
	}
	c := ts.comment(t, carol, p[0], "a comment").ID
	mark := func(mid int64) string { return fmt.Sprintf("/api/v1/posts/%d/bookmark", mid) }
	for _, mid := range []int64{p[2], p[0], c, p[3]} {
		ts.wantStatus(t, "PUT", mark(mid), bob, nil, 204, "")
		ts.wantStatus(t, "PUT", mark(mid), bob, nil, 204, "")
		time.Sleep(2 * time.Millisecond)
	}
	want := []int64{p[3], c, p[0], p[2]}
	for _, limit := range []int{1, 3, 20} {
		if got := ts.bookmarks(t, bob, limit); !slices.Equal(got, want) {
			t.Fatalf("bookmarks %d at a time: %v, want %v", limit, got, want)
		}
	}
	if got := ts.bookmarks(t, carol, 20); len(got) != 0 {
		t.Fatalf("carol's bookmarks %v", got)
	}
	if _, saved := ts.keepFlags(t, bob, p[0]); saved != "true" {
		t.Fatalf("bob's bookmark read by bob: %s", saved)
	}
	if _, saved := ts.keepFlags(t, carol, p[0]); saved != "false" {
		t.Fatalf("bob's bookmark read by carol: %s, want false", saved)
	}
	for _, post := range ts.page(t, carol, "/api/v1/timelines/public").Items {
		if post.Bookmarked == nil || *post.Bookmarked {
			t.Errorf("the public timeline read by carol: %d bookmarked %v", post.ID, post.Bookmarked)
		}
	}
	ts.wantStatus(t, "GET", "/api/v1/me/bookmarks", "", nil, 401, "unauthorized")
	ts.wantStatus(t, "PUT", mark(p[0]), "", nil, 401, "unauthorized")
	ts.wantStatus(t, "PUT", mark(1<<40), bob, nil, 404, "post_not_found")
	ts.wantStatus(t, "GET", "/api/v1/me/bookmarks?cursor=nonsense", bob, nil, 400, "invalid_cursor")

	ts.wantStatus(t, "DELETE", mark(p[2]), bob, nil, 204, "")
	ts.wantStatus(t, "DELETE", mark(p[2]), bob, nil, 204, "")
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", p[3]), alice, nil, 204, "")
	if got, want := ts.bookmarks(t, bob, 20), []int64{c, p[0]}; !slices.Equal(got, want) {
		t.Fatalf("bookmarks after an unbookmark and a delete %v, want %v", got, want)
	}
	// Deleting the post of a thread takes its comments out too.
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", p[0]), alice, nil, 204, "")
	if got := ts.bookmarks(t, bob, 20); len(got) != 0 {
		t.Fatalf("bookmarks after deleting the thread %v", got)
	}

	// A protected author's post cannot be saved by who may not see it.
	ts.wantStatus(t, "PATCH", "/api/v1/me", alice, map[string]bool{"protected": true}, 200, "")
	ts.wantStatus(t, "PUT", mark(p[1]), carol, nil, 404, "post_not_found")
}

// TestKeepsArchivedAPI: with a hot window of 10, a pinned and bookmarked
// post that has left Redis is still listed, read from the archive.
func TestKeepsArchivedAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	rdb := ts.rdb()
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	old := ts.post(t, alice, "an old post", 0).ID
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/pin", old), alice, nil, 204, "")
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/bookmark", old), bob, nil, 204, "")
	for i := range 30 {
		ts.post(t, alice, fmt.Sprint("post ", i), 0)
	}
	archiveSettled(t, rdb)
	if rdb.Exists(context.Background(), keysOf(rdb).Post(old)).Val() != 0 {
		t.Fatal("the old post's hash is still in Redis")
	}
	page := ts.page(t, bob, "/api/v1/me/bookmarks")
	if len(page.Items) != 1 || page.Items[0].Content != "an old post" || !yes(page.Items[0].Pinned) || !yes(page.Items[0].Bookmarked) {
		t.Fatalf("bookmarks of an archived post: %+v", page.Items)
	}
	if got := ts.pinned(t, bob, "alice"); len(got) != 1 || !strings.Contains(got[0].Content, "old") {
		t.Fatalf("pins of an archived post: %+v", got)
	}
}

// yes tells whether a flag of the contract is set and true.
func yes(b *bool) bool { return b != nil && *b }
