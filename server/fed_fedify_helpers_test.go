package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"microblog/server/federation/fedifytest"
	"microblog/store"
)

// The interop tests against Fedify (fed_fedify_*_test.go): this service,
// with federation on, and the test binary's Fedify partner
// (server/federation/fedifytest), a real and independent ActivityPub
// server, follow, post, reply, like, repost, edit, delete, block and
// message each other.

// fedWait bounds a wait for something federated (a delivery, its effect):
// far above what it takes, a deadline against a hang.
const fedWait = 30 * time.Second

// fedifyServer starts this service with federation on, its public URL its
// own origin, and the private and loopback addresses the partner lives on
// allowed, with env's other settings; the shared partner forgets what it
// may have cached of an earlier server on the same port.
func fedifyServer(t testing.TB, env ...string) *testServer {
	t.Helper()
	ts := newFedServer(t, env...)
	fedifytest.Shared(t).Forget(t, ts.URL)
	return ts
}

// actorURL is the ActivityPub id of the local user uid.
func (ts *testServer) actorURL(uid int64) string { return fmt.Sprintf("%s/ap/users/%d", ts.URL, uid) }

// postURL is the ActivityPub id of the local post id.
func (ts *testServer) postURL(id int64) string { return fmt.Sprintf("%s/ap/posts/%d", ts.URL, id) }

// remoteName is how this service names a partner user: name@host.
func remoteName(u *fedifytest.User) string { return u.Handle }

// userPath is the native API's path of a user named name (local or
// name@domain).
func userPath(name string) string { return "/api/v1/users/" + url.PathEscape(name) }

// fedEventually polls cond every 50 ms until it holds, failing t after fedWait
// with what describe says then.
func fedEventually(t testing.TB, what string, cond func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(fedWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v; now: %s", what, fedWait, describe())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fedPosts answers a page of posts at path as token's user.
func (ts *testServer) fedPosts(t testing.TB, token, path string) []store.Post {
	t.Helper()
	status, body := ts.call(t, "GET", path, token, nil)
	if status != http.StatusOK {
		return nil
	}
	var page store.Page[store.Post]
	mustDecode(t, body, &page)
	return page.Items
}

// findPost waits for a post at path (a timeline or list) that match
// accepts, and answers it.
func (ts *testServer) findPost(t testing.TB, token, path, what string, match func(store.Post) bool) store.Post {
	t.Helper()
	var found store.Post
	var last []store.Post
	fedEventually(t, what, func() bool {
		last = ts.fedPosts(t, token, path)
		for _, p := range last {
			if match(p) {
				found = p
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%s lists %+v", path, last) })
	return found
}

// fedUser answers GET /users/:name as token's user (status, user).
func (ts *testServer) fedUser(t testing.TB, token, name string) (int, store.User) {
	t.Helper()
	status, body := ts.call(t, "GET", userPath(name), token, nil)
	var u store.User
	if status == http.StatusOK {
		mustDecode(t, body, &u)
	}
	return status, u
}

// followRemote makes token's user follow the partner user u by name@domain
// (WebFinger, then the actor), and waits for the partner to receive the
// Follow and this service to take its Accept.
func (ts *testServer) followRemote(t testing.TB, token, localName string, u *fedifytest.User) {
	t.Helper()
	p := u.Partner()
	since := p.Seq(t)
	status, body := ts.call(t, "PUT", userPath(remoteName(u))+"/follow", token, nil)
	if status != http.StatusNoContent && status != http.StatusAccepted {
		t.Fatalf("follow %s: %d %s", remoteName(u), status, body)
	}
	p.Wait(t, since, fedWait, "the Follow of "+u.ID, func(a fedifytest.Activity) bool {
		return a.Type == "Follow" && a.ObjectID == u.ID
	})
	fedEventually(t, localName+" following "+remoteName(u), func() bool {
		var page store.Page[store.User]
		ts.getJSON(t, token, userPath(localName)+"/following", &page)
		for _, f := range page.Items {
			if strings.EqualFold(f.Username, remoteName(u)) {
				return true
			}
		}
		return false
	}, func() string { return "not in " + localName + "'s following" })
}

// followedByPartner makes the partner user u follow the local user uid
// (by actor URL: Fedify looks acct: handles up over https only) and waits
// for its Accept.
func (ts *testServer) followedByPartner(t testing.TB, u *fedifytest.User, uid int64) {
	t.Helper()
	p := u.Partner()
	since := p.Seq(t)
	actor := ts.actorURL(uid)
	u.Follow(t, actor)
	p.Wait(t, since, fedWait, "the Accept from "+actor, func(a fedifytest.Activity) bool {
		return a.Type == "Accept" && a.Actor == actor
	})
	if r := u.Relations(t); r.Following[actor] != "accepted" {
		t.Fatalf("the partner's follows: %+v", r)
	}
}
