package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// apUser is a local user's actor URL on ts.
func apUser(ts *testServer, uid int64) string {
	return ts.URL + "/ap/users/" + strconv.FormatInt(uid, 10)
}

// remoteUser reads a user by name through the native API.
func remoteUser(t testing.TB, ts *testServer, token, name string) store.User {
	t.Helper()
	st, b := ts.call(t, "GET", "/api/v1/users/"+name, token, nil)
	if st != http.StatusOK {
		t.Fatalf("user %s: %d %s", name, st, b)
	}
	var u store.User
	mustDecode(t, b, &u)
	return u
}

// homeHas tells whether token's home timeline holds a post with content.
func homePosts(t testing.TB, ts *testServer, token string) []store.Post {
	t.Helper()
	st, b := ts.call(t, "GET", "/api/v1/timelines/home", token, nil)
	if st != http.StatusOK {
		t.Fatalf("home: %d %s", st, b)
	}
	var page struct{ Items []store.Post }
	mustDecode(t, b, &page)
	return page.Items
}

// TestFedInFollow: a remote account follows a local one through the
// inbox (a Follow, answered Accept, signed by the local user's key), a
// protected one approves it first (answered Accept then), Undo ends it;
// the remote account is a user named name@domain with remote and url set.
func TestFedInFollow(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	peer.addActor("dan")
	_, alice := ts.register(t, "alice")
	carolTok, carol := ts.register(t, "carol")
	if st, b := ts.call(t, "PATCH", "/api/v1/me", carolTok, map[string]bool{"protected": true}); st != 200 {
		t.Fatalf("protect: %d %s", st, b)
	}

	follow := map[string]any{"id": peer.actor("bob") + "/follows/1", "type": "Follow", "object": apUser(ts, alice)}
	if st := peer.send(t, ts.URL+"/ap/users/"+strconv.FormatInt(alice, 10)+"/inbox", "bob", follow); st != http.StatusAccepted {
		t.Fatalf("follow: %d", st)
	}
	acc := peer.waitFor(t, "Accept")
	if !acc.Signed || acc.Activity["actor"] != apUser(ts, alice) {
		t.Fatalf("accept: %+v", acc)
	}
	if obj, _ := acc.Activity["object"].(map[string]any); obj["id"] != follow["id"] {
		t.Errorf("accept of %v, want the follow %v", obj, follow["id"])
	}
	st, b := ts.call(t, "GET", "/api/v1/users/alice/followers", "", nil)
	if st != 200 || !strings.Contains(string(b), `"username":"`+peer.handle("bob")+`"`) {
		t.Fatalf("alice's followers: %d %s", st, b)
	}
	bob := remoteUser(t, ts, "", peer.handle("bob"))
	if !bob.Remote || bob.URL != peer.srv.URL+"/@bob" || bob.DisplayName != "BOB" || bob.Bio != "I am bob" {
		t.Errorf("remote user: %+v", bob)
	}

	// Undo(Follow) ends it.
	undo := map[string]any{"id": peer.actor("bob") + "/undo/1", "type": "Undo", "object": follow}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", undo); st != http.StatusAccepted {
		t.Fatalf("undo: %d", st)
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 0 {
		t.Errorf("after undo alice has %d followers", u.FollowersCount)
	}

	// A protected account is asked; its approval answers Accept.
	f2 := map[string]any{"id": peer.actor("dan") + "/follows/2", "type": "Follow", "object": apUser(ts, carol)}
	if st := peer.send(t, ts.URL+"/ap/inbox", "dan", f2); st != http.StatusAccepted {
		t.Fatalf("follow carol: %d", st)
	}
	if u := remoteUser(t, ts, "", "carol"); u.FollowersCount != 0 {
		t.Fatalf("carol followed before approving: %d", u.FollowersCount)
	}
	if st, b := ts.call(t, "GET", "/api/v1/me/follow_requests", carolTok, nil); st != 200 || !strings.Contains(string(b), peer.handle("dan")) {
		t.Fatalf("carol's requests: %d %s", st, b)
	}
	before := len(peer.received())
	if st, b := ts.call(t, "PUT", "/api/v1/me/follow_requests/"+peer.handle("dan"), carolTok, nil); st/100 != 2 {
		t.Fatalf("approve: %d %s", st, b)
	}
	deadline := time.Now().Add(hangWait)
	for len(peer.received()) == before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := peer.received()
	if len(got) == before || got[before].Activity["type"] != "Accept" || got[before].Activity["actor"] != apUser(ts, carol) || !got[before].Signed {
		t.Fatalf("after approval the peer got %+v", got[before:])
	}
	if u := remoteUser(t, ts, "", "carol"); u.FollowersCount != 1 {
		t.Errorf("carol has %d followers after approving", u.FollowersCount)
	}
}

// TestFedInPosts: a local user follows a remote account by name@domain;
// its Create arrives in the home timeline and over the open socket live;
// a reply becomes a comment, a mention notifies, a like counts, the same
// activity delivered twice takes effect once, an Update edits and a
// Delete removes.
func TestFedInPosts(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	tok, alice := ts.register(t, "alice")
	ts.follow(t, tok, peer.handle("bob"), true)
	ws := ts.dialWS(t, tok, "")
	ws.ready(t)

	note := func(id, content string, extra map[string]any) map[string]any {
		n := map[string]any{"id": peer.actor("bob") + "/notes/" + id, "type": "Note", "attributedTo": peer.actor("bob"),
			"content": content, "to": []string{"https://www.w3.org/ns/activitystreams#Public"},
			"cc": []string{peer.actor("bob") + "/followers"}, "published": time.Now().UTC().Format(time.RFC3339)}
		for k, v := range extra {
			n[k] = v
		}
		return n
	}
	create := func(n map[string]any) map[string]any {
		return map[string]any{"id": n["id"].(string) + "/activity", "type": "Create", "object": n}
	}
	first := create(note("1", `<p>Hello from <a href="https://x.example/tags/fediverse">#<span>fediverse</span></a><br>second line</p><script>alert(1)</script>`, nil))
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", first); st != http.StatusAccepted {
		t.Fatalf("create: %d", st)
	}
	f := ws.expect(t, store.EventPost, 0)
	var live store.Post
	if err := json.Unmarshal(f.Data, &live); err != nil {
		t.Fatal(err)
	}
	if live.Author.Username != peer.handle("bob") || live.Content != "Hello from #fediverse\nsecond line" {
		t.Fatalf("live post: %+v", live)
	}
	if len(live.Tags) != 1 || live.Tags[0] != "fediverse" {
		t.Errorf("tags %v", live.Tags)
	}
	home := homePosts(t, ts, tok)
	if len(home) != 1 || home[0].ID != live.ID {
		t.Fatalf("home: %+v", home)
	}
	// The same activity again takes effect once.
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", first); st != http.StatusAccepted {
		t.Fatalf("redelivery: %d", st)
	}
	// Another activity id for the same note, too.
	again := create(note("1", "<p>Hello again</p>", nil))
	again["id"] = peer.actor("bob") + "/notes/1/activity-2"
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", again); st != http.StatusAccepted {
		t.Fatalf("redelivery 2: %d", st)
	}
	if home := homePosts(t, ts, tok); len(home) != 1 {
		t.Fatalf("after redelivery home has %d posts", len(home))
	}

	// A reply to alice's post, mentioning her, is a comment that notifies.
	mine := ts.newPost(t, tok, "my post")
	reply := create(note("2", `<p><span class="h-card"><a href="`+ts.URL+`/u/alice" class="u-url mention">@<span>alice</span></a></span> nice</p>`,
		map[string]any{"inReplyTo": apUser(ts, alice)[:len(ts.URL)] + "/ap/posts/" + strconv.FormatInt(mine, 10),
			"tag": []map[string]any{{"type": "Mention", "href": apUser(ts, alice), "name": "@alice@" + strings.TrimPrefix(ts.URL, "http://")}}}))
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", reply); st != http.StatusAccepted {
		t.Fatalf("reply: %d", st)
	}
	st, b := ts.call(t, "GET", "/api/v1/posts/"+strconv.FormatInt(mine, 10)+"/comments", tok, nil)
	var comments struct{ Items []store.Post }
	mustDecode(t, b, &comments)
	if st != 200 || len(comments.Items) != 1 || comments.Items[0].Content != "@alice nice" || len(comments.Items[0].Mentions) != 1 {
		t.Fatalf("comments: %d %s", st, b)
	}

	// A like counts once, however often it comes.
	like := map[string]any{"id": peer.actor("bob") + "/likes/1", "type": "Like", "object": ts.URL + "/ap/posts/" + strconv.FormatInt(mine, 10)}
	for range 2 {
		if st := peer.send(t, ts.URL+"/ap/inbox", "bob", like); st != http.StatusAccepted {
			t.Fatalf("like: %d", st)
		}
	}
	if p := getPost(t, ts, tok, mine); p.LikesCount != 1 {
		t.Errorf("likes %d, want 1", p.LikesCount)
	}
	undoLike := map[string]any{"id": peer.actor("bob") + "/likes/1/undo", "type": "Undo", "object": like}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", undoLike); st != http.StatusAccepted {
		t.Fatalf("unlike: %d", st)
	}
	if p := getPost(t, ts, tok, mine); p.LikesCount != 0 {
		t.Errorf("likes %d after undo, want 0", p.LikesCount)
	}

	// A Question arrives with its poll (fed_in_question_test.go).
	q := create(note("3", "<p>Tea or coffee?</p>", map[string]any{"type": "Question",
		"oneOf": []map[string]any{{"type": "Note", "name": "Tea"}, {"type": "Note", "name": "Coffee"}}}))
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", q); st != http.StatusAccepted {
		t.Fatalf("question: %d", st)
	}
	for {
		f := ws.Next(t, hangWait)
		if f.Event == store.EventPost && strings.Contains(string(f.Data), "Tea or coffee?") {
			if !strings.Contains(string(f.Data), `"title":"Tea"`) || !strings.Contains(string(f.Data), `"title":"Coffee"`) || strings.Contains(string(f.Data), "○") {
				t.Errorf("question: %s", f.Data)
			}
			break
		}
	}

	// Update edits, Delete removes.
	upd := map[string]any{"id": peer.actor("bob") + "/notes/1/update", "type": "Update", "object": note("1", "<p>Hello, edited</p>", nil)}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", upd); st != http.StatusAccepted {
		t.Fatalf("update: %d", st)
	}
	if p := getPost(t, ts, tok, live.ID); p.Content != "Hello, edited" {
		t.Errorf("after update: %q", p.Content)
	}
	del := map[string]any{"id": peer.actor("bob") + "/notes/1/delete", "type": "Delete",
		"object": map[string]any{"id": peer.actor("bob") + "/notes/1", "type": "Tombstone"}}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", del); st != http.StatusAccepted {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := ts.call(t, "GET", "/api/v1/posts/"+strconv.FormatInt(live.ID, 10), tok, nil); st != http.StatusNotFound {
		t.Errorf("deleted post: %d", st)
	}
}

// getPost reads a post through the native API.
func getPost(t testing.TB, ts *testServer, token string, id int64) store.Post {
	t.Helper()
	st, b := ts.call(t, "GET", "/api/v1/posts/"+strconv.FormatInt(id, 10), token, nil)
	if st != http.StatusOK {
		t.Fatalf("post %d: %d %s", id, st, b)
	}
	var p store.Post
	mustDecode(t, b, &p)
	return p
}
