package redisdb

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/storetest"
)

// newTestStoreOn is newTestStoreWith on a client the test made itself (with
// hooks, or through a proxy); its fan-out workers run until the test ends.
func newTestStoreOn(t *testing.T, rdb redis.UniversalClient, opt Options) testStore {
	t.Helper()
	opt.BcryptCost = bcrypt.MinCost
	s := testStore{Store: New(rdb, opt), t: t, ctx: context.Background()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runner.NewFanOut(s.Store, runner.FanOutOptions{ClaimIdle: time.Second}).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// pipelineHook calls after with the commands of every pipeline and
// transaction once Redis has answered them.
type pipelineHook struct{ after func(cmds []redis.Cmder) }

func (pipelineHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (pipelineHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h pipelineHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.after(cmds)
		return err
	}
}

// writes tells whether cmds hold command name on a key starting with prefix.
func writes(cmds []redis.Cmder, name, prefix string) bool {
	for _, c := range cmds {
		args := c.Args()
		if len(args) > 1 && strings.EqualFold(c.Name(), name) {
			if key, ok := args[1].(string); ok && strings.HasPrefix(key, prefix) {
				return true
			}
		}
	}
	return false
}

// dmsOf lists the ids of the B hashes author wrote, indexed or not.
func (s testStore) dmsOf(author int64) []int64 {
	s.t.Helper()
	var out []int64
	for _, k := range storetest.Keys(s.t, s.rdb, s.keys.Prefix()+"B:*") {
		mid := parseID(strings.Trim(k[strings.LastIndexByte(k, ':')+1:], "{}"))
		if a, _ := s.rdb.HGet(s.ctx, k, "author").Int64(); a == author {
			out = append(out, mid)
		}
	}
	return out
}

// TestWriteOutlivesTheRequest: a client that gives up once the message's own
// keys are written (its request context is canceled) neither stops the write
// half way nor lets its retry, with the same Idempotency-Key, make a second
// post: the first request finishes, and the retry returns its post.
func TestWriteOutlivesTheRequest(t *testing.T) {
	parallel(t)
	rdb := storetest.Start(t).Client()
	var giveUp atomic.Pointer[context.CancelFunc]
	rdb.AddHook(pipelineHook{after: func(cmds []redis.Cmder) {
		if f := giveUp.Load(); f != nil && writes(cmds, "hset", "B:") {
			(*f)() // the client is gone the moment B, D and E are in
		}
	}})
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")

	ctx, cancel := context.WithCancel(context.Background())
	giveUp.Store(&cancel)
	np := store.NewPost{Author: alice, Content: "sent once, retried once", IdempotencyKey: "k1"}
	first, err := s.Create(ctx, np)
	giveUp.Store(nil)
	if err != nil {
		t.Fatalf("the write died with its request: %v", err)
	}
	retry := s.post(np)
	if retry.ID != first.ID {
		t.Fatalf("the retry made post %d, the first request %d", retry.ID, first.ID)
	}
	posts, _ := s.rdb.ZRange(s.ctx, s.keys.UserPosts(alice), 0, -1).Result()
	if got := s.dmsOf(alice); len(got) != 1 || len(posts) != 1 || posts[0] != id(first.ID) {
		t.Fatalf("messages written %v, F holds %v; want only post %d, indexed", got, posts, first.ID)
	}
}
