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
	block := &channelBlock{}
	rdb.AddHook(block)
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")
	channel := s.keys.AuthorChannel(alice)
	seen := subscribePosts(t, b, channel)
	block.channel.Store(&channel)

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
	block.channel.Store(nil)
	first := retryUntilServed(t, s, np, time.Now(), "the retry once the channel's master is back")
	next := s.post(store.NewPost{Author: alice, Content: "the next one", IdempotencyKey: "k2"})
	var got []int64
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = seen(); slices.Contains(got, next.ID) {
			break
		}
	}
	i, j := slices.Index(got, first.ID), slices.Index(got, next.ID)
	if i < 0 || j < 0 || i > j {
		t.Fatalf("the author's channel carried %v, want %d (acknowledged first) before %d", got, first.ID, next.ID)
	}
	if got := s.messagesOf(alice); len(got) != 2 {
		t.Fatalf("alice has messages %v, want 2", got)
	}
}

// channelBlock fails, unsent, every round trip that publishes on its
// channel while it is set: that channel's master is away.
type channelBlock struct{ channel atomic.Pointer[string] }

func (*channelBlock) DialHook(next redis.DialHook) redis.DialHook { return next }

func (b *channelBlock) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return b.run([]redis.Cmder{cmd}, func() error { return next(ctx, cmd) })
	}
}

func (b *channelBlock) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return b.run(cmds, func() error { return next(ctx, cmds) })
	}
}

func (b *channelBlock) run(cmds []redis.Cmder, send func() error) error {
	channel := b.channel.Load()
	if channel == nil || !slices.ContainsFunc(cmds, func(c redis.Cmder) bool {
		return slices.Contains(c.Args(), any(*channel))
	}) {
		return send()
	}
	for _, c := range cmds {
		c.SetErr(errRedisGone)
	}
	return errRedisGone
}
