package redisdb

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// countPExpire counts the PEXPIRE commands a client sends, alone or in
// pipelines.
type countPExpire struct{ n atomic.Int64 }

func (c *countPExpire) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *countPExpire) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.count(cmd)
		return next(ctx, cmd)
	}
}
func (c *countPExpire) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.count(cmd)
		}
		return next(ctx, cmds)
	}
}
func (c *countPExpire) count(cmd redis.Cmder) {
	if cmd.Name() == "pexpire" {
		c.n.Add(1)
	}
}

// TestRateLimitKeyExpires: a rate limit's window key always expires, though
// a process sends its PEXPIRE only with the first request of the window it
// counts, not with every one; and a key Redis lost meanwhile (made anew by
// the next INCR) is given its expiry again. The limit itself holds.
func TestRateLimitKeyExpires(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	hook := &countPExpire{}
	s.rdb.(interface{ AddHook(redis.Hook) }).AddHook(hook)
	l := store.Limit{N: 5, Per: time.Hour}
	key := s.keys.Rate("test", "7", s.Now()/l.Per.Milliseconds())
	ttl := func() time.Duration {
		t.Helper()
		d, err := s.rdb.PTTL(s.ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i := range 3 {
		if err := s.Allow(s.ctx, "test", "7", l); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if d := ttl(); d <= 0 || d > l.Per {
		t.Fatalf("the window's key expires in %v, want within %v", d, l.Per)
	}
	if n := hook.n.Load(); n != 1 {
		t.Fatalf("%d PEXPIREs for 3 requests in one window, want 1", n)
	}
	// Redis loses the key (as a restart would): the next request makes it
	// anew, and gives it its expiry again.
	s.rdb.Del(s.ctx, key)
	if err := s.Allow(s.ctx, "test", "7", l); err != nil {
		t.Fatal(err)
	}
	if d := ttl(); d <= 0 || d > l.Per {
		t.Fatalf("the key made anew expires in %v, want within %v", d, l.Per)
	}
	for range 4 {
		s.Allow(s.ctx, "test", "7", l)
	}
	var rl *store.RateLimitError
	if err := s.Allow(s.ctx, "test", "7", l); !errors.As(err, &rl) {
		t.Fatalf("request 6 of a window of 5 after the loss: %v, want a rate limit", err)
	}
}
