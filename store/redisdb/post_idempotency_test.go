package redisdb

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestAbandonedClaimRunsOut: a request that claimed its Idempotency-Key and
// then died (a crash, a Redis stall it gave up on) holds the key only while
// a request could still be running: its retry is told 409 at first, and
// creates the post once the claim has run out, not a day later.
func TestAbandonedClaimRunsOut(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	np := store.NewPost{Author: alice, Content: "written after a crash", IdempotencyKey: "k"}
	d := &draft{np: np}
	if _, err := s.claim(s.ctx, d); err != nil { // and the process dies here
		t.Fatal(err)
	}
	key := s.keys.Idempotency(alice, store.TokenHash("k"))
	if ttl := s.rdb.PTTL(s.ctx, key).Val(); ttl <= 0 || ttl > schema.ClaimTTL {
		t.Fatalf("an unfinished claim lives %v, want at most %v", ttl, schema.ClaimTTL)
	}
	_, err := s.Create(s.ctx, np)
	wantCode(t, err, store.ErrConflict, store.CodeRequestInProgress)

	s.rdb.PExpire(s.ctx, key, time.Millisecond) // claimTTL later
	time.Sleep(5 * time.Millisecond)
	p := s.post(np)
	if again := s.post(np); again.ID != p.ID {
		t.Fatalf("the retry after the claim ran out made %d, then %d", p.ID, again.ID)
	}
	if ttl := s.rdb.PTTL(s.ctx, key).Val(); ttl < schema.IdempotencyTTL-time.Minute {
		t.Fatalf("a finished key lives %v, want %v", ttl, schema.IdempotencyTTL)
	}

	// A claim "0" of an older version, a minute old, held its key for 24 h.
	old := store.NewPost{Author: alice, Content: "claimed by an older version", IdempotencyKey: "old"}
	s.rdb.Set(s.ctx, s.keys.Idempotency(alice, store.TokenHash("old")), 0, schema.IdempotencyTTL-time.Minute)
	if _, err := s.Create(s.ctx, old); err != nil {
		t.Fatalf("a stale claim of an older version still blocks its key: %v", err)
	}
}

// TestResentClaimIsItsOwn: a client that re-sends the claim after losing
// Redis's reply (go-redis retries a pipeline that timed out) finds its own
// claim, not someone else's, and goes on to write the post, once.
func TestResentClaimIsItsOwn(t *testing.T) {
	parallel(t)
	r := storetest.Start(t)
	proxy := newLossyProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: proxy.Addr(), MaxRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")

	proxy.loseReplyTo(containing("idem:")) // the claim's pipeline
	p, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "claimed twice", IdempotencyKey: "k"})
	if proxy.lost.Load() != 1 {
		t.Fatal("no reply was lost")
	}
	if err != nil {
		t.Fatalf("the re-sent claim collided with itself: %v", err)
	}
	if n := s.rdb.ZCard(s.ctx, s.keys.UserPosts(alice)).Val(); n != 1 {
		t.Fatalf("%d posts, want 1", n)
	}
	if got := s.post(store.NewPost{Author: alice, Content: "claimed twice", IdempotencyKey: "k"}); got.ID != p.ID {
		t.Fatalf("the retry made %d, want %d", got.ID, p.ID)
	}
}

// TestIdempotencyKeyReusedForAnotherRequest: an Idempotency-Key sent again
// with another body, or on another route (a comment instead of a post, a
// comment on another message), is refused with 400, while its request runs
// and after; only the same request gets the first post back.
func TestIdempotencyKeyReusedForAnotherRequest(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	other := s.post(store.NewPost{Author: alice, Content: "something to comment on"})
	np := store.NewPost{Author: alice, Content: "the first request", IdempotencyKey: "k"}
	first := s.post(np)
	for _, again := range []store.NewPost{
		{Content: "another body"},
		{Content: "the first request", Parent: first.ID},
		{Content: "the first request", Parent: other.ID},
		{Content: "the first request", RepostOf: other.ID},
	} {
		again.Author, again.IdempotencyKey = alice, "k"
		_, err := s.Create(s.ctx, again)
		wantCode(t, err, store.ErrInvalid, store.CodeIdemKeyReused)
	}
	if p := s.post(np); p.ID != first.ID {
		t.Fatalf("the same request made %d, want %d", p.ID, first.ID)
	}

	// While the first request runs.
	c := store.NewPost{Author: alice, Content: "a comment", Parent: other.ID, IdempotencyKey: "c"}
	if _, err := s.claim(s.ctx, &draft{np: c}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create(s.ctx, c)
	wantCode(t, err, store.ErrConflict, store.CodeRequestInProgress)
	c.Parent = first.ID
	_, err = s.Create(s.ctx, c)
	wantCode(t, err, store.ErrInvalid, store.CodeIdemKeyReused)
}

// TestClaimLostMidWrite: should a request's claim run out while it writes
// and another request take the key, the first one's post would be a second
// one: it is taken out again, and the request told the key is in use. (On
// one Redis the message and its indexes are one transaction, so the key is
// taken between the claim and that transaction.)
func TestClaimLostMidWrite(t *testing.T) {
	parallel(t)
	rdb := storetest.Start(t).Client()
	var steal atomic.Pointer[string]
	rdb.AddHook(pipelineHook{after: func(cmds []redis.Cmder) {
		if key := steal.Load(); key != nil && writes(cmds, "incr", "global:postid") {
			steal.Store(nil)
			rdb.Set(context.Background(), *key, schema.ClaimValue("another-request", "whatever"), schema.ClaimTTL)
		}
	}})
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")
	key := s.keys.Idempotency(alice, store.TokenHash("k"))
	steal.Store(&key)
	_, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "outrun", IdempotencyKey: "k"})
	wantCode(t, err, store.ErrConflict, store.CodeRequestInProgress)
	if got := s.dmsOf(alice); len(got) != 0 {
		t.Fatalf("messages %v left behind", got)
	}
	if v := s.rdb.Get(s.ctx, key).Val(); v != schema.ClaimValue("another-request", "whatever") {
		t.Fatalf("the other request's claim became %q", v)
	}
	s.checkCounts(alice)
}
