package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFedOutTwoInstances: two instances of this service, each on its own
// Redis with its own origin. bob on B follows alice@A by name through the
// native API (WebFinger, then a Follow delivered to A, accepted back);
// alice's post on A then reaches bob's home timeline on B; bob's like and
// repost of it there reach A (Like, Announce); her edit and delete follow
// it to B.
func TestFedOutTwoInstances(t *testing.T) {
	parallel(t)
	// Each on a redis-server of its own, also when the test binary runs on
	// a cluster (which each server it starts would flush).
	env := append([]string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self", "MICROBLOG_FEDERATION_ALLOW_PRIVATE=on"}, fedOutEnv...)
	a, b := startServer(t, startRedis(t), env...), startServer(t, startRedis(t), env...)
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

	// bob likes and reposts it on B: A counts both on alice's post.
	if st, body := b.call(t, "PUT", "/api/v1/posts/"+strconv.FormatInt(remoteMid, 10)+"/like", bobTok, nil); st/100 != 2 {
		t.Fatalf("like: %d %s", st, body)
	}
	b.repost(t, bobTok, remoteMid)
	waitFor(t, "bob's like and repost counted on A", func() bool {
		st, body := a.call(t, "GET", "/api/v1/posts/"+strconv.FormatInt(p.ID, 10), aliceTok, nil)
		var q struct {
			LikesCount   int64 `json:"likes_count"`
			RepostsCount int64 `json:"reposts_count"`
		}
		mustDecode(t, body, &q)
		return st == http.StatusOK && q.LikesCount == 1 && q.RepostsCount == 1
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
