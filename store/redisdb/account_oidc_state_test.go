package redisdb

import (
	"sync"
	"testing"
	"time"

	"microblog/store"
)

// TestOIDCStateSingleUse checks that a sign-in state is kept under its hash,
// is taken once however many callbacks race for it, and expires.
func TestOIDCStateSingleUse(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	if err := s.PutOIDCState(s.ctx, "st1", []byte(`{"n":"x"}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.rdb.Exists(s.ctx, s.keys.OIDCState(store.TokenHash("st1"))).Result(); n != 1 {
		t.Fatalf("the state is not kept under its hash")
	}
	var wg sync.WaitGroup
	got := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rec, err := s.TakeOIDCState(s.ctx, "st1"); err == nil {
				got <- string(rec)
			} else {
				wantCode(t, err, store.ErrNotFound, store.CodeNotFound)
			}
		}()
	}
	wg.Wait()
	close(got)
	if len(got) != 1 || <-got != `{"n":"x"}` {
		t.Fatalf("the state was taken %d times, want once with its record", len(got))
	}

	if err := s.PutOIDCState(s.ctx, "st2", []byte("r"), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(120 * time.Millisecond)
	_, err := s.TakeOIDCState(s.ctx, "st2")
	wantCode(t, err, store.ErrNotFound, store.CodeNotFound)
}
