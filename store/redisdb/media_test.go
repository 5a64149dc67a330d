package redisdb

import (
	"slices"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb/runner"
)

// removed records the files the store asks to remove.
type removed struct{ names []string }

func (r *removed) Remove(names ...string) { r.names = append(r.names, names...) }

// TestUnattachedMediaExpire: an upload no post takes is removed (hash,
// index and files) after a day; one a post took is kept.
func TestUnattachedMediaExpire(t *testing.T) {
	parallel(t)
	clock := time.UnixMilli(1_800_000_000_000)
	files := &removed{}
	s := newTestStoreWith(t, Options{Now: func() time.Time { return clock }, Files: files})
	alice := s.user("alice")
	kept, err := s.SaveMedia(s.ctx, alice, store.MediaFile{Name: "k.jpg", ThumbName: "kt.jpg", Width: 1, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	lost, err := s.SaveMedia(s.ctx, alice, store.MediaFile{Name: "l.jpg", ThumbName: "lt.jpg", Width: 1, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.post(store.NewPost{Author: alice, Content: "with a picture", MediaIDs: []int64{kept.ID}})

	clock = clock.Add(23 * time.Hour)
	if n, err := runner.NewMediaJanitor(s.Store, runner.MediaJanitorOptions{}).Expire(s.ctx); n != 0 || err != nil {
		t.Fatalf("after 23h: %d expired, %v", n, err)
	}
	clock = clock.Add(2 * time.Hour)
	if n, err := runner.NewMediaJanitor(s.Store, runner.MediaJanitorOptions{}).Expire(s.ctx); n != 1 || err != nil {
		t.Fatalf("after 25h: %d expired, %v", n, err)
	}
	if !slices.Equal(files.names, []string{"l.jpg", "lt.jpg"}) {
		t.Fatalf("removed files %v", files.names)
	}
	if n := s.rdb.Exists(s.ctx, s.keys.Media(lost.ID)).Val(); n != 0 {
		t.Fatal("the expired upload's hash survived")
	}
	if n := s.rdb.Exists(s.ctx, s.keys.Media(kept.ID)).Val(); n != 1 {
		t.Fatal("the attached upload was removed")
	}
	if n := s.rdb.ZCard(s.ctx, s.keys.UnattachedMedia()).Val(); n != 0 {
		t.Fatalf("%d uploads still wait for a post", n)
	}
}

// An upload is read and described by its owner only, and described only
// until a post takes it.
func TestDescribeUpload(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	owner, other := s.user("owner"), s.user("other")
	m, err := s.SaveMedia(s.ctx, owner, store.MediaFile{Name: "a.png", ThumbName: "a_t.png", Width: 4, Height: 3, Alt: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.DescribeUpload(s.ctx, owner, m.ID, "second"); err != nil || got.Alt != "second" || got.Width != 4 {
		t.Fatalf("describe: %+v %v", got, err)
	}
	if got, err := s.Upload(s.ctx, owner, m.ID); err != nil || got.Alt != "second" || got.URL != m.URL {
		t.Fatalf("read back: %+v %v", got, err)
	}
	for _, err := range []error{
		func() error { _, err := s.Upload(s.ctx, other, m.ID); return err }(),
		func() error { _, err := s.DescribeUpload(s.ctx, other, m.ID, "x"); return err }(),
		func() error { _, err := s.Upload(s.ctx, owner, m.ID+100); return err }(),
	} {
		wantCode(t, err, store.ErrNotFound, store.CodeNotFound)
	}
	s.post(store.NewPost{Author: owner, Content: "with it", MediaIDs: []int64{m.ID}})
	_, err = s.DescribeUpload(s.ctx, owner, m.ID, "third")
	wantCode(t, err, store.ErrInvalid, store.CodeInvalidMedia)
}
