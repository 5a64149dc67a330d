package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"microblog/store"
)

// post creates a post as token and returns it.
func (ts *testServer) post(t testing.TB, token, content string, repostOf int64) store.Post {
	t.Helper()
	body := map[string]any{"content": content}
	if repostOf != 0 {
		body["repost_of"] = repostOf
	}
	status, b := ts.call(t, "POST", "/api/v1/posts", token, body)
	if status != 201 {
		t.Fatalf("post %q: %d %s", content, status, b)
	}
	var p store.Post
	mustDecode(t, b, &p)
	return p
}

// page GETs a Page of Post.
func (ts *testServer) page(t testing.TB, token, path string) store.Page[store.Post] {
	t.Helper()
	status, b := ts.call(t, "GET", path, token, nil)
	if status != 200 {
		t.Fatalf("GET %s: %d %s", path, status, b)
	}
	var p store.Page[store.Post]
	mustDecode(t, b, &p)
	return p
}

func ids(posts []store.Post) []int64 {
	out := make([]int64, len(posts))
	for i, p := range posts {
		out[i] = p.ID
	}
	return out
}

func TestFollowPostRepostCommentDelete(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	rdb := ts.rdb()
	k := keysOf(rdb)
	ctx := context.Background()
	alice, aliceID := ts.register(t, "alice")
	bob, bobID := ts.register(t, "bob")

	early := ts.post(t, alice, "before bob followed", 0)
	if status, _ := ts.call(t, "PUT", "/api/v1/users/alice/follow", bob, nil); status != 204 {
		t.Fatalf("follow: %d", status)
	}
	if status, _ := ts.call(t, "PUT", "/api/v1/users/alice/follow", bob, nil); status != 204 {
		t.Fatalf("follow again is not idempotent: %d", status)
	}
	if status, body := ts.call(t, "PUT", "/api/v1/users/bob/follow", bob, nil); status != 400 || errorCode(t, body) != "cannot_follow_self" {
		t.Fatalf("follow self: %d %s", status, body)
	}
	// Following brought alice's earlier post into bob's home timeline.
	if got := ids(ts.page(t, bob, "/api/v1/timelines/home").Items); fmt.Sprint(got) != fmt.Sprint([]int64{early.ID}) {
		t.Fatalf("bob's home after follow = %v", got)
	}

	p := ts.post(t, alice, "hello from alice", 0)
	if p.Kind != "post" || p.Author.ID != aliceID || p.Author.Username != "alice" || p.RepostOf != nil || p.ParentID != nil {
		t.Fatalf("post = %+v", p)
	}
	home := ts.page(t, bob, "/api/v1/timelines/home")
	if len(home.Items) != 2 || home.Items[0].ID != p.ID || home.Items[0].Content != "hello from alice" {
		t.Fatalf("bob's home = %+v", home.Items)
	}

	// The A–G keys of the paper are all there.
	mid := fmt.Sprint(p.ID)
	msg := rdb.HGetAll(ctx, k.Post(p.ID)).Val()
	if msg["content"] != "hello from alice" || msg["author"] != fmt.Sprint(aliceID) || msg["username"] != "alice" || msg["kind"] != "post" || msg["time"] == "" {
		t.Errorf("B:%s = %v", mid, msg)
	}
	if rdb.Get(ctx, k.PublicTime(p.ID)).Val() != msg["time"] {
		t.Errorf("D key missing")
	}
	if rdb.Get(ctx, k.Author(p.ID)).Val() != fmt.Sprint(aliceID) {
		t.Errorf("E key missing")
	}
	settle(t, rdb) // bob's G gets the post from a fan-out job
	for _, key := range []string{k.UserPosts(aliceID), k.Home(aliceID), k.Home(bobID), k.PublicTimeline()} {
		if score, err := rdb.ZScore(ctx, key, mid).Result(); err != nil || score != float64(p.ID) {
			t.Errorf("%s lacks %s (score %v, err %v)", key, mid, score, err)
		}
	}
	if _, err := rdb.ZScore(ctx, k.Fans(aliceID), fmt.Sprint(bobID)).Result(); err != nil {
		t.Errorf("A fans set lacks bob: %v", err)
	}
	if _, err := rdb.ZScore(ctx, k.Stars(bobID), fmt.Sprint(aliceID)).Result(); err != nil {
		t.Errorf("A lover set lacks alice: %v", err)
	}

	// Reposts: a repost of a repost points at the original.
	carol, _ := ts.register(t, "carol")
	r1 := ts.post(t, bob, "worth reading", p.ID)
	r2 := ts.post(t, carol, "", r1.ID)
	if r1.RepostOf == nil || r1.RepostOf.ID != p.ID || r2.RepostOf == nil || r2.RepostOf.ID != p.ID || r2.RepostOf.Content != "hello from alice" {
		t.Fatalf("reposts point at %+v and %+v, want the original %d", r1.RepostOf, r2.RepostOf, p.ID)
	}

	// Comments, and a comment on a comment.
	c1 := ts.comment(t, bob, p.ID, "nice post")
	c2 := ts.comment(t, alice, c1.ID, "thanks bob")
	if c1.Kind != "comment" || *c1.ParentID != p.ID || *c2.ParentID != c1.ID {
		t.Fatalf("comments = %+v %+v", c1, c2)
	}
	if got := rdb.ZRange(ctx, k.Comments(p.ID), 0, -1).Val(); fmt.Sprint(got) != fmt.Sprintf("[%d]", c1.ID) {
		t.Errorf("C:%s = %v", mid, got)
	}
	if got := ids(ts.page(t, "", fmt.Sprintf("/api/v1/posts/%d/comments", c1.ID)).Items); fmt.Sprint(got) != fmt.Sprintf("[%d]", c2.ID) {
		t.Errorf("comments on the comment = %v", got)
	}
	var got store.Post
	_, b := ts.call(t, "GET", "/api/v1/posts/"+mid, "", nil)
	mustDecode(t, b, &got)
	if got.CommentsCount != 1 || got.RepostsCount != 2 {
		t.Errorf("counters = %d comments, %d reposts; want 1, 2", got.CommentsCount, got.RepostsCount)
	}
	// Comments stay out of the timelines.
	for _, it := range ts.page(t, alice, "/api/v1/timelines/home").Items {
		if it.Kind != "post" {
			t.Errorf("home timeline holds a %s", it.Kind)
		}
	}

	// Deleting a comment fixes its parent's counter.
	if status, _ := ts.call(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", c2.ID), alice, nil); status != 204 {
		t.Fatalf("delete comment: %d", status)
	}
	_, b = ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", c1.ID), "", nil)
	mustDecode(t, b, &got)
	if got.CommentsCount != 0 {
		t.Errorf("comment counter after delete = %d", got.CommentsCount)
	}

	// Only the author deletes.
	if status, body := ts.call(t, "DELETE", "/api/v1/posts/"+mid, bob, nil); status != 403 || errorCode(t, body) != "not_author" {
		t.Fatalf("delete someone else's post: %d %s", status, body)
	}
	if status, _ := ts.call(t, "DELETE", "/api/v1/posts/"+mid, alice, nil); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if status, _ := ts.call(t, "GET", "/api/v1/posts/"+mid, "", nil); status != 404 {
		t.Fatalf("deleted post still readable: %d", status)
	}
	// The hash stays as a tombstone until the archive has the delete too;
	// the fans' G sets are cleaned by a fan-out job.
	archiveSettled(t, rdb)
	for _, key := range []string{k.Post(p.ID), k.PublicTime(p.ID), k.Author(p.ID), k.Comments(p.ID)} {
		if rdb.Exists(ctx, key).Val() != 0 {
			t.Errorf("%s survived the delete", key)
		}
	}
	for _, key := range []string{k.UserPosts(aliceID), k.Home(bobID), k.PublicTimeline()} {
		if _, err := rdb.ZScore(ctx, key, mid).Result(); err == nil {
			t.Errorf("%s still points at the deleted post", key)
		}
	}
	// A repost of a deleted post says so.
	_, b = ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", r1.ID), "", nil)
	mustDecode(t, b, &got)
	if got.RepostOf == nil || got.RepostOf.ID != p.ID || !got.RepostOf.Deleted {
		t.Fatalf("repost of a deleted post = %s", b)
	}
	// Its thread went with it.
	if status, _ := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", c1.ID), "", nil); status != 404 {
		t.Fatalf("a comment of a deleted post by id: %d, want 404", status)
	}

	// Unfollowing takes alice's posts out of bob's home timeline.
	if status, _ := ts.call(t, "DELETE", "/api/v1/users/alice/follow", bob, nil); status != 204 {
		t.Fatalf("unfollow: %d", status)
	}
	for _, it := range ts.page(t, bob, "/api/v1/timelines/home").Items {
		if it.Author.ID == aliceID {
			t.Errorf("alice's post %d still on bob's home after unfollow", it.ID)
		}
	}
	if status, _ := ts.call(t, "DELETE", "/api/v1/users/alice/follow", bob, nil); status != 204 {
		t.Fatalf("unfollow again is not idempotent: %d", status)
	}
}

// comment writes a comment as token on message parent.
func (ts *testServer) comment(t testing.TB, token string, parent int64, content string) store.Post {
	t.Helper()
	status, b := ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", parent), token, map[string]string{"content": content})
	if status != 201 {
		t.Fatalf("comment: %d %s", status, b)
	}
	var p store.Post
	mustDecode(t, b, &p)
	return p
}

func TestFollowersAndCounts(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	star, _ := ts.register(t, "star")
	var fans []string
	for i := range 5 {
		name := fmt.Sprintf("fan%d", i)
		tok, _ := ts.register(t, name)
		if status, _ := ts.call(t, "PUT", "/api/v1/users/star/follow", tok, nil); status != 204 {
			t.Fatal("follow failed")
		}
		fans = append(fans, name)
	}
	ts.post(t, star, "one", 0)
	var names []string
	path := "/api/v1/users/star/followers?limit=2"
	for path != "" {
		status, b := ts.call(t, "GET", path, star, nil)
		if status != 200 {
			t.Fatalf("%s: %d %s", path, status, b)
		}
		var page store.Page[store.User]
		mustDecode(t, b, &page)
		for _, u := range page.Items {
			names = append(names, u.Username)
			if u.Following == nil || *u.Following {
				t.Errorf("star does not follow %s, yet following = %v", u.Username, u.Following)
			}
		}
		path = ""
		if page.NextCursor != nil {
			path = "/api/v1/users/star/followers?limit=2&cursor=" + *page.NextCursor
		}
	}
	if fmt.Sprint(names) != "[fan4 fan3 fan2 fan1 fan0]" {
		t.Fatalf("followers, newest first = %v", names)
	}
	var u store.User
	_, b := ts.call(t, "GET", "/api/v1/users/star", "", nil)
	mustDecode(t, b, &u)
	if u.FollowersCount != 5 || u.FollowingCount != 0 || u.PostsCount != 1 {
		t.Fatalf("counts = %+v", u)
	}
	fan0, _ := ts.call(t, "GET", "/api/v1/users/fan0/following", "", nil)
	if fan0 != 200 {
		t.Fatalf("following list: %d", fan0)
	}
}

func TestPagingThrough250Posts(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	var all []int64
	for i := range 250 {
		all = append(all, ts.post(t, alice, fmt.Sprintf("post %d", i), 0).ID)
	}
	// Newest first, every post once, across pages of 100, 100 and 50.
	var seen []int64
	path := "/api/v1/timelines/home?limit=100"
	for pages := 0; path != ""; pages++ {
		if pages > 3 {
			t.Fatal("too many pages")
		}
		page := ts.page(t, alice, path)
		seen = append(seen, ids(page.Items)...)
		path = ""
		if page.NextCursor != nil {
			path = "/api/v1/timelines/home?limit=100&cursor=" + *page.NextCursor
		}
	}
	if len(seen) != 250 {
		t.Fatalf("paged %d posts, want 250", len(seen))
	}
	for i, id := range seen {
		if id != all[249-i] {
			t.Fatalf("item %d = %d, want %d", i, id, all[249-i])
		}
	}
	// after: only newer than the 200th post, still paged by cursor.
	after := all[199]
	var newer []int64
	path = fmt.Sprintf("/api/v1/users/alice/posts?limit=20&after=%d", after)
	for path != "" {
		page := ts.page(t, "", path)
		newer = append(newer, ids(page.Items)...)
		path = ""
		if page.NextCursor != nil {
			path = "/api/v1/users/alice/posts?limit=20&cursor=" + *page.NextCursor
		}
	}
	if len(newer) != 50 || newer[0] != all[249] || newer[49] != all[200] {
		t.Fatalf("after %d: got %d posts from %v to %v", after, len(newer), newer[0], newer[len(newer)-1])
	}
	// Default page size, and the public timeline.
	if n := len(ts.page(t, "", "/api/v1/timelines/public").Items); n != store.DefaultLimit {
		t.Fatalf("public page holds %d, want %d", n, store.DefaultLimit)
	}
}

func TestReadersSkipDanglingIDs(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ARCHIVE=off") // in neither Redis nor an archive
	alice, _ := ts.register(t, "alice")
	var posts []store.Post
	for i := range 5 {
		posts = append(posts, ts.post(t, alice, fmt.Sprintf("p%d", i), 0))
	}
	// The message vanished while indexes still point at it.
	ts.rdb().Del(context.Background(), keysOf(ts.rdb()).Post(posts[3].ID))
	page := ts.page(t, alice, "/api/v1/timelines/home?limit=2")
	if got := ids(page.Items); fmt.Sprint(got) != fmt.Sprint([]int64{posts[4].ID, posts[2].ID}) {
		t.Fatalf("page = %v", got)
	}
}

func TestIdempotencyKey(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	send := func() store.Post {
		resp := ts.do(t, "POST", "/api/v1/posts", alice, map[string]string{"content": "only once"}, http.Header{"Idempotency-Key": {"retry-123"}})
		defer resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		var p store.Post
		if err := jsonDecode(resp, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := send(), send()
	if a.ID != b.ID {
		t.Fatalf("retry made a second post: %d and %d", a.ID, b.ID)
	}
	if n := len(ts.page(t, alice, "/api/v1/timelines/home").Items); n != 1 {
		t.Fatalf("home holds %d posts, want 1", n)
	}
}
