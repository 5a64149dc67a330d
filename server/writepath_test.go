package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/storetest"
)

// TestClientTimeoutsMakeNoSecondPost: an author with 5,000 fans posts with
// clients that give up after a few hundred microseconds to a few
// milliseconds (so some give up in the middle of the write), each retried
// with its Idempotency-Key: every key makes exactly one post, the retry
// returns it, and every message written is fully indexed.
func TestClientTimeoutsMakeNoSecondPost(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	rdb := ts.rdb()
	k := keysOf(rdb)
	ctx := context.Background()
	tok, uid := ts.register(t, "star")
	fans := make([]redis.Z, 5000)
	for i := range fans {
		fans[i] = redis.Z{Score: float64(i), Member: 100000 + i}
	}
	rdb.ZAdd(ctx, k.Fans(uid), fans...)

	const tries = 40
	for i := range tries {
		key := fmt.Sprintf("try-%d", i)
		body := map[string]string{"content": "post " + key}
		hdr := http.Header{"Idempotency-Key": {key}}
		impatient := &http.Client{Timeout: time.Duration(200+100*i) * time.Microsecond}
		req := ts.newRequest(t, "POST", "/api/v1/posts", tok, body, hdr)
		var first store.Post
		if resp, err := impatient.Do(req); err == nil {
			if resp.StatusCode == http.StatusCreated {
				jsonDecode(resp, &first)
			}
			resp.Body.Close()
		}
		var retry store.Post
		var status int
		for deadline := time.Now().Add(hangWait); ; time.Sleep(10 * time.Millisecond) { // 409 while the first request still runs
			resp := ts.do(t, "POST", "/api/v1/posts", tok, body, hdr)
			status = resp.StatusCode
			if status == http.StatusCreated {
				jsonDecode(resp, &retry)
			}
			resp.Body.Close()
			if status != http.StatusConflict || time.Now().After(deadline) {
				break
			}
		}
		if retry.ID == 0 || (first.ID != 0 && first.ID != retry.ID) {
			t.Fatalf("%s: first answer %d, retry %d (%d)", key, first.ID, retry.ID, status)
		}
	}
	time.Sleep(100 * time.Millisecond) // requests whose clients left may still be writing
	posts := rdb.ZRange(ctx, k.UserPosts(uid), 0, -1).Val()
	if len(posts) != tries {
		t.Errorf("F holds %d posts for %d keys", len(posts), tries)
	}
	indexed := map[string]bool{} // the B keys of the posts in F
	for _, p := range posts {
		mid, _ := strconv.ParseInt(p, 10, 64)
		indexed[k.Post(mid)] = true
	}
	for _, key := range storetest.Keys(t, rdb, "B:*") {
		if !indexed[key] {
			t.Errorf("message %s (%q) was written but never indexed", key, rdb.HGet(ctx, key, "content").Val())
		}
	}
	if n := rdb.ZCard(ctx, k.PublicTimeline()).Val(); n != tries {
		t.Errorf("the public timeline holds %d posts, want %d", n, tries)
	}
	if n, _ := strconv.Atoi(rdb.HGet(ctx, k.User(uid), "posts_count").Val()); n != tries {
		t.Errorf("posts_count = %d, want %d", n, tries)
	}
}

// newRequest builds the request ts.do sends, for a client of the test's own.
func (ts *testServer) newRequest(t testing.TB, method, path, token string, body any, header http.Header) *http.Request {
	t.Helper()
	j, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, vs := range header {
		req.Header[k] = vs
	}
	return req
}

// TestIdempotencyKeyReusedIs400: a key sent again with another body or on
// the comments route is refused with 400 idempotency_key_reused; the same
// request still gets its first post.
func TestIdempotencyKeyReusedIs400(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	hdr := http.Header{"Idempotency-Key": {"k"}}
	send := func(path string, body any) (int, []byte) {
		resp := ts.do(t, "POST", path, tok, body, hdr)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	status, b := send("/api/v1/posts", map[string]string{"content": "first"})
	if status != http.StatusCreated {
		t.Fatalf("first: %d %s", status, b)
	}
	var first store.Post
	mustDecode(t, b, &first)
	for _, c := range []struct {
		path string
		body any
	}{
		{"/api/v1/posts", map[string]string{"content": "second"}},
		{"/api/v1/posts", map[string]any{"content": "first", "repost_of": first.ID}},
		{fmt.Sprintf("/api/v1/posts/%d/comments", first.ID), map[string]string{"content": "first"}},
	} {
		if status, b := send(c.path, c.body); status != http.StatusBadRequest || errorCode(t, b) != "idempotency_key_reused" {
			t.Errorf("POST %s %v with the key again: %d %s", c.path, c.body, status, b)
		}
	}
	status, b = send("/api/v1/posts", map[string]string{"content": "first"})
	var again store.Post
	mustDecode(t, b, &again)
	if status != http.StatusCreated || again.ID != first.ID {
		t.Fatalf("the same request again: %d %s", status, b)
	}
}

// TestCheckerRunsInTheServer: a post whose request stopped after writing
// its own keys (B, D, E written by hand here, two minutes ago) is indexed by
// the server's checker, and /metrics counts the repair.
func TestCheckerRunsInTheServer(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_REPAIR_INTERVAL=50ms")
	rdb := ts.rdb()
	k := keysOf(rdb)
	ctx := context.Background()
	_, uid := ts.register(t, "alice")
	mid := rdb.Incr(ctx, k.LastPostID()).Val()
	at := time.Now().Add(-2 * time.Minute).UnixMilli()
	rdb.HSet(ctx, k.Post(mid), "content", "half written", "author", uid, "username", "alice",
		"time", at, "kind", "post", "mentions", "[]", "tags", "[]", "media", "[]")
	rdb.Set(ctx, k.PublicTime(mid), at, 0)
	rdb.Set(ctx, k.Author(mid), uid, 0)

	deadline := time.Now().Add(hangWait)
	for rdb.ZScore(ctx, k.UserPosts(uid), strconv.FormatInt(mid, 10)).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the checker did not index the half-written post")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := ids(ts.page(t, "", "/api/v1/timelines/public").Items); len(got) != 1 || got[0] != mid {
		t.Fatalf("public timeline %v, want [%d]", got, mid)
	}
	// The checker counts a repair once it is made: the post may be found
	// indexed a moment before.
	for {
		_, body := ts.call(t, "GET", "/metrics", "", nil)
		if bytes.Contains(body, []byte(`microblog_repairs_total{kind="post_indexed"} 1`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics does not count the repair:\n%s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRepostTwiceIs409: a second repost of the same post by the same user
// answers 409 already_reposted; once the first is deleted, it is allowed.
func TestRepostTwiceIs409(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	p := ts.post(t, alice, "share me", 0)
	r := ts.post(t, bob, "", p.ID)
	status, body := ts.call(t, "POST", "/api/v1/posts", bob, map[string]any{"content": "", "repost_of": p.ID})
	if status != http.StatusConflict || errorCode(t, body) != "already_reposted" {
		t.Fatalf("second repost: %d %s", status, body)
	}
	if status, _ := ts.call(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", r.ID), bob, nil); status != http.StatusNoContent {
		t.Fatalf("delete repost: %d", status)
	}
	ts.post(t, bob, "", p.ID)
}
