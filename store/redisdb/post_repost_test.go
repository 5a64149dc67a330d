package redisdb

import (
	"errors"
	"sync"
	"testing"

	"microblog/store"
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
