package redisdb

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

// TestCheckIdentity walks CheckIdentity's rules on each archive engine:
// a fresh Redis and a fresh archive are stamped alike (by one identity when
// two processes start at once), and pass again; a fresh Redis beside an
// archive that is stamped but holds nothing takes its identity; a Redis
// beside an archive that holds ids it never issued (a fresh Redis, or one
// restored from an older backup though stamped alike) is refused, and so is
// one stamped by another history.
func TestCheckIdentity(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := archive.Open(ctx, e.dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			first := newTestStoreWith(t, Options{Archive: db})
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					if err := first.CheckIdentity(ctx, "first", "a"); err != nil {
						t.Errorf("a fresh Redis and archive: %v", err)
					}
				})
			}
			wg.Wait()
			stamped := first.identities(db)
			if err := first.CheckIdentity(ctx, "first", "a"); err != nil {
				t.Fatalf("a restart: %v", err)
			}

			second := newTestStoreWith(t, Options{Archive: db}) // the archive holds nothing yet
			if err := second.CheckIdentity(ctx, "second", "a"); err != nil {
				t.Fatalf("a fresh Redis beside an empty archive: %v", err)
			}
			if id := second.identities(db); id != stamped {
				t.Fatalf("the fresh Redis took identity %q, want the archive's %q", id, stamped)
			}

			first.rdb.Set(ctx, first.keys.LastPostID(), 7, 0)
			err = db.Save(ctx, []store.Archived{{ID: 7, Kind: store.KindPost, Author: 1, Username: "a", Content: "old", Created: 1}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := first.CheckIdentity(ctx, "first", "a"); err != nil {
				t.Fatalf("the archive behind Redis: %v", err)
			}
			first.rdb.Set(ctx, first.keys.LastPostID(), 6, 0) // restored from a backup older than the archive
			wantHistories(t, first.CheckIdentity(ctx, "first", "a"), "never issued")
			wantHistories(t, newTestStoreWith(t, Options{Archive: db}).CheckIdentity(ctx, "fresh", "a"), "never issued")

			first.rdb.Set(ctx, first.keys.LastPostID(), 7, 0)
			first.rdb.Set(ctx, first.keys.HistoryIdentity(), "another", 0)
			wantHistories(t, first.CheckIdentity(ctx, "first", "a"), "different histories")

			// A second, new archive beside a Redis used with the first: a
			// second process configured with an archive of its own, or an
			// archive lost and started again.
			first.rdb.Set(ctx, first.keys.HistoryIdentity(), stamped, 0)
			other, err := archive.Open(ctx, e.dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
			wantHistories(t, first.with(other).CheckIdentity(ctx, "first", "b"), "used with another archive")
			if id, _ := other.Identity(ctx); id != "" {
				t.Fatalf("the refused archive was stamped %q", id)
			}
			// The documented way to start a new archive for this Redis.
			first.rdb.Del(ctx, first.keys.HistoryIdentity())
			if err := first.with(other).CheckIdentity(ctx, "first", "b"); err != nil {
				t.Fatalf("a new archive once Redis's stamp is deleted: %v", err)
			}
		})
	}
}

// with is a store on s's Redis with the archive db.
func (s testStore) with(db *archive.DB) *Store {
	opt := s.opt
	opt.Archive = db
	return New(s.rdb, opt)
}

// identities returns the identity Redis and the archive share, failing the
// test unless they do.
func (s testStore) identities(db *archive.DB) string {
	s.t.Helper()
	r := s.rdb.Get(s.ctx, s.keys.HistoryIdentity()).Val()
	a, err := db.Identity(s.ctx)
	if err != nil || r == "" || r != a {
		s.t.Fatalf("Redis is stamped %q, the archive %q (%v)", r, a, err)
	}
	return r
}

func wantHistories(t *testing.T, err error, why string) {
	t.Helper()
	if !errors.Is(err, ErrOtherHistory) || !strings.Contains(err.Error(), why) {
		t.Fatalf("CheckIdentity answered %v, want a refusal: %s", err, why)
	}
	t.Logf("refused: %v", err)
}
