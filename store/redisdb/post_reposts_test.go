package redisdb

import (
	"slices"
	"testing"

	"microblog/store"
)

// TestRepostsBy: RepostsBy names each user's own repost of each post (none
// for a post not reposted, or after the repost is deleted), and Reposters
// lists who reposted, newest repost first, paged.
func TestRepostsBy(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	orig := s.post(store.NewPost{Author: alice, Content: "share me"})
	other := s.post(store.NewPost{Author: alice, Content: "leave me"})
	byBob := s.post(store.NewPost{Author: bob, RepostOf: orig.ID})
	byCarol := s.post(store.NewPost{Author: carol, RepostOf: orig.ID})

	got, err := s.RepostsBy(s.ctx, bob, []int64{orig.ID, other.ID, 987654})
	if err != nil || !slices.Equal(got, []int64{byBob.ID, 0, 0}) {
		t.Fatalf("RepostsBy(bob) = %v, %v; want [%d 0 0]", got, err, byBob.ID)
	}
	if got, _ := s.RepostsBy(s.ctx, 0, []int64{orig.ID}); !slices.Equal(got, []int64{0}) {
		t.Errorf("RepostsBy(anonymous) = %v", got)
	}

	page, err := s.Reposters(s.ctx, orig.ID, store.PageQuery{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != carol || page.NextCursor == nil {
		t.Fatalf("first page of reposters: %+v, %v; want carol and more", page, err)
	}
	cur, _ := store.DecodeCursor(*page.NextCursor)
	page, err = s.Reposters(s.ctx, orig.ID, store.PageQuery{Limit: 1, Cursor: cur})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != bob || page.NextCursor != nil {
		t.Fatalf("second page of reposters: %+v, %v; want bob, the last", page, err)
	}

	if err := s.Delete(s.ctx, carol, byCarol.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RepostsBy(s.ctx, carol, []int64{orig.ID}); !slices.Equal(got, []int64{0}) {
		t.Errorf("RepostsBy(carol) after her repost was deleted = %v", got)
	}
	if _, err := s.Reposters(s.ctx, 987654, store.PageQuery{}); err == nil {
		t.Error("Reposters of a post that does not exist: no error")
	}
}
