package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFedInMore: an Announce reposts a local post and its Undo removes
// the repost; a direct note to a local user is a private message; a
// protected account's post is served to a signed fetch of an approved
// follower only; a Block ends the follows; Delete of the actor removes the
// remote account.
func TestFedInMore(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	peer.addActor("eve")
	tok, alice := ts.register(t, "alice")
	inbox := ts.URL + "/ap/inbox"
	mine := ts.newPost(t, tok, "repost me")
	postURL := ts.URL + "/ap/posts/" + strconv.FormatInt(mine, 10)

	announce := map[string]any{"id": peer.actor("bob") + "/announces/1", "type": "Announce", "object": postURL,
		"to": []string{"https://www.w3.org/ns/activitystreams#Public"}}
	if st := peer.send(t, inbox, "bob", announce); st != http.StatusAccepted {
		t.Fatalf("announce: %d", st)
	}
	if p := getPost(t, ts, tok, mine); p.RepostsCount != 1 {
		t.Fatalf("reposts %d, want 1", p.RepostsCount)
	}
	undo := map[string]any{"id": peer.actor("bob") + "/announces/1/undo", "type": "Undo", "object": announce}
	if st := peer.send(t, inbox, "bob", undo); st != http.StatusAccepted {
		t.Fatalf("undo announce: %d", st)
	}
	if p := getPost(t, ts, tok, mine); p.RepostsCount != 0 {
		t.Errorf("reposts %d after undo, want 0", p.RepostsCount)
	}

	// A direct note is a private message.
	dm := map[string]any{"id": peer.actor("bob") + "/notes/dm1/activity", "type": "Create", "object": map[string]any{
		"id": peer.actor("bob") + "/notes/dm1", "type": "Note", "attributedTo": peer.actor("bob"),
		"content": "<p>just for you</p>", "to": []string{apUser(ts, alice)}}}
	if st := peer.send(t, inbox, "bob", dm); st != http.StatusAccepted {
		t.Fatalf("dm: %d", st)
	}
	st, b := ts.call(t, "GET", "/api/v1/conversations/"+peer.handle("bob")+"/messages", tok, nil)
	if st != 200 || !strings.Contains(string(b), "just for you") {
		t.Errorf("conversation: %d %s", st, b)
	}
	if home := homePosts(t, ts, tok); len(home) != 1 {
		t.Errorf("the private message reached the home timeline: %+v", home)
	}

	// Protected: an approved follower's signed fetch is served, another's not.
	if st, b := ts.call(t, "PATCH", "/api/v1/me", tok, map[string]bool{"protected": true}); st != 200 {
		t.Fatalf("protect: %d %s", st, b)
	}
	follow := map[string]any{"id": peer.actor("bob") + "/follows/1", "type": "Follow", "object": apUser(ts, alice)}
	if st := peer.send(t, inbox, "bob", follow); st != http.StatusAccepted {
		t.Fatalf("follow: %d", st)
	}
	if st, b := ts.call(t, "PUT", "/api/v1/me/follow_requests/"+peer.handle("bob"), tok, nil); st/100 != 2 {
		t.Fatalf("approve: %d %s", st, b)
	}
	if st := peer.fetch(t, postURL, "bob"); st != http.StatusOK {
		t.Errorf("approved follower's fetch: %d", st)
	}
	if st := peer.fetch(t, postURL, "eve"); st != http.StatusNotFound {
		t.Errorf("another's fetch: %d", st)
	}
	if st := getAP(t, postURL, nil); st != http.StatusNotFound {
		t.Errorf("unsigned fetch: %d", st)
	}

	// A Block ends the follow.
	block := map[string]any{"id": peer.actor("bob") + "/blocks/1", "type": "Block", "object": apUser(ts, alice)}
	if st := peer.send(t, inbox, "bob", block); st != http.StatusAccepted {
		t.Fatalf("block: %d", st)
	}
	if u := remoteUser(t, ts, tok, peer.handle("bob")); u.BlockedBy == nil || !*u.BlockedBy {
		t.Errorf("bob does not block alice: %+v", u)
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 0 {
		t.Errorf("alice has %d followers after the block", u.FollowersCount)
	}

	// Delete of the actor removes the account.
	del := map[string]any{"id": peer.actor("bob") + "#delete", "type": "Delete", "object": peer.actor("bob")}
	if st := peer.send(t, inbox, "bob", del); st != http.StatusAccepted {
		t.Fatalf("delete actor: %d", st)
	}
	deadline := time.Now().Add(hangWait)
	for {
		st, _ := ts.call(t, "GET", "/api/v1/users/"+peer.handle("bob")+"/posts", tok, nil)
		u := remoteUser(t, ts, tok, peer.handle("bob"))
		// Looked up again, the actor is read anew: a new account, with none
		// of the old one's relations.
		if st == 200 && (u.BlockedBy == nil || !*u.BlockedBy) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob still there after Delete: %+v", u)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestFedInNoteParts: a note's summary is its content warning, its image
// attachments are kept by URL with alt text and blurhash, a document that
// is not an image is left out, and @name@domain mentions of a known remote
// account mention it.
func TestFedInNoteParts(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	peer.addActor("carl")
	tok, _ := ts.register(t, "alice")
	ts.follow(t, tok, peer.handle("bob"), true)
	remoteUser(t, ts, tok, peer.handle("carl"))         // known here from now on
	img := servePicture(t, pngBytes(testImage(40, 30))) // fetched and kept here (fed_in_media_test.go)
	n := map[string]any{"id": peer.actor("bob") + "/notes/p1", "type": "Note", "attributedTo": peer.actor("bob"),
		"content": `<p>look <span class="h-card"><a href="` + peer.srv.URL + `/@carl">@<span>carl</span></a></span></p>`,
		"summary": "cats", "sensitive": true, "to": []string{"https://www.w3.org/ns/activitystreams#Public"},
		"tag": []map[string]any{{"type": "Mention", "href": peer.actor("carl"), "name": "@" + peer.handle("carl")}},
		"attachment": []map[string]any{
			{"type": "Document", "mediaType": "image/png", "url": img, "name": "a cat", "blurhash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj"},
			{"type": "Document", "mediaType": "application/pdf", "url": peer.srv.URL + "/x.pdf"},
		}}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", map[string]any{"id": peer.actor("bob") + "/notes/p1/activity", "type": "Create", "object": n}); st != http.StatusAccepted {
		t.Fatalf("create: %d", st)
	}
	home := homePosts(t, ts, tok)
	if len(home) != 1 {
		t.Fatalf("home: %+v", home)
	}
	p := home[0]
	if p.Spoiler != "cats" || p.Content != "look @"+peer.handle("carl") {
		t.Errorf("post: spoiler %q content %q", p.Spoiler, p.Content)
	}
	if len(p.Media) != 1 || p.Media[0].URL == img || p.Media[0].Alt != "a cat" || p.Media[0].Blurhash == "" || p.Media[0].Width != 40 {
		t.Errorf("media: %+v", p.Media)
	}
	if len(p.Mentions) != 1 || p.Mentions[0].Username != peer.handle("carl") {
		t.Errorf("mentions: %+v", p.Mentions)
	}
}

// TestFedInRemoteNoLogin: a remote account has no password: logging in
// with its name fails as any wrong login does, and no one can register a
// name with an @.
func TestFedInRemoteNoLogin(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	tok, _ := ts.register(t, "alice")
	remoteUser(t, ts, tok, peer.handle("bob"))
	for _, pw := range []string{"", testPassword} {
		if st, b := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": peer.handle("bob"), "password": pw}); st/100 != 4 {
			t.Errorf("login as the remote account with %q: %d %s", pw, st, b)
		}
	}
	if st, _ := ts.call(t, "POST", "/api/v1/users", "", map[string]string{"username": "eve@" + peer.host(), "password": testPassword}); st != http.StatusBadRequest {
		t.Errorf("register a name with @: %d", st)
	}
}
