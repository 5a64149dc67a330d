package runner

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb"
)

// TestEditArchived: with a hot window of 5, a post that has left Redis is
// edited in the archive and reads back edited, with its history, in its
// author's posts and in a repost of it; a post edited while hot reads the
// same once it has left. The archive holds both edits, and Redis no
// history of either.
func TestEditArchived(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			s := newArchivedStore(t, e.dsn(t), redisdb.Options{HotWindow: 5})
			writer, fan := s.user("writer"), s.user("fan")
			var posts []int64
			for i := range 20 {
				posts = append(posts, s.post(store.NewPost{Author: writer, Content: fmt.Sprintf("post %d #old", i)}).ID)
			}
			rp := s.post(store.NewPost{Author: fan, RepostOf: posts[0]})
			hot := posts[len(posts)-1]
			s.edit(writer, hot, "post 19, fixed while hot")
			s.archived()
			if s.hotHashes(posts[:1]) != 0 {
				t.Fatal("the oldest post is still in Redis")
			}

			s.edit(writer, posts[0], "post 0, fixed #new")
			e := s.edit(writer, posts[0], "post 0, fixed twice #new")
			if e.EditedAt == nil || e.ID != posts[0] {
				t.Fatalf("edit of an archived post = %+v", e)
			}
			for range 10 { // pushes the one edited while hot out of the window
				s.post(store.NewPost{Author: writer, Content: "filler"})
			}
			s.archived()
			if s.hotHashes([]int64{posts[0], hot}) != 0 {
				t.Fatal("an edited post is still in Redis past the window")
			}

			for mid, want := range map[int64][]string{
				posts[0]: {"post 0 #old", "post 0, fixed #new", "post 0, fixed twice #new"},
				hot:      {"post 19 #old", "post 19, fixed while hot"},
			} {
				if got := s.history(mid, fan); !slices.Equal(got, want) {
					t.Errorf("history of %d = %q, want %q", mid, got, want)
				}
				if p, err := s.Post(s.ctx, mid, fan); err != nil || p.Content != want[len(want)-1] || p.EditedAt == nil {
					t.Errorf("post %d read back = %+v, %v", mid, p, err)
				}
				if n := s.rdb.Exists(s.ctx, s.keys.History(mid)).Val(); n != 0 {
					t.Errorf("history:%d is still in Redis", mid)
				}
			}
			if p, err := s.Post(s.ctx, rp.ID, fan); err != nil || p.RepostOf == nil || p.RepostOf.Content != "post 0, fixed twice #new" {
				t.Errorf("the repost of the archived post shows %+v, %v", p.RepostOf, err)
			}
			page, err := s.TagPosts(s.ctx, "new", store.PageQuery{})
			if err != nil || !slices.Equal(ids(page.Items), posts[:1]) {
				t.Errorf("#new = %v, %v; want the archived post", ids(page.Items), err)
			}
			rows, err := s.Archive().Posts(s.ctx, []int64{posts[0], hot})
			if err != nil || rows[hot].Edited == 0 || rows[posts[0]].Content != "post 0, fixed twice #new" {
				t.Errorf("the archive's rows = %+v, %v", rows, err)
			}
		})
	}
}

// TestEditHeldUntilArchived: a message whose edit the archive lacks stays
// in Redis, in its author's posts too, though the archive has the message
// and it is past the window; once the archive has the edit, it goes, and
// reads back edited from the archive.
func TestEditHeldUntilArchived(t *testing.T) {
	parallel(t)
	db, err := archive.Open(context.Background(), archivetest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := newTestStoreWith(t, redisdb.Options{HotWindow: 2, Archive: db}) // no archiver: the test runs its steps
	a := NewArchiver(s.Store, ArchiverOptions{})
	writer := s.user("writer")
	first := s.post(store.NewPost{Author: writer, Content: "first"})
	s.edit(writer, first.ID, "first, edited")
	for range 3 {
		s.post(store.NewPost{Author: writer, Content: "newer"})
	}
	msgs, err := s.rdb.XRange(s.ctx, s.keys.ArchiveQueue(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	b := a.parse(msgs)
	if len(b.edits) != 1 || len(b.put) != 4 {
		t.Fatalf("queue holds %d puts and %d edits, want 4 and 1", len(b.put), len(b.edits))
	}
	if err := db.Save(s.ctx, b.put, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.evict(s.ctx, archiveBatch{put: b.put}); err != nil {
		t.Fatal(err)
	}
	if s.hotHashes([]int64{first.ID}) != 1 || s.rdb.ZScore(s.ctx, s.keys.UserPosts(writer), id(first.ID)).Err() != nil {
		t.Fatal("the message left Redis before the archive had its edit")
	}
	if err := db.SaveEdits(s.ctx, b.edits); err != nil {
		t.Fatal(err)
	}
	if err := a.evict(s.ctx, archiveBatch{edits: b.edits}); err != nil {
		t.Fatal(err)
	}
	if s.hotHashes([]int64{first.ID}) != 0 || s.rdb.Exists(s.ctx, s.keys.History(first.ID)).Val() != 0 {
		t.Fatal("the message (or its history) stayed in Redis once the archive had its edit")
	}
	if got := s.history(first.ID, 0); !slices.Equal(got, []string{"first", "first, edited"}) {
		t.Errorf("history from the archive = %q", got)
	}
}
