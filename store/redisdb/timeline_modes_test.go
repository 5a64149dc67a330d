package redisdb

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// splitHook gives a pipeline one order a Redis Cluster may give it: there
// the commands of one pipeline go to their nodes side by side, so one node
// may run its part, and other clients act on it, before another node runs
// the rest. While armed, the hook sends the commands of a pipeline that
// first picks, then calls between, then sends the others; once, and only
// for a pipeline that has both kinds.
type splitHook struct {
	armed   atomic.Bool
	first   func(c redis.Cmder) bool
	between func(ctx context.Context)
}

func (*splitHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*splitHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *splitHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !h.armed.Load() {
			return next(ctx, cmds)
		}
		var head, rest []redis.Cmder
		for _, c := range cmds {
			if h.first(c) {
				head = append(head, c)
			} else {
				rest = append(rest, c)
			}
		}
		if len(head) == 0 || len(rest) == 0 || !h.armed.CompareAndSwap(true, false) {
			return next(ctx, cmds)
		}
		herr := next(ctx, head)
		h.between(ctx)
		if err := next(ctx, rest); err != nil {
			return err
		}
		return herr
	}
}

// cmdOn tells whether c is command name on key.
func cmdOn(c redis.Cmder, name, key string) bool {
	args := c.Args()
	if len(args) < 2 || !strings.EqualFold(c.Name(), name) {
		return false
	}
	k, _ := args[1].(string)
	return k == key
}

// TestDemoteEndsItsDrain: a celebrity that falls below the threshold is
// pushed again once its backfill is done, even when the backfill job runs
// before the mode says drain (as it may on a cluster, where the user's hash
// and the queue live on different nodes). A drain with no backfill to end it
// would keep the author among the celebrities for good.
func TestDemoteEndsItsDrain(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	hook := &splitHook{}
	rdb.AddHook(hook)
	s := newTestStoreOn(t, rdb, Options{CelebrityFans: 2})
	// The backfill job is queued, and done, before anything else is sent.
	hook.first = func(c redis.Cmder) bool { return cmdOn(c, "xadd", s.keys.FanOutQueue()) }
	hook.between = func(context.Context) { s.settle() }
	star, stays, leaves := s.user("star"), s.user("stays"), s.user("leaves")
	s.follow(stays, star)
	s.follow(leaves, star) // a celebrity
	p := s.post(store.NewPost{Author: star, Content: "pulled"})
	s.settle()
	if s.inHome(stays, p.ID) {
		t.Fatal("a celebrity's post was pushed")
	}

	hook.armed.Store(true)
	if err := s.Unfollow(s.ctx, leaves, star); err != nil {
		t.Fatal(err)
	}
	hook.armed.Store(false)
	s.settle()
	mode, _ := s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Result()
	celeb, _ := s.rdb.SIsMember(s.ctx, s.keys.Celebrities(), star).Result()
	if mode != "" || celeb {
		t.Fatalf("with 1 fan and the queue empty the author is in mode %q (celebrity %v), want push", mode, celeb)
	}
	if !s.inHome(stays, p.ID) {
		t.Fatal("the post written while pulled was not backfilled")
	}
}

// failQueueHook fails, while armed, every pipeline that queues a fan-out
// job, without sending it: Redis gone for that one round trip.
type failQueueHook struct {
	queue string
	armed atomic.Bool
}

func (*failQueueHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*failQueueHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *failQueueHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.armed.Load() && writes(cmds, "xadd", h.queue) {
			err := errors.New("connection reset by peer")
			for _, c := range cmds {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// TestDemoteWithoutItsJobStaysPulled: when the backfill job of a demotion
// cannot be queued, the author is left pulled, not draining with no job to
// end the drain, and the next unfollow demotes it for good.
func TestDemoteWithoutItsJobStaysPulled(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	hook := &failQueueHook{}
	rdb.AddHook(hook)
	s := newTestStoreOn(t, rdb, Options{CelebrityFans: 2})
	hook.queue = s.keys.FanOutQueue()
	star, stays, leaves := s.user("star"), s.user("stays"), s.user("leaves")
	s.follow(stays, star)
	s.follow(leaves, star) // a celebrity
	p := s.post(store.NewPost{Author: star, Content: "pulled"})
	s.settle()

	hook.armed.Store(true)
	if err := s.Unfollow(s.ctx, leaves, star); err == nil {
		t.Fatal("the unfollow hid that its demotion failed")
	}
	hook.armed.Store(false)
	mode, _ := s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Result()
	if celeb, _ := s.rdb.SIsMember(s.ctx, s.keys.Celebrities(), star).Result(); mode != schema.ModePull || !celeb {
		t.Fatalf("after a demotion without its job the author is in mode %q (celebrity %v), want pull", mode, celeb)
	}
	if got := s.homeIDs(stays); len(got) != 1 || got[0] != p.ID {
		t.Fatalf("the fan sees %v, want [%d]", got, p.ID)
	}

	if err := s.Unfollow(s.ctx, leaves, star); err != nil { // the client's retry
		t.Fatal(err)
	}
	s.settle()
	mode, _ = s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Result()
	if celeb, _ := s.rdb.SIsMember(s.ctx, s.keys.Celebrities(), star).Result(); mode != "" || celeb {
		t.Fatalf("after the retried unfollow the author is in mode %q (celebrity %v), want push", mode, celeb)
	}
	if !s.inHome(stays, p.ID) {
		t.Fatal("the post written while pulled was not backfilled")
	}
}

// TestPromoteReadsTheLastIDFirst: a post that reads "pull" when claimed is
// not pushed, so its id must be above pull_from, or the backfill that ends
// the pull skips it too. Here the promotion's mode is written, and a post
// claimed, before the last id is read (as a cluster may order one pipeline
// across nodes); once the author is demoted the post must still reach its
// fan's home timeline.
func TestPromoteReadsTheLastIDFirst(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	hook := &splitHook{}
	rdb.AddHook(hook)
	s := newTestStoreOn(t, rdb, Options{CelebrityFans: 2})
	star, stays, leaves := s.user("star"), s.user("stays"), s.user("leaves")
	var p store.Post
	hook.first = func(c redis.Cmder) bool { return cmdOn(c, "hset", s.keys.User(star)) }
	hook.between = func(context.Context) { p = s.post(store.NewPost{Author: star, Content: "claimed in pull"}) }
	s.follow(stays, star)
	hook.armed.Store(true)
	s.follow(leaves, star) // a celebrity
	hook.armed.Store(false)
	if p.ID == 0 { // the mode was written on its own: no pipeline to split
		p = s.post(store.NewPost{Author: star, Content: "claimed in pull"})
	}
	if err := s.Unfollow(s.ctx, leaves, star); err != nil {
		t.Fatal(err)
	}
	s.settle()
	if mode, _ := s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Result(); mode != "" {
		t.Fatalf("after the backfill the author is in mode %q, want push", mode)
	}
	if !s.inHome(stays, p.ID) {
		t.Fatalf("post %d, claimed while pulled, is in no home timeline once the author is pushed again", p.ID)
	}
}

// TestClaimMeetsAPromotion: on a cluster a claim's id and its read of the
// author's mode go to different nodes side by side, so a promotion may fall
// between them: the post reads "pull" yet has an id at or below pull_from,
// which the backfill that ends the pull skips. Such a post pushes itself.
func TestClaimMeetsAPromotion(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	hook := &splitHook{}
	rdb.AddHook(hook)
	s := newTestStoreOn(t, rdb, Options{CelebrityFans: 1000})
	star, fan := s.user("star"), s.user("fan")
	s.follow(fan, star)
	hook.first = func(c redis.Cmder) bool { return cmdOn(c, "incr", s.keys.LastPostID()) }
	hook.between = func(ctx context.Context) {
		err := s.withModeLock(ctx, star, func(ctx context.Context, lk modeLock) error {
			return promote.run(s.Store, ctx, lk, modeState{author: star})
		})
		if err != nil {
			t.Error(err)
		}
	}
	hook.armed.Store(true)
	p := s.post(store.NewPost{Author: star, Content: "claimed across a promotion"})
	if hook.armed.Load() {
		t.Fatal("the claim's pipeline was not split")
	}
	from := parseID(s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldPullFrom).Val())
	if p.ID > from {
		t.Fatalf("post %d above pull_from %d: not the case under test", p.ID, from)
	}
	s.settle()
	if !s.inHome(fan, p.ID) {
		t.Fatalf("post %d, at or below pull_from %d and claimed in pull, was never pushed", p.ID, from)
	}
}

// beforeHook, while armed, calls do before the first command that match
// picks, once: what another client or an expiry does in between.
type beforeHook struct {
	armed atomic.Bool
	match func(c redis.Cmder) bool
	do    func(ctx context.Context)
}

func (*beforeHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *beforeHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error {
		if h.armed.Load() && h.match(c) && h.armed.CompareAndSwap(true, false) {
			h.do(ctx)
		}
		return next(ctx, c)
	}
}
func (*beforeHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestModeLockLostAnswersUnavailable: a change of mode that outlives its
// lock (Redis or the process stalled past ModeLockTTL) changes nothing and
// fails as unavailable, a 503 to the client, not a 500; and the retry the
// contract asks for after a 503 makes the change.
func TestModeLockLostAnswersUnavailable(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	hook := &beforeHook{}
	rdb.AddHook(hook)
	s := newTestStoreOn(t, rdb, Options{CelebrityFans: 2})
	star, a, b := s.user("star"), s.user("fan1"), s.user("fan2")
	s.follow(a, star)
	lock := s.keys.FanOutLock(star)
	// The lock expires just before the promotion writes the mode.
	hook.match = func(c redis.Cmder) bool {
		return strings.HasPrefix(c.Name(), "eval") && slices.Contains(c.Args(), any(lock))
	}
	hook.do = func(ctx context.Context) { s.rdb.Del(ctx, lock) }
	hook.armed.Store(true)
	err := s.Follow(s.ctx, b, star)
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a promotion whose lock expired: %v, want an error of kind unavailable", err)
	}
	if hook.armed.Load() {
		t.Fatal("the promotion wrote no mode: the test's lock expiry never happened")
	}
	if mode := s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Val(); mode != "" {
		t.Fatalf("the failed promotion left mode %q, want push", mode)
	}
	if err := s.Follow(s.ctx, b, star); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if mode := s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Val(); mode != schema.ModePull {
		t.Fatalf("after the retry the mode is %q, want %q", mode, schema.ModePull)
	}
}
