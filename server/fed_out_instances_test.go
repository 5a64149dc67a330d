package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"microblog/store/storetest"
)

// TestFedOutTwoInstances: two instances of this service, each on its own
// Redis with its own origin. bob on B follows alice@A by name through the
// native API (WebFinger, then a Follow delivered to A, accepted back);
// alice's post on A then reaches bob's home timeline on B, her reply to
// bob's post answers it there, and her edit and delete follow it.
func TestFedOutTwoInstances(t *testing.T) {
	parallel(t)
	if storetest.ClusterMode() {
		t.Skip("two services need two Redis: the test binary has one cluster, flushed by each server it starts")
	}
	a := newFedServer(t, fedOutEnv...)
	b := newFedServer(t, fedOutEnv...)
	aliceTok, _ := a.register(t, "alice")
	bobTok, _ := b.register(t, "bob")
	handle := "alice@" + hostOf(a.URL)

	if st, body := b.call(t, "PUT", "/api/v1/users/"+handle+"/follow", bobTok, nil); st/100 != 2 {
		t.Fatalf("follow %s: %d %s", handle, st, body)
	}
	// A takes the Follow: alice has a follower from B.
	waitFor(t, "alice's follower on B", func() bool {
		st, body := a.call(t, "GET", "/api/v1/users/alice/followers", aliceTok, nil)
		return st == http.StatusOK && strings.Contains(string(body), "bob@"+hostOf(b.URL))
	})

	p := a.post(t, aliceTok, "hello from A", 0)
	var remoteMid int64
	waitFor(t, "alice's post in bob's home timeline on B", func() bool {
		for _, q := range homePosts(t, b, bobTok) {
			if q.Content == "hello from A" && q.Author.Username == handle {
				remoteMid = q.ID
				return true
			}
		}
		return false
	})

	a.editPost(t, aliceTok, p.ID, "hello from A, edited")
	waitFor(t, "the edit on B", func() bool {
		for _, q := range homePosts(t, b, bobTok) {
			if q.ID == remoteMid {
				return q.Content == "hello from A, edited"
			}
		}
		return false
	})

	if st, body := a.call(t, "DELETE", "/api/v1/posts/"+strconv.FormatInt(p.ID, 10), aliceTok, nil); st/100 != 2 {
		t.Fatalf("delete: %d %s", st, body)
	}
	waitFor(t, "the delete on B", func() bool {
		for _, q := range homePosts(t, b, bobTok) {
			if q.ID == remoteMid {
				return false
			}
		}
		return true
	})
}

// waitFor polls cond until it holds (within hangWait).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s never came", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
