package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"microblog/server/federation/fedifytest"
	"microblog/store"
)

// livePost reads ws until a post frame whose content contains marker
// arrives, and answers it.
func livePost(t testing.TB, ws *wsClient, marker string) store.Post {
	t.Helper()
	deadline := time.Now().Add(fedWait)
	var seen []string
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("no live post containing %q within %v; frames: %v", marker, fedWait, seen)
		}
		f := ws.Next(t, left)
		seen = append(seen, f.String())
		if f.Event != "post" {
			continue
		}
		var p store.Post
		mustDecode(t, f.Data, &p)
		if strings.Contains(p.Content, marker) {
			return p
		}
	}
}

// TestFedifyFollowedByPartner: the partner follows a local user by actor
// URL, the Accept comes back (signed by this service, verified by Fedify),
// and the user's posts, edits and deletes reach the partner; Fedify's first
// knock, RFC 9421, is what this service's inbox accepted.
func TestFedifyFollowedByPartner(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	alice, aliceID := ts.register(t, "alice")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	actor := ts.actorURL(aliceID)

	since := p.Seq(t)
	ts.followedByPartner(t, fedi, aliceID)
	accept := p.Wait(t, since, fedWait, "the Accept", func(a fedifytest.Activity) bool { return a.Type == "Accept" && a.Actor == actor })
	if accept.Signature != "draft-cavage-http-signatures-12" || accept.ObjectID == "" {
		t.Errorf("the Accept as Fedify received it: signature %q, object %q", accept.Signature, accept.ObjectID)
	}
	// Fedify tries RFC 9421 first and keeps to what an origin accepted:
	// this service's inbox took the RFC 9421-signed Follow.
	if spec := p.SigSpec(t, ts.URL); spec != "rfc9421" {
		t.Errorf("Fedify settled on %q for %s, want rfc9421 (its first knock accepted)", spec, ts.URL)
	}
	fedEventually(t, "alice's fan "+fedi.Handle, func() bool {
		return slices.ContainsFunc(ts.userNames(t, alice, "/api/v1/users/alice/followers"), func(n string) bool { return strings.EqualFold(n, fedi.Handle) })
	}, func() string { return fmt.Sprint(ts.userNames(t, alice, "/api/v1/users/alice/followers")) })

	// A post, with a hashtag and a content warning, reaches the partner as
	// a public Note by alice.
	since = p.Seq(t)
	status, body := ts.call(t, "POST", "/api/v1/posts", alice, map[string]any{"content": "hello fediverse #interop", "spoiler": "a warning"})
	if status != http.StatusCreated {
		t.Fatalf("post: %d %s", status, body)
	}
	var post store.Post
	mustDecode(t, body, &post)
	create := p.Wait(t, since, fedWait, "alice's Create", func(a fedifytest.Activity) bool {
		return a.Type == "Create" && a.ObjectID == ts.postURL(post.ID)
	})
	if create.Actor != actor || create.AttributedTo != actor || create.ObjectType != "Note" ||
		!strings.Contains(create.Content, "hello fediverse") || create.Signature != "draft-cavage-http-signatures-12" {
		t.Errorf("Create as Fedify read it: %+v", create)
	}
	if !slices.Contains(create.To, "https://www.w3.org/ns/activitystreams#Public") && !slices.Contains(create.CC, "https://www.w3.org/ns/activitystreams#Public") {
		t.Errorf("a public post addressed to %v / %v", create.To, create.CC)
	}
	if !slices.ContainsFunc(create.Tags, func(tg fedifytest.Tag) bool {
		return tg.Type == "Hashtag" && strings.EqualFold(strings.TrimPrefix(tg.Name, "#"), "interop")
	}) {
		t.Errorf("the hashtag is not a tag: %+v", create.Tags)
	}
	if create.Summary != "a warning" {
		t.Errorf("content warning as summary: %q", create.Summary)
	}
	// Fedify dereferences the post at its id, as any server may.
	if typ, obj := fedi.Fetch(t, ts.postURL(post.ID)); typ != "Note" || obj["id"] != ts.postURL(post.ID) {
		t.Errorf("fetched post: %s %v", typ, obj)
	}

	// An edit is an Update of the Note, a delete a Delete.
	since = p.Seq(t)
	if status, body := ts.call(t, "PATCH", fmt.Sprintf("/api/v1/posts/%d", post.ID), alice, map[string]any{"content": "hello fediverse, edited"}); status != http.StatusOK {
		t.Fatalf("edit: %d %s", status, body)
	}
	upd := p.Wait(t, since, fedWait, "alice's Update", func(a fedifytest.Activity) bool {
		return a.Type == "Update" && a.ObjectID == ts.postURL(post.ID)
	})
	if !strings.Contains(upd.Content, "edited") {
		t.Errorf("Update as Fedify read it: %+v", upd)
	}
	since = p.Seq(t)
	if status, body := ts.call(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", post.ID), alice, nil); status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", status, body)
	}
	p.Wait(t, since, fedWait, "alice's Delete", func(a fedifytest.Activity) bool {
		return a.Type == "Delete" && a.ObjectID == ts.postURL(post.ID) && a.Actor == actor
	})

	// The profile: an Update of the Person.
	since = p.Seq(t)
	ts.patchMe(t, alice, map[string]any{"bio": "now federated"})
	p.Wait(t, since, fedWait, "alice's Update(Person)", func(a fedifytest.Activity) bool {
		return a.Type == "Update" && a.ObjectID == actor && strings.Contains(a.Summary, "now federated")
	})

	// The partner unfollows: alice loses the fan.
	fedi.Unfollow(t, actor)
	fedEventually(t, "alice losing her fan", func() bool {
		return !slices.ContainsFunc(ts.userNames(t, alice, "/api/v1/users/alice/followers"), func(n string) bool { return strings.EqualFold(n, fedi.Handle) })
	}, func() string { return fmt.Sprint(ts.userNames(t, alice, "/api/v1/users/alice/followers")) })
	if _, unverified := p.Inbox(t, 0); slices.ContainsFunc(unverified, func(u fedifytest.Unverified) bool { return strings.HasPrefix(u.Actor, ts.URL) }) {
		t.Errorf("Fedify refused this service's signatures: %+v", unverified)
	}
}

// TestFedifyFollowPartner: a local user follows the partner's user by
// name@domain; the partner's posts reach the follower's home timeline and
// open WebSocket live, and its edits, deletes and profile changes follow.
func TestFedifyFollowPartner(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, bobID := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{DisplayName: "Fedi Partner", Summary: "<p>made with <b>Fedify</b></p>"})

	status, remote := ts.fedUser(t, bob, fedi.Handle)
	if status != http.StatusOK || !strings.EqualFold(remote.Username, fedi.Handle) || !strings.Contains(remote.Bio, "made with Fedify") {
		t.Fatalf("GET %s: %d %+v", fedi.Handle, status, remote)
	}
	ws := ts.dialWS(t, bob, "")
	ws.ready(t)
	ts.followRemote(t, bob, "bob", fedi)
	if r := fedi.Relations(t); !slices.Contains(r.Followers, ts.actorURL(bobID)) {
		t.Fatalf("the partner's followers: %+v", r)
	}

	r := fedi.Post(t, fedifytest.Post{Content: `<p>Hello from <b>Fedify</b> <a href="x">#interop</a></p><p>second paragraph</p>`, Hashtags: []string{"interop"}})
	live := livePost(t, ws, "Hello from Fedify")
	if !strings.EqualFold(live.Author.Username, fedi.Handle) || strings.Contains(live.Content, "<") || !strings.Contains(live.Content, "second paragraph") {
		t.Errorf("live post: %+v", live)
	}
	home := ts.findPost(t, bob, "/api/v1/timelines/home", "the partner's post in bob's home", func(p store.Post) bool { return p.ID == live.ID })
	if !slices.ContainsFunc(home.Tags, func(s string) bool { return strings.EqualFold(s, "interop") }) {
		t.Errorf("the post's tags: %v", home.Tags)
	}

	// An edit shows; a delete removes it.
	fedi.Edit(t, r.ID, "<p>Hello from Fedify, edited</p>", nil)
	ts.findPost(t, bob, "/api/v1/timelines/home", "the edit in bob's home", func(p store.Post) bool {
		return p.ID == live.ID && strings.Contains(p.Content, "edited")
	})
	fedi.Delete(t, r.ID)
	fedEventually(t, "the partner's post deleted", func() bool {
		status, _ := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", live.ID), bob, nil)
		return status == http.StatusNotFound
	}, func() string {
		_, b := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", live.ID), bob, nil)
		return string(b)
	})

	// A poll arrives as a poll.
	fedi.Post(t, fedifytest.Post{Content: "<p>Which one?</p>", Poll: &fedifytest.Poll{Options: []string{"tea", "coffee"}}})
	poll := livePost(t, ws, "Which one?")
	if poll.Poll == nil {
		t.Errorf("the Question arrived without its poll: %+v", poll)
	}

	// The profile changes.
	fedi.UpdateProfile(t, "Fedi Renamed", "<p>new bio</p>")
	fedEventually(t, "the partner's new bio", func() bool {
		_, u := ts.fedUser(t, bob, fedi.Handle)
		return strings.Contains(u.Bio, "new bio")
	}, func() string { _, u := ts.fedUser(t, bob, fedi.Handle); b, _ := json.Marshal(u); return string(b) })

	// Unfollowing sends Undo(Follow): the partner loses its follower.
	since := p.Seq(t)
	ts.follow(t, bob, userPathName(fedi), false)
	undo := p.Wait(t, since, fedWait, "the Undo(Follow)", func(a fedifytest.Activity) bool {
		return a.Type == "Undo" && a.Actor == ts.actorURL(bobID) && a.ObjectType == "Follow"
	})
	sent := p.Wait(t, 0, fedWait, "bob's Follow", func(a fedifytest.Activity) bool {
		return a.Type == "Follow" && a.Actor == ts.actorURL(bobID) && a.ObjectID == fedi.ID
	})
	if undo.ObjectID != sent.ID {
		t.Errorf("the Undo embeds the Follow %q, want the one sent, %q", undo.ObjectID, sent.ID)
	}
	if r := fedi.Relations(t); slices.Contains(r.Followers, ts.actorURL(bobID)) {
		t.Errorf("the partner still lists bob: %+v", r)
	}
}

// userPathName is u's name as ts.follow puts it in a path.
func userPathName(u *fedifytest.User) string { return u.Handle }

// TestFedifyLockedPartner: following a partner account that approves its
// followers stays a request until the partner's Accept comes (verified
// here, a Fedify signature); a Reject ends it.
func TestFedifyLockedPartner(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, bobID := ts.register(t, "bob")
	locked := p.NewUser(t, fedifytest.UserOptions{Locked: true})
	following := func() bool {
		_, u := ts.fedUser(t, bob, locked.Handle)
		return u.Following != nil && *u.Following
	}
	requested := func() bool {
		_, u := ts.fedUser(t, bob, locked.Handle)
		return u.Requested != nil && *u.Requested
	}

	since := p.Seq(t)
	status, body := ts.call(t, "PUT", userPath(locked.Handle)+"/follow", bob, nil)
	if status != http.StatusAccepted && status != http.StatusNoContent {
		t.Fatalf("follow: %d %s", status, body)
	}
	p.Wait(t, since, fedWait, "the Follow", func(a fedifytest.Activity) bool { return a.Type == "Follow" && a.ObjectID == locked.ID })
	if following() || !requested() {
		t.Fatalf("before the Accept: following %v, requested %v; want a request", following(), requested())
	}
	locked.Accept(t, ts.actorURL(bobID))
	fedEventually(t, "bob following after the Accept", following, func() string { return fmt.Sprint(requested()) })

	// Unfollow, ask again, and be rejected.
	ts.follow(t, bob, locked.Handle, false)
	fedEventually(t, "the partner losing bob", func() bool { return !slices.Contains(locked.Relations(t).Followers, ts.actorURL(bobID)) },
		func() string { return fmt.Sprint(locked.Relations(t)) })
	ts.call(t, "PUT", userPath(locked.Handle)+"/follow", bob, nil)
	fedEventually(t, "the second request", func() bool { return slices.Contains(locked.Relations(t).Pending, ts.actorURL(bobID)) },
		func() string { return fmt.Sprint(locked.Relations(t)) })
	locked.Reject(t, ts.actorURL(bobID))
	fedEventually(t, "the request ended by the Reject", func() bool { return !requested() && !following() },
		func() string { return fmt.Sprintf("requested %v following %v", requested(), following()) })
}
