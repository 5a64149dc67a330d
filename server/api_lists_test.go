package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"microblog/store"
)

// newList makes a list of token's through the native API.
func (ts *testServer) newList(t testing.TB, token, title string) store.List {
	t.Helper()
	status, b := ts.call(t, "POST", "/api/v1/me/lists", token, map[string]any{"title": title})
	if status != http.StatusCreated {
		t.Fatalf("create list %q: %d %s", title, status, b)
	}
	var l store.List
	mustDecode(t, b, &l)
	return l
}

// TestListsAPI: the native lists under /me/lists: create, read, rename,
// delete, members added by name (only followed users), the list's posts
// paged by cursor, the lists that hold a user, bad input answered 4xx
// without a write, and another user's list not found.
func TestListsAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ann, _ := ts.register(t, "ann")
	bob, _ := ts.register(t, "bob")
	cat, _ := ts.register(t, "cat")
	eve, _ := ts.register(t, "eve")
	ts.follow(t, ann, "bob", true)
	ts.follow(t, ann, "cat", true)

	l := ts.newList(t, ann, "朋友")
	if l.ID == 0 || l.Title != "朋友" || l.RepliesPolicy != "list" {
		t.Fatalf("new list %+v", l)
	}
	base := fmt.Sprintf("/api/v1/me/lists/%d", l.ID)
	for _, bad := range []struct {
		body any
		code string
	}{
		{map[string]any{}, "invalid_field"},
		{map[string]any{"title": 3}, "invalid_field"},
		{map[string]any{"title": "  "}, "invalid_title"},
		{map[string]any{"title": strings.Repeat("长", 101)}, "invalid_title"},
		{map[string]any{"title": "x", "replies_policy": "everyone"}, "invalid_replies_policy"},
		{map[string]any{"title": "x", "replies_policy": ""}, "invalid_replies_policy"},
	} {
		ts.wantStatus(t, "POST", "/api/v1/me/lists", ann, bad.body, 400, bad.code)
	}
	ts.wantStatus(t, "PATCH", base, ann, map[string]any{"title": ""}, 400, "invalid_title")
	ts.wantStatus(t, "GET", "/api/v1/me/lists", "", nil, 401, "unauthorized")
	ts.wantStatus(t, "GET", "/api/v1/me/lists/abc", ann, nil, 404, "list_not_found")
	ts.wantStatus(t, "GET", base, eve, nil, 404, "list_not_found")
	ts.wantStatus(t, "PUT", base+"/members/bob", eve, nil, 404, "list_not_found")
	ts.wantStatus(t, "GET", base+"/posts", eve, nil, 404, "list_not_found")
	ts.wantStatus(t, "DELETE", base, eve, nil, 404, "list_not_found")

	var all struct{ Items []store.List }
	ts.getJSON(t, ann, "/api/v1/me/lists", &all)
	if len(all.Items) != 1 || all.Items[0].ID != l.ID {
		t.Fatalf("lists %+v", all)
	}
	ts.wantStatus(t, "PATCH", base, ann, map[string]any{"title": "Friends", "exclusive": true}, 200, "")
	var got store.List
	ts.getJSON(t, ann, base, &got)
	if got.Title != "Friends" || !got.Exclusive {
		t.Fatalf("renamed list %+v", got)
	}

	ts.wantStatus(t, "PUT", base+"/members/eve", ann, nil, 400, "not_following")
	ts.wantStatus(t, "PUT", base+"/members/nobody", ann, nil, 404, "user_not_found")
	ts.wantStatus(t, "PUT", base+"/members/bob", ann, nil, 204, "")
	ts.wantStatus(t, "PUT", base+"/members/bob", ann, nil, 204, "") // again: no error
	ts.wantStatus(t, "PUT", base+"/members/cat", ann, nil, 204, "")
	var members store.Page[store.User]
	ts.getJSON(t, ann, base+"/members", &members)
	if len(members.Items) != 2 || members.Items[0].Username != "cat" {
		t.Fatalf("members %+v", members)
	}
	ts.getJSON(t, ann, "/api/v1/users/bob/lists", &all)
	if len(all.Items) != 1 || all.Items[0].MembersCount != 2 {
		t.Fatalf("lists with bob %+v", all)
	}

	var want []int64
	for i := range 3 {
		want = append([]int64{ts.post(t, bob, fmt.Sprint("bob ", i), 0).ID}, want...)
		want = append([]int64{ts.post(t, cat, fmt.Sprint("cat ", i), 0).ID}, want...)
		ts.post(t, eve, "not in the list", 0)
	}
	var seen []int64
	for path := base + "/posts?limit=4"; ; {
		page := ts.page(t, ann, path)
		seen = append(seen, ids(page.Items)...)
		if page.NextCursor == nil {
			break
		}
		path = base + "/posts?limit=4&cursor=" + *page.NextCursor
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("list posts %v, want %v", seen, want)
	}
	ts.wantStatus(t, "GET", base+"/posts?limit=0", ann, nil, 400, "invalid_limit")
	ts.wantStatus(t, "GET", base+"/posts?cursor=zz", ann, nil, 400, "invalid_cursor")

	// Privacy: bob blocks ann, which ends her follow and takes him out.
	ts.wantStatus(t, "PUT", "/api/v1/users/ann/block", bob, nil, 204, "")
	if got := ts.pageIDs(t, ann, base+"/posts"); len(got) != 3 {
		t.Fatalf("list posts after bob's block: %v", got)
	}
	ts.getJSON(t, ann, base+"/members", &members)
	if len(members.Items) != 1 {
		t.Fatalf("members after bob's block %+v", members)
	}
	ts.wantStatus(t, "DELETE", base+"/members/cat", ann, nil, 204, "")
	if got := ts.pageIDs(t, ann, base+"/posts"); len(got) != 0 {
		t.Fatalf("list posts without members: %v", got)
	}
	ts.wantStatus(t, "DELETE", base, ann, nil, 204, "")
	ts.wantStatus(t, "GET", base, ann, nil, 404, "list_not_found")
}

// TestListsNativeFeedQuiet: the store's list_members events, published on
// the owner's channel for the Mastodon API's list streams, never reach the
// native live feed: after members come and go, the owner's /ws next frame
// is a followed user's post.
func TestListsNativeFeedQuiet(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ann, _ := ts.register(t, "ann")
	bob, _ := ts.register(t, "bob")
	ts.follow(t, ann, "bob", true)
	l := ts.newList(t, ann, "friends")
	ws := ts.dialWS(t, ann, "")
	ws.ready(t)
	base := fmt.Sprintf("/api/v1/me/lists/%d", l.ID)
	ts.wantStatus(t, "PUT", base+"/members/bob", ann, nil, 204, "")
	ts.wantStatus(t, "DELETE", base+"/members/bob", ann, nil, 204, "")
	ts.wantStatus(t, "DELETE", base, ann, nil, 204, "")
	p := ts.post(t, bob, "after the list changes", 0)
	ws.expect(t, "post", p.ID)
}
