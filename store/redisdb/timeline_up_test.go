package redisdb

import (
	"fmt"
	"slices"
	"testing"

	"microblog/store"
)

// pageAllUp pages a list upwards (store.PageQuery.Ascending) from above
// after to its end with the cursor, 7 at a time, and returns every id in
// order, failing on a page that is not oldest first.
func (s testStore) pageAllUp(after int64, page func(store.PageQuery) (store.Page[store.Post], error)) []int64 {
	s.t.Helper()
	var out []int64
	q := store.PageQuery{Limit: 7, After: after, Ascending: true}
	for range 1000 {
		p, err := page(q)
		if err != nil {
			s.t.Fatal(err)
		}
		if !slices.IsSorted(ids(p.Items)) {
			s.t.Fatalf("an ascending page not oldest first: %v", ids(p.Items))
		}
		out = append(out, ids(p.Items)...)
		if p.NextCursor == nil {
			return out
		}
		if q.Cursor, err = store.DecodeCursor(*p.NextCursor); err != nil {
			s.t.Fatal(err)
		}
	}
	s.t.Fatal("pages without end")
	return nil
}

// TestAscendingPages: with a hot window of 10, 75 messages of a pushed
// author, a celebrity whose posts are pulled and a stranger the reader
// blocked, some deleted, archived or still hot. Read upwards from any id,
// the home timeline, an author's posts and comments, the public timeline
// and a topic give the posts right above that id, oldest first, each once,
// across the seam between the archive and Redis: the same posts as the
// newest-first pages, which skip the deleted and the hidden ones.
func TestAscendingPages(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			s := newArchivedStore(t, e.dsn(t), Options{HotWindow: 10, CelebrityFans: 2})
			writer, celeb, stranger, fan, fan2 := s.user("writer"), s.user("celeb"), s.user("stranger"), s.user("fan"), s.user("fan2")
			s.follow(fan, writer)
			s.follow(fan, celeb)
			s.follow(fan2, celeb)
			if ok, _ := s.rdb.SIsMember(s.ctx, s.keys.Celebrities(), celeb).Result(); !ok {
				t.Fatal("the author with 2 fans is not pulled at threshold 2")
			}
			if err := s.Block(s.ctx, fan, stranger, true); err != nil {
				t.Fatal(err)
			}
			var home, writers, tagged, comments, public []int64
			var gone []int64
			for i := range 75 {
				switch i % 5 {
				case 0, 1:
					p := s.post(store.NewPost{Author: writer, Content: fmt.Sprintf("#go post %d", i)})
					home, writers, tagged, public = append(home, p.ID), append(writers, p.ID), append(tagged, p.ID), append(public, p.ID)
				case 2, 3:
					p := s.post(store.NewPost{Author: celeb, Content: fmt.Sprintf("post %d", i)})
					home, public = append(home, p.ID), append(public, p.ID)
				case 4:
					p := s.post(store.NewPost{Author: stranger, Content: fmt.Sprintf("#go not for fan %d", i)})
					c := s.post(store.NewPost{Author: writer, Parent: p.ID, Content: fmt.Sprintf("comment %d", i)})
					comments = append(comments, c.ID)
				}
				if i == 6 || i == 71 { // one to be archived, one hot
					gone = append(gone, s.post(store.NewPost{Author: writer, Content: "#go gone"}).ID)
				}
			}
			s.archived()
			for _, mid := range gone {
				if err := s.Delete(s.ctx, writer, mid); err != nil {
					t.Fatal(err)
				}
			}
			s.archived()
			if hot := s.hotHashes(writers[:10]); hot != 0 {
				t.Fatalf("%d of the writer's oldest posts are still in Redis: the archive is not read", hot)
			}
			for _, l := range []struct {
				name string
				want []int64
				page func(store.PageQuery) (store.Page[store.Post], error)
			}{
				{"home", home, func(q store.PageQuery) (store.Page[store.Post], error) { return s.HomeTimeline(s.ctx, fan, q) }},
				{"user posts", writers, func(q store.PageQuery) (store.Page[store.Post], error) { return s.UserPosts(s.ctx, writer, q) }},
				{"user comments", comments, func(q store.PageQuery) (store.Page[store.Post], error) {
					q.Viewer = writer
					return s.UserComments(s.ctx, writer, q)
				}},
				{"public", public, func(q store.PageQuery) (store.Page[store.Post], error) {
					q.Viewer = fan
					return s.PublicTimeline(s.ctx, q)
				}},
				{"topic", tagged, func(q store.PageQuery) (store.Page[store.Post], error) {
					q.Viewer = fan
					return s.TagPosts(s.ctx, "go", q)
				}},
			} {
				down := s.pageAll(l.page)
				slices.Reverse(down)
				// Not for the topic: its newest-first pages read the archive
				// only below its T set, which is no window (a post leaves it
				// with its author's window: here the writer's older posts
				// left while the stranger's of the same time are still hot),
				// and skip what lies between; its ascending pages do not.
				if l.name != "topic" && !slices.Equal(down, l.want) {
					t.Fatalf("%s newest first: %d ids %v, want %d %v", l.name, len(down), down, len(l.want), l.want)
				}
				if got := s.pageAllUp(0, l.page); !slices.Equal(got, l.want) {
					t.Fatalf("%s oldest first with the cursor: %d ids %v, want %d %v", l.name, len(got), got, len(l.want), l.want)
				}
				// Mastodon's min_id: the page right above an id, the next one
				// right above the newest of it, to the end.
				for _, k := range []int{0, 3, len(l.want) / 2, len(l.want) - 6} {
					var got []int64
					for after := l.want[k]; ; {
						p, err := l.page(store.PageQuery{Limit: 5, After: after, Ascending: true})
						if err != nil {
							t.Fatal(err)
						}
						if len(p.Items) == 0 {
							break
						}
						got = append(got, ids(p.Items)...)
						after = p.Items[len(p.Items)-1].ID
					}
					if !slices.Equal(got, l.want[k+1:]) {
						t.Fatalf("%s above %d (the %dth): %v, want %v", l.name, l.want[k], k, got, l.want[k+1:])
					}
				}
				// Between min_id and max_id: the oldest of the range.
				p, err := l.page(store.PageQuery{Limit: 4, After: l.want[2], Cursor: store.Cursor{Score: l.want[12]}, Ascending: true})
				if err != nil || !slices.Equal(ids(p.Items), l.want[3:7]) || p.NextCursor == nil {
					t.Fatalf("%s between %d and %d: %v (next %v), %v; want %v", l.name, l.want[2], l.want[12], ids(p.Items), p.NextCursor, err, l.want[3:7])
				}
				p, err = l.page(store.PageQuery{Limit: 20, After: l.want[2], Cursor: store.Cursor{Score: l.want[12]}, Ascending: true})
				if err != nil || !slices.Equal(ids(p.Items), l.want[3:12]) || p.NextCursor != nil {
					t.Fatalf("%s between %d and %d: %v (next %v), %v; want %v", l.name, l.want[2], l.want[12], ids(p.Items), p.NextCursor, err, l.want[3:12])
				}
			}
		})
	}
}
