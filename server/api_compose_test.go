package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// postWith creates a post with body as token's user and returns it.
func (ts *testServer) postWith(t testing.TB, token string, body map[string]any) store.Post {
	t.Helper()
	status, raw := ts.call(t, "POST", "/api/v1/posts", token, body)
	if status != http.StatusCreated {
		t.Fatalf("post %v: %d %s", body, status, raw)
	}
	var p store.Post
	mustDecode(t, raw, &p)
	return p
}

// TestAPISpoiler: a post and a comment carry a content warning of at most
// 100 characters (trimmed; 101 is 400 spoiler_too_long and stores
// nothing); it reads back everywhere, an edit changes it (or keeps it when
// not sent), search and word filters still read the content under it, and
// it survives the archive, edits of archived posts included.
func TestAPISpoiler(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	rdb := ts.rdb()
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	ts.follow(t, bob, "alice", true)

	long := strings.Repeat("警", store.MaxSpoiler+1)
	ts.wantStatus(t, "POST", "/api/v1/posts", alice, map[string]any{"content": "x", "spoiler": long}, 400, "spoiler_too_long")
	if me := ts.me(t, alice); me.PostsCount != 0 {
		t.Fatalf("a refused post was counted: posts_count %d", me.PostsCount)
	}
	p := ts.postWith(t, alice, map[string]any{"content": "the ending: rosebud was the sled", "spoiler": "  film spoilers  "})
	if p.Spoiler != "film spoilers" {
		t.Fatalf("spoiler answered %q, want it trimmed", p.Spoiler)
	}
	full := ts.postWith(t, alice, map[string]any{"content": "at the limit", "spoiler": long[:len(long)-len("警")]})
	plain := ts.postWith(t, alice, map[string]any{"content": "nothing to hide"})
	_, raw0 := ts.call(t, "GET", postPath(plain.ID), "", nil)
	if plain.Spoiler != "" || !strings.Contains(string(raw0), `"spoiler":""`) {
		t.Fatalf("a post without a warning: %+v", plain)
	}
	c := ts.comment(t, bob, p.ID, "no way")
	status, raw := ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", p.ID), bob, map[string]any{"content": "it was", "spoiler": "more spoilers"})
	var cw store.Post
	if mustDecode(t, raw, &cw); status != http.StatusCreated || cw.Spoiler != "more spoilers" {
		t.Fatalf("comment with a warning: %d %s", status, raw)
	}
	_ = c

	var got store.Post
	ts.getJSON(t, "", postPath(p.ID), &got)
	if got.Spoiler != "film spoilers" || got.Content != p.Content {
		t.Fatalf("read back: %+v", got)
	}
	home := ts.page(t, bob, "/api/v1/timelines/home")
	if len(home.Items) < 3 || home.Items[2].ID != p.ID || home.Items[2].Spoiler != "film spoilers" || home.Items[1].ID != full.ID || len([]rune(home.Items[1].Spoiler)) != store.MaxSpoiler {
		t.Fatalf("bob's home: %+v", home.Items)
	}

	// Word filters and search read the content, not the warning.
	ts.wantStatus(t, "PUT", "/api/v1/me/filters", bob, map[string]any{"words": []string{"rosebud"}}, 200, "")
	for _, it := range ts.page(t, bob, "/api/v1/timelines/home").Items {
		if it.ID == p.ID && !it.Filtered { // folded behind "hidden by a filter" is what a filter does
			t.Fatal("a filtered word under a warning still shows")
		}
	}
	archiveSettled(t, rdb)
	if found := ts.searchIDs(t, alice, "rosebud", 20); len(found) != 1 || found[0] != p.ID {
		t.Fatalf("search under a warning found %v, want %d", found, p.ID)
	}

	// Edits: content alone keeps the warning; spoiler changes or clears it.
	e := ts.editPost(t, alice, p.ID, "the ending: it was a sled")
	if e.Spoiler != "film spoilers" {
		t.Fatalf("an edit of the content dropped the warning: %q", e.Spoiler)
	}
	ts.wantStatus(t, "PATCH", postPath(p.ID), alice, map[string]any{"content": "x", "spoiler": long}, 400, "spoiler_too_long")
	status, raw = ts.call(t, "PATCH", postPath(p.ID), alice, map[string]any{"content": "the ending: it was a sled", "spoiler": "Citizen Kane"})
	if mustDecode(t, raw, &e); status != 200 || e.Spoiler != "Citizen Kane" || e.Content != "the ending: it was a sled" {
		t.Fatalf("edit of the warning alone: %d %s", status, raw)
	}
	status, raw = ts.call(t, "PATCH", postPath(plain.ID), alice, map[string]any{"content": "nothing to hide", "spoiler": "now hidden"})
	if mustDecode(t, raw, &e); status != 200 || e.Spoiler != "now hidden" {
		t.Fatalf("a warning added by an edit: %d %s", status, raw)
	}

	// The archive keeps it: ten more posts push these out of Redis.
	for i := range 12 {
		ts.newPost(t, alice, fmt.Sprint("filler ", i))
	}
	archiveSettled(t, rdb)
	if rdb.Exists(context.Background(), keysOf(rdb).Post(p.ID)).Val() != 0 {
		t.Fatal("the post's hash is still in Redis")
	}
	ts.getJSON(t, "", postPath(p.ID), &got)
	if got.Spoiler != "Citizen Kane" || got.Content != "the ending: it was a sled" {
		t.Fatalf("from the archive: spoiler %q content %q", got.Spoiler, got.Content)
	}
	ts.getJSON(t, "", postPath(full.ID), &got)
	if len([]rune(got.Spoiler)) != store.MaxSpoiler {
		t.Fatalf("100 characters from the archive: %q", got.Spoiler)
	}
	status, raw = ts.call(t, "PATCH", postPath(p.ID), alice, map[string]any{"content": "the ending: it was a sled", "spoiler": ""})
	if mustDecode(t, raw, &e); status != 200 || e.Spoiler != "" {
		t.Fatalf("clearing an archived post's warning: %d %s", status, raw)
	}
	ts.getJSON(t, "", postPath(p.ID), &got)
	if got.Spoiler != "" {
		t.Fatalf("an archived post's warning after clearing: %q", got.Spoiler)
	}
}

// TestAPINineImages: a post carries 9 images, each with its blurhash and
// description, in order; 10 are 400 invalid_media and store nothing.
func TestAPINineImages(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	var ids []int64
	for i := range 10 {
		status, raw := ts.upload(t, "POST", "/media", alice, "p.png", pngBytes(testImage(40+i, 30)), fmt.Sprint("picture ", i))
		var m store.Media
		if mustDecode(t, raw, &m); status != http.StatusCreated {
			t.Fatalf("upload %d: %d %s", i, status, raw)
		}
		ids = append(ids, m.ID)
	}
	ts.wantStatus(t, "POST", "/api/v1/posts", alice, map[string]any{"content": "ten", "media_ids": ids}, 400, "invalid_media")
	if me := ts.me(t, alice); me.PostsCount != 0 {
		t.Fatalf("a refused post was counted: posts_count %d", me.PostsCount)
	}
	p := ts.postWith(t, alice, map[string]any{"content": "九宫格", "media_ids": ids[:9]})
	if len(p.Media) != 9 {
		t.Fatalf("%d images, want 9", len(p.Media))
	}
	var got store.Post
	ts.getJSON(t, "", postPath(p.ID), &got)
	for i, m := range got.Media {
		if m.ID != ids[i] || m.Blurhash == "" || m.Alt != fmt.Sprint("picture ", i) {
			t.Fatalf("image %d read back: %+v", i, m)
		}
	}
}

// TestAPIRepostState: Post.reposted tells each reader whether it reposted
// the post (null when anonymous), on the post, the repost and the
// timelines; DELETE /posts/:id/repost (by the post or the repost) undoes
// it, 204 and idempotent, and the count goes down live; the post may be
// reposted again; a post the caller may not see is 404 post_not_found.
func TestAPIRepostState(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	ts.follow(t, bob, "alice", true)
	mid := ts.newPost(t, alice, "worth passing on")
	path := postPath(mid)
	ws := ts.dialWS(t, alice, "")
	ws.ready(t)

	reposted := func(token string, id int64) *bool {
		t.Helper()
		var p store.Post
		ts.getJSON(t, token, postPath(id), &p)
		return p.Reposted
	}
	if r := reposted(bob, mid); r == nil || *r {
		t.Fatalf("before: bob's reposted %v, want false", r)
	}
	rp := ts.repost(t, bob, mid)
	ts.wantStatus(t, "POST", "/api/v1/posts", bob, map[string]any{"repost_of": mid}, 409, "already_reposted")
	for _, id := range []int64{mid, rp} {
		if r := reposted(bob, id); r == nil || !*r {
			t.Fatalf("bob's reposted of %d: %v, want true", id, r)
		}
		if r := reposted(carol, id); r == nil || *r {
			t.Fatalf("carol's reposted of %d: %v, want false", id, r)
		}
		if r := reposted("", id); r != nil {
			t.Fatalf("anonymous reposted of %d: %v, want null", id, *r)
		}
	}
	home := ts.page(t, bob, "/api/v1/timelines/home")
	if len(home.Items) != 2 || home.Items[0].ID != rp || !*home.Items[0].Reposted || !*home.Items[0].RepostOf.Reposted || !*home.Items[1].Reposted {
		t.Fatalf("bob's home: %+v", home.Items)
	}

	ts.wantStatus(t, "DELETE", path+"/repost", "", nil, 401, "unauthorized")
	ts.wantStatus(t, "DELETE", path+"/repost", carol, nil, 204, "") // none to undo
	for range 2 {
		ts.wantStatus(t, "DELETE", path+"/repost", bob, nil, 204, "")
	}
	var p store.Post
	ts.getJSON(t, bob, path, &p)
	if p.RepostsCount != 0 || p.Reposted == nil || *p.Reposted {
		t.Fatalf("after undo: reposts_count %d reposted %v", p.RepostsCount, p.Reposted)
	}
	ts.wantStatus(t, "GET", postPath(rp), bob, nil, 404, "post_not_found")
	if ids := ts.pageIDs(t, bob, "/api/v1/users/bob/posts"); len(ids) != 0 {
		t.Fatalf("bob's posts after undo: %v", ids)
	}
	// Alice's page heard the count go up and down again.
	var counts store.CountsData
	for deadline, up := time.Now().Add(hangWait), false; !up || counts.RepostsCount != 0; {
		f := ws.Next(t, time.Until(deadline))
		if f.Event == store.EventCounts {
			mustDecode(t, f.Data, &counts)
			up = up || counts.RepostsCount == 1
		}
	}

	// Again, undone through the repost's own id this time.
	rp = ts.repost(t, bob, mid)
	ts.wantStatus(t, "DELETE", postPath(rp)+"/repost", bob, nil, 204, "")
	if r := reposted(bob, mid); *r {
		t.Fatal("undone by the repost's id: still reposted")
	}

	// A post bob may not see is not found, reposted or not.
	ts.repost(t, bob, mid)
	ts.wantStatus(t, "PUT", "/api/v1/users/bob/block", alice, nil, 204, "")
	ts.wantStatus(t, "DELETE", path+"/repost", bob, nil, 404, "post_not_found")
	ts.wantStatus(t, "DELETE", postPath(999999)+"/repost", bob, nil, 404, "post_not_found")
}
