package redisdb

import (
	"testing"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// A message's hash keeps its like count and each user the set of messages
// it likes: likes and unlikes keep both equal to the likers' set, readers
// take them from there, and Migrate makes them for likes of an older version.
func TestLikeCountInTheHash(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	author, fans := s.user("author"), []int64{s.user("ann"), s.user("ben"), s.user("cat")}
	p := s.post(store.NewPost{Author: author, Content: "like me"})
	count := func() (field string, read int64) {
		t.Helper()
		got, err := s.Post(s.ctx, p.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return s.rdb.HGet(s.ctx, s.keys.Post(p.ID), schema.FieldLikes).Val(), got.LikesCount
	}
	if f, n := count(); f != "0" || n != 0 {
		t.Fatalf("a new post: field %q, read %d", f, n)
	}
	for _, f := range fans {
		if err := s.Like(s.ctx, f, p.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	s.Like(s.ctx, fans[0], p.ID, true) // again: no change
	if f, n := count(); f != "3" || n != 3 {
		t.Fatalf("three likes: field %q, read %d", f, n)
	}
	if err := s.Like(s.ctx, fans[1], p.ID, false); err != nil {
		t.Fatal(err)
	}
	if f, n := count(); f != "2" || n != 2 {
		t.Fatalf("an unlike: field %q, read %d", f, n)
	}
	page, err := s.UserPosts(s.ctx, author, store.PageQuery{Limit: 5, Viewer: fans[0]})
	if err != nil || len(page.Items) != 1 || page.Items[0].LikesCount != 2 || !*page.Items[0].Liked {
		t.Fatalf("a page: %+v %v", page.Items, err)
	}

	likedBy := func(uid int64) bool {
		t.Helper()
		page, err := s.UserPosts(s.ctx, author, store.PageQuery{Limit: 5, Viewer: uid})
		if err != nil || len(page.Items) != 1 || page.Items[0].Liked == nil {
			t.Fatalf("a page: %+v %v", page.Items, err)
		}
		return *page.Items[0].Liked
	}
	if !likedBy(fans[0]) || likedBy(fans[1]) || !likedBy(fans[2]) || likedBy(author) {
		t.Fatal("liked flags wrong before the migration")
	}

	// As an older version left it: likes, but no count field and no
	// user's set of liked messages.
	s.rdb.HDel(s.ctx, s.keys.Post(p.ID), schema.FieldLikes)
	for _, f := range fans {
		s.rdb.Del(s.ctx, s.keys.UserLikes(f))
	}
	if likedBy(fans[0]) {
		t.Fatal("the liked flag does not come from the user's set")
	}
	s.rdb.Set(s.ctx, s.keys.Schema(), 3, 0)
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatal(err)
	}
	if f, n := count(); f != "2" || n != 2 {
		t.Fatalf("after Migrate: field %q, read %d", f, n)
	}
	if !likedBy(fans[0]) || likedBy(fans[1]) || !likedBy(fans[2]) {
		t.Fatal("liked flags wrong after the migration")
	}
}
