package redisdb

import (
	"errors"
	"fmt"
	"testing"

	"microblog/store"
	"microblog/store/archive/archivetest"
)

// TestArchiveQueueCap: with the archive's MariaDB killed, posts go on until
// the archive queue holds ArchiveQueueMax entries; then posts, comments,
// reposts and private messages are refused with archive_backlog (503),
// their Idempotency-Keys released, while likes and deletes still go in.
// Once the database is back and the queue drains, the refused retry with
// the same key makes its post.
func TestArchiveQueueCap(t *testing.T) {
	parallel(t)
	db := archivetest.StartMariaDB(t)
	s := newArchivedStore(t, db.NewDatabase(t), Options{HotWindow: 10, ArchiveQueueMax: 20})
	u, fan := s.user("writer"), s.user("fan")
	first := s.post(store.NewPost{Author: u, Content: "before"})
	s.archived()

	db.Kill()
	made := 0
	var err error
	for ; made < 100; made++ {
		if _, err = s.Create(s.ctx, store.NewPost{Author: u, Content: fmt.Sprint("while down ", made)}); err != nil {
			break
		}
	}
	if !errors.Is(err, store.ErrArchiveBacklog) || !errors.Is(err, store.ErrUnavailable) || made != 20 {
		t.Fatalf("after %d posts with the archive down: %v, want 20 posts then archive_backlog", made, err)
	}
	refused := map[string]error{}
	for what, np := range map[string]store.NewPost{
		"a post with a key": {Author: u, Content: "keyed", IdempotencyKey: "k1"},
		"a comment":         {Author: fan, Content: "a comment", Parent: first.ID},
		"a repost":          {Author: fan, RepostOf: first.ID},
	} {
		_, refused[what] = s.Create(s.ctx, np)
	}
	_, refused["a private message"] = s.SendDM(s.ctx, store.NewDM{From: fan, To: u, Content: "hello"})
	for what, err := range refused {
		if !errors.Is(err, store.ErrArchiveBacklog) {
			t.Errorf("%s with the archive queue full: %v, want archive_backlog", what, err)
		}
	}
	if err := s.Like(s.ctx, fan, first.ID, true); err != nil {
		t.Errorf("a like with the archive queue full: %v", err)
	}
	if err := s.Delete(s.ctx, u, first.ID); err != nil {
		t.Errorf("a delete with the archive queue full: %v", err)
	}

	db.Restart(t)
	s.archived()
	p, err := s.Create(s.ctx, store.NewPost{Author: u, Content: "keyed", IdempotencyKey: "k1"})
	if err != nil || p.Content != "keyed" {
		t.Fatalf("the refused post's retry once the archive caught up: %+v, %v", p, err)
	}
}
