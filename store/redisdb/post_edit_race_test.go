package redisdb

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// TestEditDeleteRace edits and deletes the same message at once, many
// times: hot without an archive (the delete's DEL), hot with one (its
// tombstone), and archived. Every time the message ends deleted, with no
// history left in Redis; the edit either took effect before the delete or
// answered 404. With the archive, the archive ends with a tombstone.
func TestEditDeleteRace(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		name     string
		archived bool // the message has left Redis before the race
		open     func(t *testing.T) testStore
	}{
		{"hot", false, newTestStore},
		{"hot-archive", false, func(t *testing.T) testStore { return newArchivedStore(t, engines[0].dsn(t), Options{}) }},
		{"archived", true, func(t *testing.T) testStore {
			return newArchivedStore(t, engines[0].dsn(t), Options{HotWindow: 1})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.open(t)
			alice := s.user("alice")
			rounds := 40
			if c.archived {
				rounds = 15 // each waits for the archiver
			}
			var mids []int64
			for i := range rounds {
				p := s.post(store.NewPost{Author: alice, Content: fmt.Sprintf("round %d #before", i)})
				mids = append(mids, p.ID)
				if c.archived {
					s.post(store.NewPost{Author: alice, Content: "pushes it out"})
					s.archived()
					if s.hotHashes([]int64{p.ID}) != 0 {
						t.Fatalf("round %d: the message is still in Redis", i)
					}
				}
				var wg sync.WaitGroup
				var editErr, deleteErr error
				wg.Go(func() { _, editErr = s.Edit(s.ctx, alice, p.ID, "edited #after @alice") })
				wg.Go(func() {
					// The edit reads more before its write: the delete
					// starts a little later in some rounds, so that either
					// may come first.
					time.Sleep(time.Duration(i%10) * 200 * time.Microsecond)
					deleteErr = s.Delete(s.ctx, alice, p.ID)
				})
				wg.Wait()
				if deleteErr != nil {
					t.Fatalf("round %d: delete: %v", i, deleteErr)
				}
				if editErr != nil && !errors.Is(editErr, store.ErrNotFound) {
					t.Fatalf("round %d: edit: %v, want success or 404", i, editErr)
				}
				if _, err := s.Post(s.ctx, p.ID, alice); !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("round %d: the message after an edit and a delete: %v, want 404", i, err)
				}
				if n := s.rdb.Exists(s.ctx, s.keys.History(p.ID)).Val(); n != 0 {
					t.Fatalf("round %d: history:%d left behind", i, p.ID)
				}
				if h := s.rdb.HGetAll(s.ctx, s.keys.Post(p.ID)).Val(); len(h) > 0 && h[schema.FieldDeleted] != "1" {
					t.Fatalf("round %d: the message's hash is %v, want none or a tombstone", i, h)
				}
			}
			if s.opt.Archive == nil {
				return
			}
			s.archived()
			rows, err := s.opt.Archive.Posts(s.ctx, mids)
			if err != nil {
				t.Fatal(err)
			}
			for _, mid := range mids {
				if r := rows[mid]; !r.Deleted || r.Content != "" || r.History != "" {
					t.Errorf("the archive's row of %d = %+v, want a tombstone", mid, r)
				}
			}
		})
	}
}
