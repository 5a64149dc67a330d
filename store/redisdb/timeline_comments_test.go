package redisdb

import (
	"fmt"
	"slices"
	"testing"

	"microblog/store"
)

// TestUserComments: a user's comments page newest first, the newest from
// its R set and the older ones, past the hot window, from the archive,
// with no gap and no duplicate at the seam; a deleted comment leaves the
// list; posts are not in it; and without an archive R keeps them all.
func TestUserComments(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			const window, total = 5, 17
			s := newArchivedStore(t, e.dsn(t), Options{HotWindow: window})
			alice, bob := s.user("alice"), s.user("bob")
			var comments []int64
			for i := range total {
				parent := s.post(store.NewPost{Author: bob, Content: fmt.Sprint("post ", i)})
				s.post(store.NewPost{Author: alice, Content: fmt.Sprint("alice's own ", i)})
				comments = append(comments, s.post(store.NewPost{Author: alice, Parent: parent.ID, Content: fmt.Sprint("reply ", i)}).ID)
			}
			s.archived()
			if n := s.rdb.ZCard(s.ctx, s.keys.UserComments(alice)).Val(); n != window {
				t.Fatalf("R holds %d ids, want the newest %d", n, window)
			}
			newestFirst := slices.Clone(comments)
			slices.Reverse(newestFirst)
			all := func() []int64 {
				return s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
					q.Limit = 3
					return s.UserComments(s.ctx, alice, q)
				})
			}
			if got := all(); !slices.Equal(got, newestFirst) {
				t.Fatalf("alice's comments: %v, want %v", got, newestFirst)
			}
			if err := s.Delete(s.ctx, alice, comments[total-2]); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(s.ctx, alice, comments[1]); err != nil { // an archived one
				t.Fatal(err)
			}
			s.archived()
			want := slices.DeleteFunc(slices.Clone(newestFirst), func(id int64) bool { return id == comments[total-2] || id == comments[1] })
			if got := all(); !slices.Equal(got, want) {
				t.Fatalf("after two deletes: %v, want %v", got, want)
			}
			page, err := s.UserComments(s.ctx, bob, store.PageQuery{})
			if err != nil || len(page.Items) != 0 {
				t.Fatalf("bob, who wrote posts only, has comments %v (%v)", ids(page.Items), err)
			}
		})
	}
	t.Run("no archive", func(t *testing.T) {
		s := newTestStoreWith(t, Options{HotWindow: 3})
		alice, bob := s.user("alice"), s.user("bob")
		parent := s.post(store.NewPost{Author: bob, Content: "post"})
		var want []int64
		for i := range 7 {
			want = append([]int64{s.post(store.NewPost{Author: alice, Parent: parent.ID, Content: fmt.Sprint("reply ", i)}).ID}, want...)
		}
		got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) { return s.UserComments(s.ctx, alice, q) })
		if !slices.Equal(got, want) {
			t.Fatalf("without an archive: %v, want all 7 %v", got, want)
		}
	})
}
