package main

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"microblog/server/api"
	"microblog/store"
)

// followedTags lists token's followed topics through every page.
func (ts *testServer) followedTags(t testing.TB, token string) []string {
	t.Helper()
	var names []string
	path := "/api/v1/me/tags?limit=3"
	for range 50 {
		var page store.Page[store.FollowedTag]
		ts.getJSON(t, token, path, &page)
		for _, ft := range page.Items {
			names = append(names, ft.Name)
		}
		if page.NextCursor == nil {
			return names
		}
		path = "/api/v1/me/tags?limit=3&cursor=" + url.QueryEscape(*page.NextCursor)
	}
	t.Fatal("followed topics page without end")
	return nil
}

// TestAPIFollowTags: following a topic (any spelling of it) is idempotent,
// listed newest first, told by GET /api/v1/tags/:tag, and undone; bad
// names are 400 invalid_tag, one past the cap 422 tag_follow_limit, an
// anonymous caller 401, and none of them changes anything.
func TestAPIFollowTags(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")

	ts.wantStatus(t, "PUT", "/api/v1/tags/Go/follow", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/tags/go/follow", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/tags/"+url.PathEscape("#话题#")+"/follow", amy, nil, http.StatusNoContent, "")
	if got := ts.followedTags(t, amy); !slices.Equal(got, []string{"话题", "go"}) {
		t.Fatalf("followed %v, want [话题 go]", got)
	}
	var v api.TagView
	ts.getJSON(t, amy, "/api/v1/tags/GO", &v)
	if v.Name != "go" || !v.Following {
		t.Fatalf("GET /tags/GO as amy: %+v", v)
	}
	ts.getJSON(t, "", "/api/v1/tags/go", &v)
	if v.Following {
		t.Fatalf("GET /tags/go anonymously: %+v", v)
	}

	for _, bad := range []string{"%20", "%23", strings.Repeat("x", store.MaxTagLen+1), "a%23b", "a%0Ab"} {
		ts.wantStatus(t, "PUT", "/api/v1/tags/"+bad+"/follow", amy, nil, http.StatusBadRequest, string(store.CodeInvalidTag))
		ts.wantStatus(t, "GET", "/api/v1/tags/"+bad, amy, nil, http.StatusBadRequest, string(store.CodeInvalidTag))
	}
	ts.wantStatus(t, "PUT", "/api/v1/tags/go/follow", "", nil, http.StatusUnauthorized, "")
	ts.wantStatus(t, "GET", "/api/v1/me/tags", "", nil, http.StatusUnauthorized, "")

	for i := len(ts.followedTags(t, amy)); i < store.MaxFollowedTags; i++ {
		ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/tags/t%d/follow", i), amy, nil, http.StatusNoContent, "")
	}
	ts.wantStatus(t, "PUT", "/api/v1/tags/onemore/follow", amy, nil, http.StatusUnprocessableEntity, string(store.CodeTagFollowLimit))
	if got := ts.followedTags(t, amy); len(got) != store.MaxFollowedTags || slices.Contains(got, "onemore") {
		t.Fatalf("after the cap: %d topics", len(got))
	}
	ts.wantStatus(t, "DELETE", "/api/v1/tags/Go/follow", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "DELETE", "/api/v1/tags/go/follow", amy, nil, http.StatusNoContent, "")
	ts.getJSON(t, amy, "/api/v1/tags/go", &v)
	if v.Following {
		t.Fatal("still following go after the unfollow")
	}
	ts.wantStatus(t, "PUT", "/api/v1/tags/onemore/follow", amy, nil, http.StatusNoContent, "")
}

// TestAPIFollowTagsHome: a followed topic's posts are in the home timeline
// once (the star's too), and the safety rules hold: a blocked, muted or
// protected author's, or a filtered word's, are not.
func TestAPIFollowTagsHome(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")
	cat, _ := ts.register(t, "cat")
	fay, _ := ts.register(t, "fay")
	ben, _ := ts.register(t, "ben")
	dan, _ := ts.register(t, "dan")
	eve, _ := ts.register(t, "eve")
	ts.follow(t, amy, "cat", true)
	ts.wantStatus(t, "PUT", "/api/v1/tags/go/follow", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/block", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/dan/mute", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PATCH", "/api/v1/me", eve, map[string]bool{"protected": true}, http.StatusOK, "")
	ts.wantStatus(t, "PUT", "/api/v1/me/filters", amy, map[string]any{"words": []string{"天气"}}, http.StatusOK, "")

	star := ts.newPost(t, cat, "a star on #go")
	stranger := ts.newPost(t, fay, "a stranger on #Go")
	other := ts.newPost(t, fay, "on #rust")
	hidden := []int64{ts.newPost(t, ben, "blocked #go"), ts.newPost(t, dan, "muted #go"),
		ts.newPost(t, eve, "protected #go"), ts.newPost(t, fay, "今天天气 #go")}
	var home []int64 // what amy's home shows: a post her filter hides comes folded (filtered), not shown
	for _, it := range ts.page(t, amy, "/api/v1/timelines/home?limit=50").Items {
		if !it.Filtered {
			home = append(home, it.ID)
		}
	}
	for _, want := range []int64{star, stranger} {
		if n := countOf(home, want); n != 1 {
			t.Errorf("post %d is %d times in home %v, want once", want, n, home)
		}
	}
	for _, no := range append(hidden, other) {
		if slices.Contains(home, no) {
			t.Errorf("post %d is in home %v", no, home)
		}
	}
}

func countOf(xs []int64, x int64) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// TestWSFollowTags: a new post with a followed topic reaches the open live
// feed once, even when its author is followed too; the safety rules hold
// it back as they do the rest of the feed; a follow made while connected
// is heard. The edit and the delete of a post heard so follow it.
func TestWSFollowTags(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")
	cat, _ := ts.register(t, "cat")
	fay, _ := ts.register(t, "fay")
	ben, _ := ts.register(t, "ben")
	dan, _ := ts.register(t, "dan")
	eve, _ := ts.register(t, "eve")
	ts.follow(t, amy, "cat", true)
	ts.wantStatus(t, "PUT", "/api/v1/tags/go/follow", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/block", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/dan/mute", amy, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PATCH", "/api/v1/me", eve, map[string]bool{"protected": true}, http.StatusOK, "")
	ts.wantStatus(t, "PUT", "/api/v1/me/filters", amy, map[string]any{"words": []string{"天气"}}, http.StatusOK, "")

	ws := ts.dialWS(t, amy, "")
	ws.ready(t)
	star := ts.newPost(t, cat, "a star on #go")
	stranger := ts.newPost(t, fay, "a stranger on #Go")
	ws.expect(t, store.EventPost, star) // once: the next is the stranger's
	ws.expect(t, store.EventPost, stranger)

	ts.newPost(t, ben, "blocked #go")
	ts.newPost(t, dan, "muted #go")
	ts.newPost(t, eve, "protected #go")
	ts.newPost(t, fay, "今天天气 #go")
	ts.newPost(t, fay, "another topic #rust")
	seen := ts.newPost(t, fay, "seen #go")
	ws.expect(t, store.EventPost, seen)
	// Its edit and its delete follow it there.
	ts.editPost(t, fay, seen, "seen, edited #go")
	ws.expect(t, store.EventPostUpdate, seen)
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", seen), fay, nil, http.StatusNoContent, "")
	ws.expect(t, store.EventDelete, seen)

	ts.wantStatus(t, "PUT", "/api/v1/tags/rust/follow", amy, nil, http.StatusNoContent, "")
	ws.expectSoon(t, func() int64 { return ts.newPost(t, fay, "now heard #rust") })
}
