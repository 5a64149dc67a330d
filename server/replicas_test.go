package main

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"microblog/store/storetest"
)

// TestWritesWaitForReplicas: with MICROBLOG_REDIS_REPLICA_ACKS=1 a write is
// acknowledged only once a replica has it. While the replica is stalled a
// post answers 503 unavailable (the master took it: a master that died
// now would take it with it), reads and refused input answer as ever, and
// once the replica is back the retry with the same Idempotency-Key gets
// the one post.
func TestWritesWaitForReplicas(t *testing.T) {
	parallel(t)
	master := startRedis(t)
	replica := storetest.StartReplica(t, master)
	ts := startServer(t, master, "MICROBLOG_REDIS_REPLICA_ACKS=1")
	tok, _ := ts.register(t, "alice")
	first := ts.newPost(t, tok, "on a replica too")

	replica.Pause()
	paused := true
	defer func() {
		if paused {
			replica.Resume()
		}
	}()
	key := http.Header{idempotencyHeader: {"stalled-1"}}
	body := map[string]string{"content": "while the replica is stalled"}
	resp := ts.do(t, "POST", "/api/v1/posts", tok, body, key)
	if b := readAll(t, resp); resp.StatusCode != http.StatusServiceUnavailable || errorCode(t, b) != "unavailable" {
		t.Fatalf("a post with the replica stalled: %d %s, want 503 unavailable", resp.StatusCode, b)
	}
	if n := metric(t, ts, "microblog_redis_replicas_behind_total"); n != 1 {
		t.Fatalf("microblog_redis_replicas_behind_total is %v, want 1", n)
	}
	if got := ts.homeIDs(t, tok, 20, ""); len(got) == 0 || got[len(got)-1] != first {
		t.Fatalf("a read with the replica stalled: %v", got)
	}
	resp = ts.do(t, "POST", "/api/v1/posts", tok, map[string]string{"content": ""}, nil)
	if b := readAll(t, resp); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an empty post with the replica stalled: %d %s, want 400", resp.StatusCode, b)
	}

	replica.Resume()
	paused = false
	// The replica takes what it missed first; a busy machine may keep its
	// confirmation past the wait, and the client retries as ever.
	var retried struct{ ID int64 }
	var b []byte
	for deadline := time.Now().Add(hangWait); ; time.Sleep(50 * time.Millisecond) {
		resp = ts.do(t, "POST", "/api/v1/posts", tok, body, key)
		b = readAll(t, resp)
		if resp.StatusCode == http.StatusCreated {
			break
		} else if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("the retry once the replica is back: %d %s, want 201", resp.StatusCode, b)
		}
	}
	mustDecode(t, b, &retried)
	if got := ts.homeIDs(t, tok, 20, ""); !slices.Equal(got, []int64{retried.ID, first}) {
		t.Fatalf("home %v, want the retried post %d once, then %d", got, retried.ID, first)
	}
}
