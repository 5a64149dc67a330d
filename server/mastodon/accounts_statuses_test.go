package mastodon

import (
	"fmt"
	"slices"
	"testing"

	"microblog/store"
)

// fakeList is a list of post ids paged newest first as the store pages
// one: a page scans Size() ids below the cursor, leaves out the hidden ones
// (so a page may come back short, or empty, with a cursor), and has a
// cursor at the last id it scanned when there are more.
type fakeList struct {
	ids    []int64 // newest first
	hidden map[int64]bool
}

func (l fakeList) page(q store.PageQuery) (store.Page[store.Post], error) {
	var p store.Page[store.Post]
	var scanned []int64
	for _, id := range l.ids {
		if q.Cursor.Score > 0 && id >= q.Cursor.Score {
			continue
		}
		if len(scanned) == q.Size() {
			p.NextCursor = store.NextCursor(store.Cursor{Score: scanned[len(scanned)-1]})
			break
		}
		scanned = append(scanned, id)
		if !l.hidden[id] {
			p.Items = append(p.Items, store.Post{ID: id})
		}
	}
	return p, nil
}

// TestMergedPage pages the union of two lists with every page size, with
// hidden posts that leave the lists' pages short or empty, and checks each
// visible post comes once, in order.
func TestMergedPage(t *testing.T) {
	a := fakeList{ids: []int64{30, 29, 28, 20, 19, 12, 11, 10, 3}, hidden: map[int64]bool{29: true, 28: true, 20: true, 19: true}}
	b := fakeList{ids: []int64{27, 26, 25, 24, 18, 5, 4, 2, 1}, hidden: map[int64]bool{5: true}}
	var want []int64
	for _, id := range slices.Concat(a.ids, b.ids) {
		if !a.hidden[id] && !b.hidden[id] {
			want = append(want, id)
		}
	}
	slices.SortFunc(want, func(x, y int64) int { return int(y - x) })
	for size := 1; size <= 20; size++ {
		t.Run(fmt.Sprint("size ", size), func(t *testing.T) {
			var got []int64
			q := store.PageQuery{Limit: size}
			for range 100 {
				p, err := mergedPage(q, a.page, b.page)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) > size {
					t.Fatalf("a page of %d items, want at most %d", len(p.Items), size)
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
			if !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
