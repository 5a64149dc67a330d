package redisdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestRetryAfterLostClaimReply is a blip of Redis at the worst moment for an
// Idempotency-Key: the pipeline that claims the key runs, but its reply is
// lost, and Redis refuses the next few commands too (as during a restart or
// a failover). The request fails with 503; the client retries with the same
// key, as the contract asks. The claim must not lock the retries out for
// claimTTL (30 s): once Redis answers again, a retry is served, and the
// post or message exists once.
func TestRetryAfterLostClaimReply(t *testing.T) {
	parallel(t)
	rdb := storetest.Start(t).Client()
	blip := &blipHook{}
	rdb.AddHook(blip)
	s := newTestStoreOn(t, rdb, Options{})
	alice, bob := s.user("alice"), s.user("bob")

	for _, c := range []struct {
		what  string
		write func() (int64, error)
	}{
		{"post", func() (int64, error) {
			p, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "sent in a blip", IdempotencyKey: "k-post"})
			return p.ID, err
		}},
		{"message", func() (int64, error) {
			m, err := s.SendDM(s.ctx, store.NewDM{From: alice, To: bob, Content: "sent in a blip", IdempotencyKey: "k-message"})
			return m.ID, err
		}},
	} {
		blip.arm(3)
		if _, err := c.write(); !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("%s: a lost reply answers %v, want 503", c.what, err)
		}
		start := time.Now()
		var first int64
		for {
			mid, err := c.write()
			if err == nil {
				first = mid
				break
			}
			if !errors.Is(err, store.ErrInProgress) {
				t.Fatalf("%s: a retry answers %v", c.what, err)
			}
			if time.Since(start) > schema.ClaimTTL/2 {
				t.Fatalf("%s: retries still refused as in progress after %v", c.what, time.Since(start))
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("%s: a retry was served %v after the blip", c.what, time.Since(start).Round(time.Millisecond))
		if again, err := c.write(); err != nil || again != first {
			t.Fatalf("%s: the next retry answers %d, %v; want the same %d", c.what, again, err, first)
		}
	}
	if n := len(s.dmsOf(alice)); n != 1 {
		t.Fatalf("alice has %d posts, want 1", n)
	}
	page, err := s.ConversationDMs(s.ctx, alice, bob, store.PageQuery{Limit: 10, Viewer: alice})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("the conversation holds %d messages (%v), want 1", len(page.Items), err)
	}
}

// blipHook, once armed, lets the next pipeline that claims an
// Idempotency-Key run but loses its reply, then fails the next n commands
// that name an Idempotency-Key without sending them.
type blipHook struct {
	claim atomic.Bool
	after atomic.Int32
}

func (h *blipHook) arm(n int32) { h.claim.Store(true); h.after.Store(n) }

func (*blipHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *blipHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if names([]redis.Cmder{cmd}, "idem:") && !h.claim.Load() && h.after.Add(-1) >= 0 {
			cmd.SetErr(fmt.Errorf("connection refused (test): %w", io.EOF))
			return cmd.Err()
		}
		return next(ctx, cmd)
	}
}

func (h *blipHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !names(cmds, "idem:") || !h.claim.CompareAndSwap(true, false) {
			return next(ctx, cmds)
		}
		if err := next(ctx, cmds); err != nil && !strings.Contains(err.Error(), "nil") {
			return err
		}
		err := fmt.Errorf("connection lost (test): %w", io.EOF)
		for _, c := range cmds {
			c.SetErr(err)
		}
		return err
	}
}
