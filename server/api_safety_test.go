package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// userAs is the User named name as token's user sees it.
func (ts *testServer) userAs(t testing.TB, token, name string) store.User {
	t.Helper()
	var u store.User
	ts.getJSON(t, token, "/api/v1/users/"+name, &u)
	return u
}

// pageIDs are the ids of the posts of the page at path, as token's user sees it.
func (ts *testServer) pageIDs(t testing.TB, token, path string) []int64 {
	t.Helper()
	var page store.Page[store.Post]
	ts.getJSON(t, token, path, &page)
	out := make([]int64, len(page.Items))
	for i, p := range page.Items {
		out[i] = p.ID
	}
	return out
}

// userNames are the usernames of the page of users at path.
func (ts *testServer) userNames(t testing.TB, token, path string) []string {
	t.Helper()
	var page store.Page[store.User]
	ts.getJSON(t, token, path, &page)
	var out []string
	for _, u := range page.Items {
		out = append(out, u.Username)
	}
	return out
}

// repost reposts mid as token's user and returns the repost's id.
func (ts *testServer) repost(t testing.TB, token string, mid int64) int64 {
	t.Helper()
	status, body := ts.call(t, "POST", "/api/v1/posts", token, map[string]any{"repost_of": mid})
	if status != http.StatusCreated {
		t.Fatalf("repost %d: %d %s", mid, status, body)
	}
	var p struct{ ID int64 }
	mustDecode(t, body, &p)
	return p.ID
}

// TestBlock: a block ends the follows both ways; neither side sees the
// other's posts, comments or reposts anywhere (a third user's repost
// included); the blocked cannot follow (403 blocked), nor comment on,
// repost or like the blocker's posts, hidden from it (404); its earlier notifications leave the blocker's list; the
// relation shows on both Users; unblocking restores no follow.
func TestBlock(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")
	ben, _ := ts.register(t, "ben")
	cat, _ := ts.register(t, "cat")
	ts.follow(t, amy, "ben", true)
	ts.follow(t, ben, "amy", true)
	ts.follow(t, amy, "cat", true)
	amyPost := ts.newPost(t, amy, "amy writes #garden")
	benPost := ts.newPost(t, ben, "ben writes #garden")
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", amyPost), ben, nil, 204, "")
	comment := ts.comment(t, cat, amyPost, "cat comments").ID
	benComment := ts.comment(t, ben, comment, "ben answers cat").ID
	if n := ts.notifications(t, amy); len(n) == 0 {
		t.Fatal("amy has no notification before the block")
	}

	ts.wantStatus(t, "PUT", "/api/v1/users/ben/block", amy, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/block", amy, nil, 204, "") // idempotent
	catRepost := ts.repost(t, cat, benPost)

	if u := ts.userAs(t, amy, "ben"); u.Blocking == nil || !*u.Blocking || *u.Following {
		t.Fatalf("amy sees ben as %+v, want blocking and not following", u)
	}
	if u := ts.userAs(t, ben, "amy"); u.BlockedBy == nil || !*u.BlockedBy || *u.Following {
		t.Fatalf("ben sees amy as %+v, want blocked_by and not following", u)
	}
	if u := ts.userAs(t, "", "amy"); u.BlockedBy != nil || u.Blocking != nil {
		t.Fatalf("anonymous sees amy with blocking %v, blocked_by %v, want null", u.Blocking, u.BlockedBy)
	}
	for _, c := range []struct {
		token, path string
		hidden      int64
	}{
		{amy, "/api/v1/timelines/home", benPost},
		{amy, "/api/v1/timelines/home", catRepost},
		{amy, "/api/v1/timelines/public", benPost},
		{amy, "/api/v1/timelines/public", catRepost},
		{amy, "/api/v1/tags/garden/posts", benPost},
		{amy, "/api/v1/users/ben/posts", benPost},
		{amy, "/api/v1/users/cat/posts", catRepost},
		{amy, fmt.Sprintf("/api/v1/posts/%d/comments", comment), benComment},
		{ben, "/api/v1/timelines/home", amyPost},
		{ben, "/api/v1/timelines/public", amyPost},
		{ben, "/api/v1/users/amy/posts", amyPost},
	} {
		if ids := ts.pageIDs(t, c.token, c.path); slices.Contains(ids, c.hidden) {
			t.Errorf("%s shows %d across the block: %v", c.path, c.hidden, ids)
		}
	}
	if ids := ts.pageIDs(t, cat, "/api/v1/timelines/public"); !slices.Contains(ids, benPost) || !slices.Contains(ids, amyPost) {
		t.Errorf("a third user misses posts of either: %v", ids)
	}
	ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d", benPost), amy, nil, 404, "post_not_found")
	ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d", amyPost), ben, nil, 404, "post_not_found")
	ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d/comments", amyPost), ben, nil, 404, "post_not_found")
	ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d/likes", amyPost), ben, nil, 404, "post_not_found")

	post := fmt.Sprintf("/api/v1/posts/%d", amyPost)
	ts.wantStatus(t, "PUT", "/api/v1/users/amy/follow", ben, nil, 403, "blocked")
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/follow", amy, nil, 403, "blocked")
	// The blocker's posts are hidden from ben: acting on one answers as
	// for a post that does not exist (CONTRACT.md §17).
	ts.wantStatus(t, "POST", post+"/comments", ben, map[string]string{"content": "hi"}, 404, "post_not_found")
	ts.wantStatus(t, "POST", "/api/v1/posts", ben, map[string]any{"repost_of": amyPost}, 404, "post_not_found")
	ts.wantStatus(t, "PUT", post+"/like", ben, nil, 404, "post_not_found")
	for _, n := range ts.notifications(t, amy) {
		if n.Actor.Username == "ben" {
			t.Errorf("amy still lists ben's notification %+v", n)
		}
	}
	// A mention notifies nobody who blocks the author.
	ts.newPost(t, ben, "hello @amy")
	for _, n := range ts.notifications(t, amy) {
		if n.Actor.Username == "ben" {
			t.Errorf("ben's mention reached amy: %+v", n)
		}
	}
	if names := ts.userNames(t, amy, "/api/v1/me/blocks"); !slices.Equal(names, []string{"ben"}) {
		t.Errorf("amy's blocks: %v", names)
	}
	if names := ts.userNames(t, amy, "/api/v1/search/users?q=be"); slices.Contains(names, "ben") {
		t.Errorf("search shows amy the user she blocks: %v", names)
	}

	ts.wantStatus(t, "DELETE", "/api/v1/users/ben/block", amy, nil, 204, "")
	ts.wantStatus(t, "DELETE", "/api/v1/users/ben/block", amy, nil, 204, "")
	if u := ts.userAs(t, amy, "ben"); *u.Blocking || *u.Following {
		t.Fatalf("after unblocking amy sees ben as %+v, want neither blocking nor following", u)
	}
	if ids := ts.pageIDs(t, amy, "/api/v1/users/ben/posts"); !slices.Contains(ids, benPost) {
		t.Errorf("after unblocking amy does not see ben's posts: %v", ids)
	}
	ts.follow(t, ben, "amy", true)
}

// TestBlockBadInput: the contract's errors, and nothing changes.
func TestBlockBadInput(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_MAX_BLOCKS=2", "MICROBLOG_MAX_MUTES=1")
	amy, _ := ts.register(t, "amy")
	for _, name := range []string{"b1", "b2", "b3"} {
		ts.register(t, name)
	}
	ts.wantStatus(t, "PUT", "/api/v1/users/amy/block", amy, nil, 400, "cannot_block_self")
	ts.wantStatus(t, "PUT", "/api/v1/users/amy/mute", amy, nil, 400, "cannot_block_self")
	ts.wantStatus(t, "PUT", "/api/v1/users/nobody/block", amy, nil, 404, "user_not_found")
	ts.wantStatus(t, "PUT", "/api/v1/users/b1/block", "", nil, 401, "unauthorized")
	ts.wantStatus(t, "PUT", "/api/v1/users/b1/block", amy, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/b2/block", amy, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/b3/block", amy, nil, 409, "block_limit")
	ts.wantStatus(t, "PUT", "/api/v1/users/b1/block", amy, nil, 204, "") // one already blocked is no new one
	ts.wantStatus(t, "PUT", "/api/v1/users/b1/mute", amy, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/b2/mute", amy, nil, 409, "mute_limit")
	if names := ts.userNames(t, amy, "/api/v1/me/blocks"); len(names) != 2 || slices.Contains(names, "b3") {
		t.Errorf("blocks after the limit: %v", names)
	}
	if u := ts.userAs(t, "", "b3"); u.ID == 0 {
		t.Fatal("b3 is gone")
	}
	b3, _ := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "b3", "password": testPassword})
	if b3 != http.StatusOK {
		t.Fatalf("b3 cannot log in: %d", b3)
	}
	if names := ts.userNames(t, amy, "/api/v1/me/mutes"); !slices.Equal(names, []string{"b1"}) {
		t.Errorf("mutes after the limit: %v", names)
	}

	for _, c := range []struct {
		body any
		code string
	}{
		{map[string]any{}, "invalid_filter"},
		{map[string]any{"words": "rain"}, "invalid_field"},
		{map[string]any{"words": []string{" "}}, "invalid_filter"},
		{map[string]any{"words": []string{strings.Repeat("雨", 51)}}, "invalid_filter"},
		{map[string]any{"words": make101()}, "invalid_filter"},
	} {
		ts.wantStatus(t, "PUT", "/api/v1/me/filters", amy, c.body, 400, c.code)
	}
	var f struct{ Words []string }
	ts.getJSON(t, amy, "/api/v1/me/filters", &f)
	if len(f.Words) != 0 {
		t.Errorf("filters after bad input: %v", f.Words)
	}
	for _, c := range []struct {
		body any
		code string
	}{
		{map[string]any{"reason": "spam"}, "invalid_report"},
		{map[string]any{"username": "b1"}, "invalid_reason"},
		{map[string]any{"username": "b1", "reason": ""}, "invalid_reason"},
		{map[string]any{"username": "b1", "reason": strings.Repeat("x", 1001)}, "invalid_reason"},
		{map[string]any{"username": "amy", "reason": "me"}, "invalid_report"},
		{map[string]any{"username": "b1", "reason": "x", "post_ids": []int64{-1}}, "invalid_report"},
	} {
		ts.wantStatus(t, "POST", "/api/v1/reports", amy, c.body, 400, c.code)
	}
	ts.wantStatus(t, "POST", "/api/v1/reports", amy, map[string]any{"username": "nobody", "reason": "x"}, 404, "user_not_found")
	ts.wantStatus(t, "PUT", "/api/v1/me/follow_requests/b1", amy, nil, 404, "not_found")
}

// make101 is one filtered word too many.
func make101() []string {
	out := make([]string, store.MaxFilters+1)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", i)
	}
	return out
}

// TestMuteAndFilters: a muted user's posts, reposts and notifications
// leave the muter's home and notifications and nothing else; a filtered
// word, in any letter case and script, takes a post out of the home.
func TestMuteAndFilters(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")
	ben, _ := ts.register(t, "ben")
	cat, _ := ts.register(t, "cat")
	ts.follow(t, amy, "ben", true)
	ts.follow(t, amy, "cat", true)
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/mute", amy, nil, 204, "")
	amyPost := ts.newPost(t, amy, "amy's own")
	benPost := ts.newPost(t, ben, "ben again")
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", amyPost), ben, nil, 204, "")
	rainy := ts.newPost(t, cat, "今天天气好")
	rusty := ts.newPost(t, cat, "I like Rust")
	plain := ts.newPost(t, cat, "nothing to see")
	var f struct{ Words []string }
	status, body := ts.call(t, "PUT", "/api/v1/me/filters", amy, map[string]any{"words": []string{"天气", "RUST", "rust", " tea "}})
	if status != 200 {
		t.Fatalf("set filters: %d %s", status, body)
	}
	mustDecode(t, body, &f)
	if !slices.Equal(f.Words, []string{"天气", "RUST", "tea"}) {
		t.Errorf("filters kept as %v", f.Words)
	}

	// A mute drops ben's post; amy's filters fold cat's (filtered: true,
	// content kept, for her to open), and only for her.
	var page store.Page[store.Post]
	ts.getJSON(t, amy, "/api/v1/timelines/home", &page)
	var home, folded []int64
	for _, p := range page.Items {
		if p.Filtered {
			folded = append(folded, p.ID)
		} else {
			home = append(home, p.ID)
		}
	}
	if slices.Contains(home, benPost) || slices.Contains(folded, benPost) {
		t.Errorf("amy's home shows the muted ben's %d: %v %v", benPost, home, folded)
	}
	if !slices.Equal(folded, []int64{rusty, rainy}) {
		t.Errorf("amy's home folds %v, want %v", folded, []int64{rusty, rainy})
	}
	ts.getJSON(t, ben, "/api/v1/timelines/home", &page)
	for _, p := range page.Items {
		if p.Filtered {
			t.Errorf("ben's home folds %d by amy's filters", p.ID)
		}
	}
	if !slices.Contains(home, plain) || !slices.Contains(home, amyPost) {
		t.Errorf("amy's home misses what she may see: %v", home)
	}
	for _, n := range ts.notifications(t, amy) {
		if n.Actor.Username == "ben" {
			t.Errorf("amy lists a muted user's notification %+v", n)
		}
	}
	if ids := ts.pageIDs(t, amy, "/api/v1/users/ben/posts"); !slices.Contains(ids, benPost) {
		t.Errorf("a mute hides ben's profile from amy: %v", ids)
	}
	if ids := ts.pageIDs(t, ben, "/api/v1/timelines/home"); !slices.Contains(ids, benPost) {
		t.Errorf("ben misses his own post: %v", ids)
	}
	if u := ts.userAs(t, amy, "ben"); u.Muting == nil || !*u.Muting || !*u.Following {
		t.Errorf("amy sees ben as %+v, want muting and following", u)
	}
	if u := ts.userAs(t, ben, "amy"); *u.Muting || *u.BlockedBy {
		t.Errorf("ben can tell he is muted: %+v", u)
	}
	ts.wantStatus(t, "DELETE", "/api/v1/users/ben/mute", amy, nil, 204, "")
	if home := ts.pageIDs(t, amy, "/api/v1/timelines/home"); !slices.Contains(home, benPost) {
		t.Errorf("after unmuting, amy's home misses ben's post: %v", home)
	}
}

// TestProtectedAccount: a protected user's posts are for its approved fans
// only; following asks (202) and notifies; approving makes a fan, rejecting
// does not; its posts cannot be reposted; unprotecting makes them public
// again and lets the waiting requests in.
func TestProtectedAccount(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	pia, _ := ts.register(t, "pia")
	fan, _ := ts.register(t, "fan")
	nosy, _ := ts.register(t, "nosy")
	late, _ := ts.register(t, "late")
	status, body := ts.call(t, "PATCH", "/api/v1/me", pia, map[string]any{"protected": true})
	var me store.User
	if mustDecode(t, body, &me); status != 200 || !me.Protected {
		t.Fatalf("protect: %d %s", status, body)
	}
	secret := ts.newPost(t, pia, "for my fans #secret")
	path := fmt.Sprintf("/api/v1/posts/%d", secret)

	status, body = ts.call(t, "PUT", "/api/v1/users/pia/follow", fan, nil)
	if status != http.StatusAccepted || !strings.Contains(string(body), `"requested":true`) {
		t.Fatalf("follow a protected user: %d %s, want 202 requested", status, body)
	}
	ts.call(t, "PUT", "/api/v1/users/pia/follow", nosy, nil)
	if u := ts.userAs(t, fan, "pia"); !u.Protected || u.Requested == nil || !*u.Requested || *u.Following {
		t.Fatalf("fan sees pia as %+v, want protected, requested, not following", u)
	}
	if names := ts.userNames(t, pia, "/api/v1/me/follow_requests"); !slices.Equal(names, []string{"nosy", "fan"}) {
		t.Fatalf("pia's follow requests: %v", names)
	}
	if n := ts.notifications(t, pia); len(n) == 0 || n[0].Kind != store.NotifyFollowRequest {
		t.Fatalf("pia's notifications: %+v, want a follow_request first", n)
	}
	for _, tok := range []string{"", fan, nosy} {
		ts.wantStatus(t, "GET", path, tok, nil, 404, "post_not_found")
		ts.wantStatus(t, "GET", path+"/likes", tok, nil, 404, "post_not_found")
		ts.wantStatus(t, "GET", path+"/comments", tok, nil, 404, "post_not_found")
		if ids := ts.pageIDs(t, tok, "/api/v1/users/pia/posts"); len(ids) != 0 {
			t.Errorf("a non-fan sees pia's posts %v", ids)
		}
	}
	for _, p := range []string{"/api/v1/timelines/public", "/api/v1/tags/secret/posts"} {
		if ids := ts.pageIDs(t, pia, p); slices.Contains(ids, secret) {
			t.Errorf("%s shows a protected post, even to its author: %v", p, ids)
		}
	}
	ts.wantStatus(t, "PUT", "/api/v1/me/follow_requests/fan", pia, nil, 204, "")
	ts.wantStatus(t, "DELETE", "/api/v1/me/follow_requests/nosy", pia, nil, 204, "")
	ts.wantStatus(t, "GET", path, fan, nil, 200, "")
	ts.wantStatus(t, "GET", path, nosy, nil, 404, "post_not_found")
	if ids := ts.pageIDs(t, fan, "/api/v1/timelines/home"); !slices.Contains(ids, secret) {
		t.Errorf("an approved fan's home misses the post: %v", ids)
	}
	if u := ts.userAs(t, nosy, "pia"); *u.Requested || *u.Following {
		t.Errorf("a rejected user sees %+v", u)
	}
	ts.wantStatus(t, "POST", "/api/v1/posts", fan, map[string]any{"repost_of": secret}, 403, "protected")
	ts.call(t, "PUT", "/api/v1/users/pia/follow", late, nil)

	status, body = ts.call(t, "PATCH", "/api/v1/me", pia, map[string]any{"protected": false})
	if status != 200 {
		t.Fatalf("unprotect: %d %s", status, body)
	}
	for _, p := range []string{"/api/v1/timelines/public", "/api/v1/tags/secret/posts"} {
		if ids := ts.pageIDs(t, "", p); !slices.Contains(ids, secret) {
			t.Errorf("%s misses the post once public again: %v", p, ids)
		}
	}
	ts.wantStatus(t, "GET", path, nosy, nil, 200, "")
	if u := ts.userAs(t, late, "pia"); !*u.Following || *u.Requested {
		t.Errorf("a waiting request was not let in: %+v", u)
	}
	ts.wantStatus(t, "PATCH", "/api/v1/me", pia, map[string]any{"protected": "yes"}, 400, "invalid_field")
	ts.wantStatus(t, "PATCH", "/api/v1/me", pia, map[string]any{}, 400, "invalid_bio")
}

// TestModeration: reports reach the operators only; an operator resolves
// them, suspends a user (it cannot log in, its sessions end, its posts leave
// every view, nothing is deleted) and removes anyone's post.
func TestModeration(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ADMINS=Boss")
	boss, _ := ts.register(t, "boss")
	amy, _ := ts.register(t, "amy")
	troll, _ := ts.register(t, "troll")
	ts.follow(t, amy, "troll", true)
	bad := ts.newPost(t, troll, "something nasty")
	worse := ts.newPost(t, troll, "something worse")

	var me store.User
	if ts.getJSON(t, boss, "/api/v1/me", &me); !me.Admin {
		t.Fatal("/me of an operator lacks admin")
	}
	var amyMe store.User
	if ts.getJSON(t, amy, "/api/v1/me", &amyMe); amyMe.Admin {
		t.Fatal("/me of a user says admin")
	}
	status, body := ts.call(t, "POST", "/api/v1/reports", amy, map[string]any{"username": "troll", "post_ids": []int64{bad}, "reason": "nasty"})
	var r store.Report
	if mustDecode(t, body, &r); status != 201 || r.Target.Username != "troll" || r.Reporter.Username != "amy" || len(r.Posts) != 1 || r.Resolved {
		t.Fatalf("report: %d %s", status, body)
	}
	ts.wantStatus(t, "POST", "/api/v1/reports", amy, map[string]any{"username": "troll", "post_ids": []int64{bad + 1000}, "reason": "x"}, 404, "post_not_found")
	for _, tok := range []string{amy, troll} {
		ts.wantStatus(t, "GET", "/api/v1/admin/reports", tok, nil, 403, "not_admin")
		ts.wantStatus(t, "POST", "/api/v1/admin/users/troll/suspend", tok, nil, 403, "not_admin")
		ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/admin/posts/%d", bad), tok, nil, 403, "not_admin")
	}
	ts.wantStatus(t, "GET", "/api/v1/admin/reports", "", nil, 401, "unauthorized")
	var reports store.Page[store.Report]
	ts.getJSON(t, boss, "/api/v1/admin/reports?resolved=false", &reports)
	if len(reports.Items) != 1 || reports.Items[0].ID != r.ID {
		t.Fatalf("open reports: %+v", reports.Items)
	}
	ts.wantStatus(t, "GET", "/api/v1/admin/reports?resolved=maybe", boss, nil, 400, "invalid_query")
	ts.wantStatus(t, "POST", "/api/v1/admin/reports/999/resolve", boss, nil, 404, "report_not_found")

	ws := ts.dialWS(t, troll, "")
	ws.ready(t)
	ts.wantStatus(t, "POST", "/api/v1/admin/users/troll/suspend", boss, nil, 204, "")
	if code := ws.CloseCode(t, 30*time.Second); code != 4001 {
		t.Fatalf("the suspended user's socket closed with %d, want 4001", code)
	}
	ts.wantStatus(t, "GET", "/api/v1/me", troll, nil, 401, "unauthorized")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "troll", "password": testPassword}, 403, "suspended")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "troll", "password": "wrong-password"}, 401, "invalid_credentials")
	for _, p := range []string{"/api/v1/timelines/home", "/api/v1/timelines/public", "/api/v1/users/troll/posts"} {
		if ids := ts.pageIDs(t, amy, p); slices.Contains(ids, worse) {
			t.Errorf("%s shows a suspended user's post: %v", p, ids)
		}
	}
	ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d", worse), boss, nil, 404, "post_not_found")
	ts.getJSON(t, boss, "/api/v1/admin/reports?resolved=false", &reports)
	if len(reports.Items) != 1 || len(reports.Items[0].Posts) != 1 {
		t.Fatalf("the report lost its post while its author is suspended: %+v", reports.Items)
	}

	ts.wantStatus(t, "DELETE", "/api/v1/admin/users/troll/suspend", boss, nil, 204, "")
	if ids := ts.pageIDs(t, amy, "/api/v1/users/troll/posts"); !slices.Contains(ids, worse) || !slices.Contains(ids, bad) {
		t.Errorf("after the suspension, troll's posts are not all back: %v", ids)
	}
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "troll", "password": testPassword}, 200, "")
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/admin/posts/%d", bad), boss, nil, 204, "")
	ts.wantStatus(t, "GET", fmt.Sprintf("/api/v1/posts/%d", bad), amy, nil, 404, "post_not_found")
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/admin/posts/%d", bad), boss, nil, 404, "post_not_found")

	status, body = ts.call(t, "POST", fmt.Sprintf("/api/v1/admin/reports/%d/resolve", r.ID), boss, nil)
	if mustDecode(t, body, &r); status != 200 || !r.Resolved {
		t.Fatalf("resolve: %d %s", status, body)
	}
	ts.getJSON(t, boss, "/api/v1/admin/reports", &reports)
	if len(reports.Items) != 0 {
		t.Errorf("open reports after resolving: %+v", reports.Items)
	}
	ts.getJSON(t, boss, "/api/v1/admin/reports?resolved=true", &reports)
	if len(reports.Items) != 1 || !reports.Items[0].Resolved {
		t.Errorf("resolved reports: %+v", reports.Items)
	}
}
