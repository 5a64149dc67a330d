package redisdb

import (
	"slices"
	"testing"

	"microblog/store"
)

// A user's liked messages come newest like first, page by page to the end,
// without those unliked or deleted since.
func TestLikedNewestLikeFirst(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	author, fan := s.user("author"), s.user("fan")
	var mids []int64
	for range 5 {
		mids = append(mids, s.post(store.NewPost{Author: author, Content: "like me"}).ID)
	}
	for _, i := range []int{3, 0, 4, 1, 2} {
		if err := s.Like(s.ctx, fan, mids[i], true); err != nil {
			t.Fatal(err)
		}
	}
	s.Like(s.ctx, fan, mids[4], false)
	if err := s.Delete(s.ctx, author, mids[0]); err != nil {
		t.Fatal(err)
	}
	var got []int64
	q := store.PageQuery{Limit: 2}
	for {
		page, err := s.Liked(s.ctx, fan, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page.Items {
			if p.Liked == nil || !*p.Liked {
				t.Fatalf("post %d of the liked list is not marked liked", p.ID)
			}
		}
		got = append(got, ids(page.Items)...)
		if page.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			t.Fatal(err)
		}
	}
	if want := []int64{mids[2], mids[1], mids[3]}; !slices.Equal(got, want) {
		t.Fatalf("liked %v, want %v", got, want)
	}
}
