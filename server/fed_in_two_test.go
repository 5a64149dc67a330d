package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// eventually polls cond until it holds, failing the test after hangWait.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestFedInTwoInstances: two instances of this service, each on its own
// Redis. A's alice follows B's bob through the native API by name@domain;
// B takes the follow; bob's post reaches alice's home timeline and her
// open socket live; alice's reply becomes a comment on B and her like
// counts there; bob's mention of alice notifies her; bob's delete
// removes his post from A.
func TestFedInTwoInstances(t *testing.T) {
	parallel(t)
	// Each on a redis-server of its own, also when the test binary runs
	// on a cluster (which each server it starts would flush).
	fedEnv := []string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self", "MICROBLOG_FEDERATION_ALLOW_PRIVATE=on"}
	a, b := startServer(t, startRedis(t), fedEnv...), startServer(t, startRedis(t), fedEnv...)
	aliceTok, _ := a.register(t, "alice")
	bobTok, _ := b.register(t, "bob")
	hostA, hostB := strings.TrimPrefix(a.URL, "http://"), strings.TrimPrefix(b.URL, "http://")
	bobAtB := "bob@" + hostB

	a.follow(t, aliceTok, url.PathEscape(bobAtB), true)
	eventually(t, "B to take alice's follow", func() bool {
		return remoteUser(t, b, "", "bob").FollowersCount == 1
	})
	st, body := b.call(t, "GET", "/api/v1/users/bob/followers", "", nil)
	if st != 200 || !strings.Contains(string(body), `"username":"alice@`+hostA+`"`) {
		t.Fatalf("bob's followers on B: %d %s", st, body)
	}
	if u := remoteUser(t, a, aliceTok, bobAtB); !u.Remote || u.Following == nil || !*u.Following {
		t.Fatalf("bob on A: %+v", u)
	}

	ws := a.dialWS(t, aliceTok, "")
	ws.ready(t)
	start := time.Now()
	bobPost := b.newPost(t, bobTok, "hello #fediverse from B")
	f := ws.expect(t, store.EventPost, 0)
	t.Logf("B's post reached alice's socket on A in %v", time.Since(start))
	var live store.Post
	if err := json.Unmarshal(f.Data, &live); err != nil {
		t.Fatal(err)
	}
	if live.Author.Username != bobAtB || live.Content != "hello #fediverse from B" {
		t.Fatalf("live post on A: %+v", live)
	}
	if home := homePosts(t, a, aliceTok); len(home) != 1 || home[0].ID != live.ID {
		t.Fatalf("alice's home: %+v", home)
	}

	// alice's reply is a comment on B; her like counts there.
	if st, body := a.call(t, "POST", "/api/v1/posts/"+strconv.FormatInt(live.ID, 10)+"/comments", aliceTok,
		map[string]string{"content": "nice one"}); st != http.StatusCreated {
		t.Fatalf("reply on A: %d %s", st, body)
	}
	if st, body := a.call(t, "PUT", "/api/v1/posts/"+strconv.FormatInt(live.ID, 10)+"/like", aliceTok, nil); st/100 != 2 {
		t.Fatalf("like on A: %d %s", st, body)
	}
	eventually(t, "the reply and the like to reach B", func() bool {
		p := getPost(t, b, bobTok, bobPost)
		return p.CommentsCount == 1 && p.LikesCount == 1
	})
	_, body = b.call(t, "GET", "/api/v1/posts/"+strconv.FormatInt(bobPost, 10)+"/comments", bobTok, nil)
	var comments struct{ Items []store.Post }
	mustDecode(t, body, &comments)
	if len(comments.Items) != 1 || comments.Items[0].Content != "nice one" || comments.Items[0].Author.Username != "alice@"+hostA {
		t.Fatalf("comments on B: %s", body)
	}

	// bob mentions alice: she is notified on A.
	b.newPost(t, bobTok, "@alice@"+hostA+" welcome")
	eventually(t, "the mention to notify alice", func() bool {
		_, body := a.call(t, "GET", "/api/v1/notifications", aliceTok, nil)
		return strings.Contains(string(body), `"kind":"mention"`)
	})

	// bob deletes his first post: it leaves A.
	if st, _ := b.call(t, "DELETE", "/api/v1/posts/"+strconv.FormatInt(bobPost, 10), bobTok, nil); st/100 != 2 {
		t.Fatalf("delete on B: %d", st)
	}
	eventually(t, "the delete to reach A", func() bool {
		st, _ := a.call(t, "GET", "/api/v1/posts/"+strconv.FormatInt(live.ID, 10), aliceTok, nil)
		return st == http.StatusNotFound
	})
}
