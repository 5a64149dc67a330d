package redisdb

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestRetryAcknowledgedOnlyOnceEventsOut: while a post's live event cannot
// go out (its author's channel is on a master failing over), neither the
// post nor any retry of it is acknowledged, even once its key's result is
// recorded and the post shown (on a cluster those come first: finish);
// once the event can go out, the retry is answered after it went out, and
// the author's next post reaches the channel after it. A retry answered
// before made the chaos run deliver an author's posts out of order after a
// failover: the next post was published before the settle got the first
// one's event out.
func TestRetryAcknowledgedOnlyOnceEventsOut(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	rdb := serverLikeClient(t, b)
	block := &argBlock{}
	rdb.AddHook(block)
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")
	channel := s.keys.AuthorChannel(alice)
	seen := subscribePosts(t, b, channel)
	block.arg.Store(&channel)

	np := store.NewPost{Author: alice, Content: "while the channel's master fails over", IdempotencyKey: "k1"}
	if p, err := s.Create(s.ctx, np); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a post whose event cannot go out answers %v (post %d), want 503", err, p.ID)
	}
	// The failed attempt's settle goes on in the background meanwhile; the
	// retries find its result recorded (on a cluster), and must still wait.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		p, err := s.Create(s.ctx, np)
		if err == nil {
			t.Fatalf("a retry was acknowledged with post %d while its live event could not go out (it has been published: %v)", p.ID, seen())
		}
		if !errors.Is(err, store.ErrUnavailable) && !errors.Is(err, store.ErrInProgress) {
			t.Fatalf("a retry while the event cannot go out answers %v, want 503 or 409", err)
		}
	}
	block.arg.Store(nil)
	first := retryUntilServed(t, s, np, time.Now(), "the retry once the channel's master is back")
	next := s.post(store.NewPost{Author: alice, Content: "the next one", IdempotencyKey: "k2"})
	var got []int64
	for end := time.Now().Add(storetest.HangWait); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = seen(); slices.Contains(got, next.ID) {
			break
		}
	}
	i, j := slices.Index(got, first.ID), slices.Index(got, next.ID)
	if i < 0 || j < 0 || i > j {
		t.Fatalf("the author's channel carried %v, want %d (acknowledged first) before %d", got, first.ID, next.ID)
	}
	if got := s.dmsOf(alice); len(got) != 2 {
		t.Fatalf("alice has messages %v, want 2", got)
	}
}

// TestDMAcknowledgedOnlyOnceEventOut: as with a post, a private
// message is not acknowledged, nor any retry of it, while its live event
// cannot go out (the recipient's notify channel on a master failing over);
// once it can, the retry is answered after the event went out, and the
// next message's event comes after it. On a cluster a message was
// acknowledged with its event still to be sent in the background, which
// could then come after the next message's.
func TestDMAcknowledgedOnlyOnceEventOut(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	rdb := serverLikeClient(t, b)
	block := &argBlock{}
	rdb.AddHook(block)
	s := newTestStoreOn(t, rdb, Options{})
	alice, bob := s.user("alice"), s.user("bob")
	channel := s.keys.NotifyChannel(bob)
	seen := subscribeEvents(t, b, []string{store.EventDM}, channel)
	block.arg.Store(&channel)

	nm := store.NewDM{From: alice, To: bob, Content: "while the channel's master fails over", IdempotencyKey: "m1"}
	if m, err := s.SendDM(s.ctx, nm); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a message whose event cannot go out answers %v (message %d), want 503", err, m.ID)
	}
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		m, err := s.SendDM(s.ctx, nm)
		if err == nil {
			t.Fatalf("a retry was acknowledged with message %d while its live event could not go out (published: %v)", m.ID, seen())
		}
		if !errors.Is(err, store.ErrUnavailable) && !errors.Is(err, store.ErrInProgress) {
			t.Fatalf("a retry while the event cannot go out answers %v, want 503 or 409", err)
		}
	}
	block.arg.Store(nil)
	var first store.DM
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		m, err := s.SendDM(s.ctx, nm)
		if err == nil {
			first = m
			break
		}
		if !errors.Is(err, store.ErrInProgress) || time.Since(start) > schema.ClaimTTL/2 {
			t.Fatalf("the retry once the channel is back answers %v after %v", err, time.Since(start))
		}
	}
	next, err := s.SendDM(s.ctx, store.NewDM{From: alice, To: bob, Content: "the next one", IdempotencyKey: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for end := time.Now().Add(storetest.HangWait); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = seen(); slices.Contains(got, next.ID) {
			break
		}
	}
	i, j := slices.Index(got, first.ID), slices.Index(got, next.ID)
	if i < 0 || j < 0 || i > j {
		t.Fatalf("bob's notify channel carried messages %v, want %d (acknowledged first) before %d", got, first.ID, next.ID)
	}
	if msgs, err := s.DMsSince(s.ctx, bob, 0, 10); err != nil || len(msgs) != 2 {
		t.Fatalf("bob has %d messages (%v), want 2", len(msgs), err)
	}
}

// argBlock fails, unsent, every round trip with a command naming its arg
// (a key or a channel) while it is set: that key's master is away.
type argBlock struct{ arg atomic.Pointer[string] }

func (*argBlock) DialHook(next redis.DialHook) redis.DialHook { return next }

func (b *argBlock) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return b.run([]redis.Cmder{cmd}, func() error { return next(ctx, cmd) })
	}
}

func (b *argBlock) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return b.run(cmds, func() error { return next(ctx, cmds) })
	}
}

func (b *argBlock) run(cmds []redis.Cmder, send func() error) error {
	arg := b.arg.Load()
	if arg == nil || !slices.ContainsFunc(cmds, func(c redis.Cmder) bool {
		return slices.Contains(c.Args(), any(*arg))
	}) {
		return send()
	}
	for _, c := range cmds {
		c.SetErr(errRedisGone)
	}
	return errRedisGone
}

// TestFollowRetryAfterHalfDone: a follow that failed after adding the fan
// (the fan's home timeline on a master failing over) answers 503, and its
// retry brings the star's posts into the home timeline all the same; an
// unfollow that failed after taking the fan away takes them out on its
// retry. The retries once found the fan added (or gone) and did nothing
// more: the chaos run found a fan following a star whose posts up to the
// failover never came.
func TestFollowRetryAfterHalfDone(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	rdb := serverLikeClient(t, b)
	block := &argBlock{}
	rdb.AddHook(block)
	s := newTestStoreOn(t, rdb, Options{})
	alice, bob := s.user("alice"), s.user("bob")
	var posts []string
	for range 3 {
		posts = append(posts, id(s.post(store.NewPost{Author: alice, Content: "hello"}).ID))
	}
	home := s.keys.Home(bob)
	inHome := func() []string {
		got, err := s.rdb.ZRange(s.ctx, home, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(got, func(m string) bool { return !slices.Contains(posts, m) })
	}

	block.arg.Store(&home)
	if err := s.Follow(s.ctx, bob, alice); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a follow whose home timeline is away answers %v, want 503", err)
	}
	block.arg.Store(nil)
	if err := s.Follow(s.ctx, bob, alice); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if got := inHome(); len(got) != len(posts) {
		t.Fatalf("after the retried follow bob's home timeline holds %v of alice's posts %v", got, posts)
	}

	block.arg.Store(&home)
	if err := s.Unfollow(s.ctx, bob, alice); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("an unfollow whose home timeline is away answers %v, want 503", err)
	}
	block.arg.Store(nil)
	if err := s.Unfollow(s.ctx, bob, alice); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if got := inHome(); len(got) != 0 {
		t.Fatalf("after the retried unfollow bob's home timeline still holds alice's posts %v", got)
	}
}
