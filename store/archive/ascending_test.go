package archive_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

// TestIDsAscending: with Ascending, every kind of query answers the Limit
// OLDEST ids within its bounds, oldest first, leaving out the deleted ones
// as a newest-first query does.
func TestIDsAscending(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		// Authors 1 and 2 post ids 1..20 in turn; 3 comments on post 2.
		var put []store.Archived
		for id := int64(1); id <= 20; id++ {
			p := post(id, 1+id%2, "p")
			if id%3 == 0 {
				p.Tags = `["go"]`
			}
			put = append(put, p)
		}
		put = append(put, comment(21, 1, 2), comment(22, 3, 2), comment(23, 1, 2), repost(24, 3, 2), comment(25, 1, 7))
		save(t, db, put, []store.Archived{post(6, 1, ""), post(3, 2, ""), comment(22, 3, 2)})

		for _, c := range []struct {
			name string
			q    store.ArchiveQuery
			want []int64
		}{
			{"author", store.ArchiveQuery{Authors: []int64{1}, Limit: 4}, []int64{2, 4, 8, 10}},
			{"author after", store.ArchiveQuery{Authors: []int64{1}, After: 8, Limit: 3}, []int64{10, 12, 14}},
			{"authors", store.ArchiveQuery{Authors: []int64{2, 1}, Limit: 4}, []int64{1, 2, 4, 5}},
			{"authors after", store.ArchiveQuery{Authors: []int64{1, 2, 2}, After: 13, Limit: 3}, []int64{14, 15, 16}},
			{"authors between", store.ArchiveQuery{Authors: []int64{2}, After: 3, Before: 11, Limit: 10}, []int64{5, 7, 9}},
			{"authors to the end", store.ArchiveQuery{Authors: []int64{1, 3}, After: 17, Limit: 10}, []int64{18, 20, 24}},
			{"comments", store.ArchiveQuery{Parent: 2, Limit: 10}, []int64{21, 23}},
			{"comments after", store.ArchiveQuery{Parent: 2, After: 21, Limit: 10}, []int64{23}},
			{"comments by", store.ArchiveQuery{CommentsBy: 1, Limit: 2}, []int64{21, 23}},
			{"comments by after", store.ArchiveQuery{CommentsBy: 1, After: 21, Limit: 5}, []int64{23, 25}},
			{"public", store.ArchiveQuery{Public: true, Limit: 3}, []int64{1, 2, 4}},
			{"public after", store.ArchiveQuery{Public: true, After: 17, Limit: 10}, []int64{18, 19, 20, 24}},
			{"public between", store.ArchiveQuery{Public: true, After: 4, Before: 9, Limit: 10}, []int64{5, 7, 8}},
			{"tag", store.ArchiveQuery{Tag: "go", Limit: 2}, []int64{9, 12}},
			{"tag after", store.ArchiveQuery{Tag: "go", After: 12, Limit: 10}, []int64{15, 18}},
			{"tag between", store.ArchiveQuery{Tag: "go", After: 9, Before: 18, Limit: 10}, []int64{12, 15}},
		} {
			c.q.Ascending = true
			got, err := db.IDs(ctx, c.q)
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%s: IDs(%+v) = %v, %v; want %v", c.name, c.q, got, err, c.want)
			}
		}
	})
}

// TestIDsAscendingManyAuthors: the oldest ids of more authors than one
// query reads merge into one page, oldest first, whatever the chunk each
// falls in.
func TestIDsAscendingManyAuthors(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		const authors = 2550
		rng := rand.New(rand.NewPCG(3, 4))
		var put []store.Archived
		var all []int64 // ids of the followed authors' posts, oldest first
		for id := int64(1); id <= 3*authors; id++ {
			author := 1 + rng.Int64N(authors+100) // the last 100 are not followed
			put = append(put, post(id, author, "p"))
			if author <= authors {
				all = append(all, id)
			}
		}
		save(t, db, put, nil)
		follow := make([]int64, authors)
		for i := range follow {
			follow[i] = int64(i + 1)
		}
		rng.Shuffle(len(follow), func(i, j int) { follow[i], follow[j] = follow[j], follow[i] })
		n := len(all)
		for _, c := range []struct {
			q    store.ArchiveQuery
			want []int64
		}{
			{store.ArchiveQuery{Limit: 50}, all[:50]},
			{store.ArchiveQuery{After: all[100], Limit: 30}, all[101:131]},
			{store.ArchiveQuery{After: all[n-21], Limit: 50}, all[n-20:]},
			{store.ArchiveQuery{After: all[10], Before: all[40], Limit: 100}, all[11:40]},
			{store.ArchiveQuery{Limit: 100000}, all},
		} {
			c.q.Authors, c.q.Ascending = follow, true
			got, err := db.IDs(context.Background(), c.q)
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("IDs(Before %d, After %d, Limit %d, Ascending) = %d ids %v, %v; want %d ids %v",
					c.q.Before, c.q.After, c.q.Limit, len(got), head(got), err, len(c.want), head(c.want))
			}
		}
	})
}
