package mastodon

import (
	"fmt"
	"slices"
	"testing"

	"microblog/store"
)

// pageUp pages the list upwards as the store pages an ascending query: a
// page scans Size() ids above the lower bound (and below the cursor's
// Score when set), leaves out the hidden ones, and has a cursor at the
// last id it scanned when there are more.
func (l fakeList) pageUp(q store.PageQuery) (store.Page[store.Post], error) {
	var p store.Page[store.Post]
	ids := slices.Clone(l.ids)
	slices.Reverse(ids)
	after := max(q.After, q.Cursor.After)
	var scanned []int64
	for _, id := range ids {
		if id <= after || q.Cursor.Score > 0 && id >= q.Cursor.Score {
			continue
		}
		if len(scanned) == q.Size() {
			p.NextCursor = store.NextCursor(store.Cursor{Score: q.Cursor.Score, After: scanned[len(scanned)-1]})
			break
		}
		scanned = append(scanned, id)
		if !l.hidden[id] {
			p.Items = append(p.Items, store.Post{ID: id})
		}
	}
	return p, nil
}

// TestMergedPageUp pages the union of two lists upwards from every id with
// every page size, with hidden posts that leave the lists' pages short or
// empty: each page is the oldest of what lies above, and following the
// pages (the cursor, or min_id from the newest of each, as Mastodon clients
// do) gives each visible post once, in order.
func TestMergedPageUp(t *testing.T) {
	a := fakeList{ids: []int64{30, 29, 28, 20, 19, 12, 11, 10, 3}, hidden: map[int64]bool{29: true, 28: true, 20: true, 19: true}}
	b := fakeList{ids: []int64{27, 26, 25, 24, 18, 5, 4, 2, 1}, hidden: map[int64]bool{5: true}}
	var want []int64 // oldest first
	for _, id := range slices.Concat(a.ids, b.ids) {
		if !a.hidden[id] && !b.hidden[id] {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	merged := func(q store.PageQuery) (store.Page[store.Post], error) { return mergedPage(q, a.pageUp, b.pageUp) }
	for size := 1; size <= 20; size++ {
		for _, from := range []int64{0, 2, 11, 19, 26, 30} {
			t.Run(fmt.Sprint("size ", size, " from ", from), func(t *testing.T) {
				above := slices.DeleteFunc(slices.Clone(want), func(id int64) bool { return id <= from })
				var got []int64
				q := store.PageQuery{Limit: size, After: from, Ascending: true}
				for range 100 {
					p, err := merged(q)
					if err != nil {
						t.Fatal(err)
					}
					if len(p.Items) > size || !slices.IsSortedFunc(p.Items, func(x, y store.Post) int { return int(x.ID - y.ID) }) {
						t.Fatalf("a page of %d items %v, want at most %d oldest first", len(p.Items), p.Items, size)
					}
					for _, it := range p.Items {
						got = append(got, it.ID)
					}
					if p.NextCursor == nil {
						break
					}
					if q.Cursor, err = store.DecodeCursor(*p.NextCursor); err != nil {
						t.Fatal(err)
					}
				}
				if !slices.Equal(got, above) {
					t.Fatalf("with the cursor: got %v, want %v", got, above)
				}
				// As a client with min_id: collectUp's page is the size oldest
				// above, newest first; the next goes on above its top.
				got = nil
				for minID, rounds := from, 0; ; rounds++ {
					if rounds > 100 {
						t.Fatal("min_id pages without end")
					}
					page, top, err := collectUp(store.PageQuery{Limit: size, After: minID}, func(store.Post) bool { return true }, merged)
					if err != nil {
						t.Fatal(err)
					}
					if len(page) > size || !slices.IsSortedFunc(page, func(x, y store.Post) int { return int(y.ID - x.ID) }) {
						t.Fatalf("a min_id page of %d items %v, want at most %d newest first", len(page), page, size)
					}
					var ids []int64
					for i := len(page) - 1; i >= 0; i-- {
						ids = append(ids, page[i].ID)
					}
					right := slices.DeleteFunc(slices.Clone(want), func(id int64) bool { return id <= minID })
					if right = right[:min(size, len(right))]; !slices.Equal(ids, right) {
						t.Fatalf("the min_id page above %d: %v, want the %d right above it %v", minID, ids, size, right)
					}
					got = append(got, ids...)
					if top == 0 {
						break
					}
					minID = top
				}
				if !slices.Equal(got, above) {
					t.Fatalf("with min_id: got %v, want %v", got, above)
				}
			})
		}
	}
}
