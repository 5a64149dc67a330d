package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// getJSON GETs path as token and decodes the 200 answer into v.
func (ts *testServer) getJSON(t testing.TB, token, path string, v any) {
	t.Helper()
	status, body := ts.call(t, "GET", path, token, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	mustDecode(t, body, v)
}

// wantStatus calls the API and checks the status (and error code, if set).
func (ts *testServer) wantStatus(t testing.TB, method, path, token string, body any, status int, code string) {
	t.Helper()
	got, b := ts.call(t, method, path, token, body)
	if got != status || (code != "" && errorCode(t, b) != code) {
		t.Fatalf("%s %s: %d %s, want %d %s", method, path, got, b, status, code)
	}
}

func (ts *testServer) notifications(t testing.TB, token string) []store.Notification {
	t.Helper()
	var page store.Page[store.Notification]
	ts.getJSON(t, token, "/api/v1/notifications", &page)
	return page.Items
}

func (ts *testServer) unread(t testing.TB, token string) int64 {
	t.Helper()
	var me store.User
	ts.getJSON(t, token, "/api/v1/me", &me)
	if me.UnreadNotifications == nil {
		t.Fatal("/me lacks unread_notifications")
	}
	return *me.UnreadNotifications
}

// TestLikes: like and unlike are idempotent, counted on the Post with liked
// for the caller, listed newest first, undone without leaving a
// notification, sent live as counts, and refused for bad input.
func TestLikes(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	rdb := ts.rdb()
	alice, aliceID := ts.register(t, "alice")
	bob, bobID := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	mid := ts.newPost(t, alice, "like me")
	path := fmt.Sprintf("/api/v1/posts/%d", mid)
	ws := ts.dialWS(t, alice, "")
	ws.ready(t)

	for range 2 {
		ts.wantStatus(t, "PUT", path+"/like", bob, nil, 204, "")
	}
	ts.wantStatus(t, "PUT", path+"/like", carol, nil, 204, "")
	var p store.Post
	ts.getJSON(t, bob, path, &p)
	if p.LikesCount != 2 || p.Liked == nil || !*p.Liked {
		t.Fatalf("bob sees likes_count %d liked %v", p.LikesCount, p.Liked)
	}
	ts.getJSON(t, "", path, &p)
	if p.LikesCount != 2 || p.Liked != nil {
		t.Fatalf("anonymous sees likes_count %d liked %v, want 2 and null", p.LikesCount, p.Liked)
	}
	var likers store.Page[store.User]
	ts.getJSON(t, "", path+"/likes", &likers)
	if len(likers.Items) != 2 || likers.Items[0].Username != "carol" || likers.Items[1].Username != "bob" {
		t.Fatalf("likers %+v, want carol then bob", likers.Items)
	}
	if n := rdb.ZCard(context.Background(), keysOf(rdb).Likes(mid)).Val(); n != 2 {
		t.Fatalf("likes:%d holds %d", mid, n)
	}
	// Live: alice's page hears the counts (and her notifications).
	var counts store.CountsData
	for deadline := time.Now().Add(hangWait); counts.LikesCount != 2; {
		f := ws.Next(t, time.Until(deadline))
		if f.Event == store.EventCounts {
			mustDecode(t, f.Data, &counts)
		}
	}
	if ns := ts.notifications(t, alice); len(ns) != 2 || ns[0].Kind != "like" || ns[0].Actor.Username != "carol" || ns[0].Post.ID != mid {
		t.Fatalf("alice's notifications %+v", ns)
	}

	// Unliking takes bob's like and its notification back.
	for range 2 {
		ts.wantStatus(t, "DELETE", path+"/like", bob, nil, 204, "")
	}
	ts.getJSON(t, bob, path, &p)
	if p.LikesCount != 1 || *p.Liked {
		t.Fatalf("after unlike bob sees %d liked %v", p.LikesCount, *p.Liked)
	}
	if ns := ts.notifications(t, alice); len(ns) != 1 || ns[0].Actor.Username != "carol" {
		t.Fatalf("after bob's unlike alice has %+v", ns)
	}
	// Liking one's own post notifies no one.
	ts.wantStatus(t, "PUT", path+"/like", alice, nil, 204, "")
	if ns := ts.notifications(t, alice); len(ns) != 1 {
		t.Fatalf("alice was notified of her own like: %+v", ns)
	}

	ts.wantStatus(t, "PUT", "/api/v1/posts/999999/like", bob, nil, 404, "post_not_found")
	ts.wantStatus(t, "PUT", "/api/v1/posts/abc/like", bob, nil, 404, "post_not_found")
	ts.wantStatus(t, "PUT", path+"/like", "", nil, 401, "unauthorized")
	ts.wantStatus(t, "GET", "/api/v1/posts/999999/likes", "", nil, 404, "post_not_found")
	ts.wantStatus(t, "GET", path+"/likes?limit=0", "", nil, 400, "invalid_limit")
	if n := rdb.Exists(context.Background(), keysOf(rdb).Likes(999999)).Val(); n != 0 {
		t.Fatal("a like of a missing post left a key")
	}
	_, _ = aliceID, bobID
}

// TestNotificationsOfEveryKind: comment, reply, repost, like, follow and
// mention each notify the right user once, newest first, live too; unread
// counts on /me and drops when read; nobody hears of their own actions.
func TestNotificationsOfEveryKind(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	ws := ts.dialWS(t, alice, "")
	ws.ready(t)

	post := ts.newPost(t, alice, "hello @carol and @nobody_here and @alice")
	status, body := ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", post), bob, map[string]string{"content": "nice"})
	if status != 201 {
		t.Fatalf("comment: %d %s", status, body)
	}
	var comment store.Post
	mustDecode(t, body, &comment)
	ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", comment.ID), alice, map[string]string{"content": "thanks"})
	status, _ = ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", comment.ID), carol, map[string]string{"content": "me too"})
	if status != 201 {
		t.Fatal("carol's reply failed")
	}
	ts.call(t, "POST", "/api/v1/posts", carol, map[string]any{"repost_of": post})
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", post), bob, nil, 204, "")
	ts.follow(t, carol, "alice", true)
	ts.newPost(t, bob, "cc @ALICE")

	kinds := func(ns []store.Notification) (out []string) {
		for _, n := range ns {
			out = append(out, n.Kind+":"+n.Actor.Username)
		}
		return out
	}
	want := []string{"mention:bob", "follow:carol", "like:bob", "repost:carol", "comment:bob"}
	if got := kinds(ts.notifications(t, alice)); !slices.Equal(got, want) {
		t.Fatalf("alice's notifications %v, want %v", got, want)
	}
	if got := kinds(ts.notifications(t, bob)); !slices.Equal(got, []string{"reply:carol", "reply:alice"}) {
		t.Fatalf("bob's notifications %v", got)
	}
	if got := kinds(ts.notifications(t, carol)); !slices.Equal(got, []string{"mention:alice"}) {
		t.Fatalf("carol's notifications %v", got)
	}
	// Each arrived live on alice's socket, in order.
	var live []string
	for len(live) < len(want) {
		f := ws.Next(t, hangWait)
		if f.Event == store.EventNotification {
			var n store.Notification
			mustDecode(t, f.Data, &n)
			live = append(live, n.Kind+":"+n.Actor.Username)
		}
	}
	if slices.Reverse(live); !slices.Equal(live, want) {
		t.Fatalf("live notifications %v, want %v", live, want)
	}

	if n := ts.unread(t, alice); n != 5 {
		t.Fatalf("unread %d, want 5", n)
	}
	ns := ts.notifications(t, alice)
	ts.wantStatus(t, "POST", "/api/v1/notifications/read", alice, map[string]int64{"up_to": ns[2].ID}, 204, "")
	if n := ts.unread(t, alice); n != 2 {
		t.Fatalf("unread after reading 3: %d", n)
	}
	ts.wantStatus(t, "POST", "/api/v1/notifications/read", alice, map[string]int64{"up_to": ns[4].ID}, 204, "") // never backwards
	if n := ts.unread(t, alice); n != 2 {
		t.Fatalf("marking an older id read made %d unread", n)
	}
	for _, n := range ts.notifications(t, alice) {
		if n.Read != (n.ID <= ns[2].ID) {
			t.Fatalf("notification %d read=%v", n.ID, n.Read)
		}
	}
	// Unfollowing takes the follow notification back.
	ts.follow(t, carol, "alice", false)
	if got := kinds(ts.notifications(t, alice)); slices.Contains(got, "follow:carol") {
		t.Fatalf("unfollow left %v", got)
	}
	ts.wantStatus(t, "POST", "/api/v1/notifications/read", alice, map[string]any{}, 400, "invalid_field")
	ts.wantStatus(t, "POST", "/api/v1/notifications/read", alice, map[string]any{"up_to": "x"}, 400, "invalid_field")
	ts.wantStatus(t, "POST", "/api/v1/notifications/read", alice, map[string]any{"up_to": 0}, 400, "invalid_field")
	ts.wantStatus(t, "GET", "/api/v1/notifications", "", nil, 401, "unauthorized")
	ts.wantStatus(t, "GET", "/api/v1/notifications?cursor=zz", alice, nil, 400, "invalid_cursor")
}

// TestNotificationsStayBounded: only the newest 200 are kept in Redis.
func TestNotificationsStayBounded(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	mid := ts.newPost(t, alice, "popular")
	for i := range 210 {
		ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", mid), bob, map[string]string{"content": fmt.Sprint(i)})
	}
	rdb := ts.rdb()
	ctx := context.Background()
	var uid int64 = 1
	if n := rdb.ZCard(ctx, keysOf(rdb).Notifications(uid)).Val(); n != 200 {
		t.Fatalf("%d notifications kept, want 200", n)
	}
	if n := rdb.HLen(ctx, keysOf(rdb).Notes(uid)).Val(); n != 200 {
		t.Fatalf("%d notes kept, want 200", n)
	}
	var got []store.Notification
	path := "/api/v1/notifications?limit=100"
	for {
		var page store.Page[store.Notification]
		ts.getJSON(t, alice, path, &page)
		got = append(got, page.Items...)
		if page.NextCursor == nil {
			break
		}
		path = "/api/v1/notifications?limit=100&cursor=" + *page.NextCursor
	}
	if len(got) != 200 || got[0].ID <= got[199].ID {
		t.Fatalf("paged %d notifications", len(got))
	}
}

// TestTopicsAndMentions: a post's tags and mentions are parsed, shown and
// indexed; topic pages page and take after=; deleting a post takes it out.
func TestTopicsAndMentions(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	status, body := ts.call(t, "POST", "/api/v1/posts", alice, map[string]string{"content": "#话题# and #Go with @bob, mail x@y.z"})
	if status != 201 {
		t.Fatalf("post: %d %s", status, body)
	}
	var p store.Post
	mustDecode(t, body, &p)
	if !slices.Equal(p.Tags, []string{"话题", "Go"}) || len(p.Mentions) != 1 || p.Mentions[0].Username != "bob" {
		t.Fatalf("tags %q mentions %+v", p.Tags, p.Mentions)
	}
	second := ts.newPost(t, bob, "more #go")
	tagPage := func(tag, query string) []int64 {
		var page store.Page[store.Post]
		ts.getJSON(t, "", "/api/v1/tags/"+url.PathEscape(tag)+"/posts"+query, &page)
		return ids(page.Items)
	}
	if got := tagPage("GO", ""); !slices.Equal(got, []int64{second, p.ID}) {
		t.Fatalf("#go lists %v", got)
	}
	if got := tagPage("话题", ""); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("#话题# lists %v", got)
	}
	if got := tagPage("go", fmt.Sprintf("?after=%d", p.ID)); !slices.Equal(got, []int64{second}) {
		t.Fatalf("#go after %d lists %v", p.ID, got)
	}
	if got := tagPage("nothing", ""); len(got) != 0 {
		t.Fatalf("an unknown topic lists %v", got)
	}
	var tags store.Page[store.TagCount]
	ts.getJSON(t, "", "/api/v1/search/tags?q=G", &tags)
	if len(tags.Items) != 1 || tags.Items[0].Tag != "go" || tags.Items[0].PostsCount != 2 {
		t.Fatalf("search tags: %+v", tags.Items)
	}
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", second), bob, nil, 204, "")
	if got := tagPage("go", ""); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("after the delete #go lists %v", got)
	}
	ts.wantStatus(t, "GET", "/api/v1/tags/"+strings.Repeat("x", 51)+"/posts", "", nil, 400, "invalid_query")
	ts.wantStatus(t, "GET", "/api/v1/search/tags?q=", "", nil, 400, "invalid_query")
	ts.wantStatus(t, "GET", "/api/v1/search/tags?q=%FF", "", nil, 400, "invalid_query")
}

// TestSearchAndSuggestions: users by name prefix in any case and script,
// most followed first; suggestions leave out oneself and one's stars.
func TestSearchAndSuggestions(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok := map[string]string{}
	for _, name := range []string{"alice", "Alicia", "alfred", "bob", "小明", "小红"} {
		tok[name], _ = ts.register(t, name)
	}
	ts.follow(t, tok["bob"], "Alicia", true)
	ts.follow(t, tok["alfred"], "Alicia", true)
	ts.follow(t, tok["bob"], "alice", true)
	names := func(path, token string) (out []string) {
		var page store.Page[store.User]
		ts.getJSON(t, token, path, &page)
		for _, u := range page.Items {
			out = append(out, u.Username)
		}
		return out
	}
	if got := names("/api/v1/search/users?q=ALI", ""); !slices.Equal(got, []string{"Alicia", "alice"}) {
		t.Fatalf("search ALI: %v", got)
	}
	if got := names("/api/v1/search/users?q="+url.QueryEscape("小"), ""); len(got) != 2 {
		t.Fatalf("search 小: %v", got)
	}
	if got := names("/api/v1/search/users?q=zz", ""); len(got) != 0 {
		t.Fatalf("search zz: %v", got)
	}
	ts.wantStatus(t, "GET", "/api/v1/search/users", "", nil, 400, "invalid_query")
	ts.wantStatus(t, "GET", "/api/v1/search/users?q="+strings.Repeat("a", 31), "", nil, 400, "invalid_query")
	got := names("/api/v1/suggestions/users?limit=3", tok["bob"])
	if len(got) != 3 || slices.Contains(got, "bob") || slices.Contains(got, "Alicia") || slices.Contains(got, "alice") {
		t.Fatalf("bob's suggestions %v", got)
	}
	if first := names("/api/v1/suggestions/users", tok["小明"])[0]; first != "Alicia" {
		t.Fatalf("the most followed is not suggested first: %s", first)
	}
	ts.wantStatus(t, "GET", "/api/v1/suggestions/users", "", nil, 401, "unauthorized")
}
