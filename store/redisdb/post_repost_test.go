package redisdb

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/storetest"
)

// TestRepostOnce: a user reposts a post once (directly or through someone's
// repost of it); a second repost is refused with 409 already_reposted, even
// sent many times at once, until the first is deleted. reposts_count counts
// the reposters.
func TestRepostOnce(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	orig := s.post(store.NewPost{Author: alice, Content: "worth sharing"})
	r1 := s.post(store.NewPost{Author: bob, RepostOf: orig.ID})
	for _, again := range []store.NewPost{
		{Author: bob, RepostOf: orig.ID},
		{Author: bob, Content: "again, with words", RepostOf: orig.ID},
		{Author: bob, RepostOf: s.post(store.NewPost{Author: carol, RepostOf: orig.ID}).ID}, // through carol's
	} {
		_, err := s.Create(s.ctx, again)
		wantCode(t, err, store.ErrConflict, store.CodeAlreadyReposted)
	}

	// Many at once: one made, the others refused.
	var wg sync.WaitGroup
	var mu sync.Mutex
	made, refused := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Create(s.ctx, store.NewPost{Author: alice, RepostOf: orig.ID})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made++
			case errors.Is(err, store.ErrConflict):
				refused++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if made != 1 || refused != 7 {
		t.Fatalf("8 reposts at once: %d made, %d refused", made, refused)
	}
	s.checkWhole(alice)
	if p, _ := s.Post(s.ctx, orig.ID, 0); p.RepostsCount != 3 {
		t.Fatalf("reposts_count %d, want 3 (bob, carol, alice)", p.RepostsCount)
	}

	if err := s.Delete(s.ctx, bob, r1.ID); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Post(s.ctx, orig.ID, 0); p.RepostsCount != 2 {
		t.Fatalf("reposts_count %d after a delete, want 2", p.RepostsCount)
	}
	s.post(store.NewPost{Author: bob, RepostOf: orig.ID}) // allowed again
	if p, _ := s.Post(s.ctx, orig.ID, 0); p.RepostsCount != 3 {
		t.Fatalf("reposts_count %d, want 3", p.RepostsCount)
	}
}

// TestRepostRetryWhileItsFirstIsTakenOut: the retry of a repost finds the
// repost its first request made, and that request, settling a write whose
// end Redis did not answer, takes the repost out and gives the key back
// before the retry reads the key. The retry makes the repost then, rather
// than refusing it as made already (the cluster pass of
// TestPostFaultAtEveryRoundTrip met that on a loaded machine).
func TestRepostRetryWhileItsFirstIsTakenOut(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	rdb := b.Client()
	between := &beforeCommand{name: "get"}
	rdb.AddHook(between)
	s := newTestStoreOn(t, rdb, Options{})
	alice, bob := s.user("alice"), s.user("bob")
	orig := s.post(store.NewPost{Author: bob, Content: "to repost"})
	np := store.NewPost{Author: alice, RepostOf: orig.ID, IdempotencyKey: "repost-1"}

	// The first request writes its repost whole.
	d := &draft{np: np}
	if err := s.resolveTargets(s.ctx, d); err != nil {
		t.Fatal(err)
	}
	if first, err := s.claim(s.ctx, d); err != nil || first != nil {
		t.Fatalf("claim: %v, %v", first, err)
	}
	if err := s.write(s.ctx, d); err != nil {
		t.Fatal(err)
	}
	// The retry has found it when the first request takes it out.
	between.arm(func() {
		if err := s.unwrite(s.ctx, d); err != nil {
			t.Errorf("unwrite: %v", err)
		}
	})
	p, err := s.Create(s.ctx, np)
	if err != nil {
		t.Fatalf("the retry answers %v, want the repost made", err)
	}
	if !between.ran() {
		t.Fatal("the retry never read its key")
	}
	if p.ID == d.post.ID || p.RepostOf == nil || p.RepostOf.ID != orig.ID {
		t.Fatalf("the retry answers %+v, want a new repost of %d", p, orig.ID)
	}
	if again := s.post(np); again.ID != p.ID {
		t.Fatalf("the next retry made %d, want %d", again.ID, p.ID)
	}
	if _, err := s.Post(s.ctx, d.post.ID, alice); !errors.Is(err, store.ErrPostNotFound) {
		t.Fatalf("the repost taken out reads %v, want not found", err)
	}
	if o, _ := s.Post(s.ctx, orig.ID, 0); o.RepostsCount != 1 {
		t.Fatalf("reposts_count %d, want 1", o.RepostsCount)
	}
}

// beforeCommand runs do, once armed, before the next command of its name.
type beforeCommand struct {
	name string
	mu   sync.Mutex
	do   func()
	done bool
}

func (h *beforeCommand) arm(do func()) { h.mu.Lock(); h.do = do; h.mu.Unlock() }

func (h *beforeCommand) ran() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.done }

func (*beforeCommand) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *beforeCommand) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		do := h.do
		if cmd.Name() != h.name {
			do = nil
		}
		if do != nil {
			h.do, h.done = nil, true
		}
		h.mu.Unlock()
		if do != nil {
			do()
		}
		return next(ctx, cmd)
	}
}

func (*beforeCommand) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
