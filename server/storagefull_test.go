package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"microblog/store/storetest"
)

// TestRedisFullAnswers503: with Redis at its maxmemory (noeviction), writes
// answer 503 storage_full, not 500; /readyz says so and /metrics shows it;
// deletes still work, since they free memory. Once memory is freed, all is
// as before.
func TestRedisFullAnswers503(t *testing.T) {
	parallel(t)
	// The one test that wants Redis out of memory (every other test's Redis
	// has no limit), so Redis answers "OOM command not allowed" here on
	// purpose. 4 MB: an empty test Redis with the server's connections
	// already uses 1.7.
	r := storetest.StartWith(t, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
	ts := startServer(t, r)
	rdb := r.Client()
	ctx := context.Background()
	alice, aliceID := ts.register(t, "alice")
	ts.register(t, "bob")
	p := ts.post(t, alice, "soon deleted", 0)
	c := ts.comment(t, alice, p.ID, "a comment")

	filler := strings.Repeat("x", 4096)
	for i := 0; ; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("fill:%d", i), filler, 0).Err(); err != nil {
			if !strings.Contains(err.Error(), "OOM") {
				t.Fatal(err)
			}
			break
		}
	}
	// Full, and staying full while connections' buffers come and go: the
	// limit a little under what is used.
	used, _ := strconv.ParseInt(infoField(rdb.Info(ctx, "memory").Val(), "used_memory"), 10, 64)
	rdb.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used-256<<10, 10))
	for _, w := range []struct {
		method, path, token string
		body                any
	}{
		{"POST", "/api/v1/posts", alice, map[string]string{"content": "no room"}},
		{"POST", fmt.Sprintf("/api/v1/posts/%d/comments", p.ID), alice, map[string]string{"content": "no room"}},
		{"POST", "/api/v1/users", "", map[string]string{"username": "carol", "password": testPassword}},
		// Bob's password is right, so the store also tries to reset his
		// login guard, and logs that Redis refused it ("reset login guard
		// ... OOM command not allowed"): expected.
		{"POST", "/api/v1/sessions", "", map[string]string{"username": "bob", "password": testPassword}},
		{"PUT", "/api/v1/users/bob/follow", alice, nil},
	} {
		status, body := ts.call(t, w.method, w.path, w.token, w.body)
		if status != http.StatusServiceUnavailable || errorCode(t, body) != "storage_full" {
			t.Errorf("%s %s with Redis full: %d %s", w.method, w.path, status, body)
		}
	}
	for _, path := range []string{"/api/v1/timelines/public", "/api/v1/timelines/home", fmt.Sprintf("/api/v1/posts/%d", p.ID), "/api/v1/me"} {
		if status, body := ts.call(t, "GET", path, alice, nil); status != http.StatusOK {
			t.Errorf("GET %s with Redis full: %d %s", path, status, body)
		}
	}
	if status, body := ts.call(t, "GET", "/readyz", "", nil); status != http.StatusServiceUnavailable || errorCode(t, body) != "storage_full" {
		t.Errorf("/readyz with Redis full: %d %s", status, body)
	}
	if _, body := ts.call(t, "GET", "/metrics", "", nil); !bytes.Contains(body, []byte("\nmicroblog_redis_storage_full 1\n")) {
		t.Errorf("/metrics does not show Redis full")
	}

	// Deletes free memory, so they work.
	for _, mid := range []int64{c.ID, p.ID} {
		if status, body := ts.call(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", mid), alice, nil); status != http.StatusNoContent {
			t.Fatalf("delete %d with Redis full: %d %s", mid, status, body)
		}
	}
	// The hashes stay as tombstones until the archive has the deletes too:
	// it can, with Redis full.
	for _, mid := range []int64{c.ID, p.ID} {
		if status, _ := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", mid), "", nil); status != http.StatusNotFound {
			t.Errorf("deleted %d with Redis full: %d, want 404", mid, status)
		}
	}
	archiveSettled(t, rdb)
	k := keysOf(rdb)
	for _, key := range []string{k.Post(p.ID), k.Post(c.ID), k.Comments(p.ID)} {
		if rdb.Exists(ctx, key).Val() != 0 {
			t.Errorf("%s survived the delete", key)
		}
	}
	if rdb.ZCard(ctx, k.UserPosts(aliceID)).Val() != 0 || rdb.ZCard(ctx, k.PublicTimeline()).Val() != 0 {
		t.Errorf("indexes still point at the deleted post")
	}
	if n, _ := strconv.Atoi(rdb.HGet(ctx, k.User(aliceID), "posts_count").Val()); n != 0 {
		t.Errorf("posts_count %d after the delete, want 0", n)
	}

	// Room again: the operator frees what filled Redis and raises the
	// limit (a flush would make Redis another history than the archive's,
	// which the server refuses; the limit just under what was used stays
	// tight, as buffers come and go, even once the filler is gone).
	for iter := rdb.Scan(ctx, 0, "fill:*", 1000).Iterator(); iter.Next(ctx); {
		rdb.Del(ctx, iter.Val())
	}
	rdb.ConfigSet(ctx, "maxmemory", "64mb")
	ts2 := startServer(t, r)
	if status, _ := ts2.call(t, "GET", "/readyz", "", nil); status != http.StatusOK {
		t.Errorf("/readyz with room: %d", status)
	}
	if _, body := ts2.call(t, "GET", "/metrics", "", nil); !bytes.Contains(body, []byte("\nmicroblog_redis_storage_full 0\n")) {
		t.Errorf("/metrics still shows Redis full")
	}
	tok, _ := ts2.register(t, "dave")
	ts2.post(t, tok, "room again", 0)
}

// infoField is the value of name in the text of Redis's INFO.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}
