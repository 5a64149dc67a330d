package archive

import (
	"context"
	"fmt"

	"microblog/store"
)

// searchBudget bounds how many candidates (posts holding every gram of the
// query) one Search reads and checks. Candidates are nearly always matches
// (docs/performance.md), so a page takes one round; the budget is for the
// rare query whose grams are common but whose words are not, which then
// answers a short page and goes on from where it stopped.
const searchBudget = 2000

// Search finds the posts (not comments, not deleted) whose content holds
// every word of q, newest first (see store.Archive): it asks the index for
// the posts holding all the grams of the words, and keeps those whose
// content holds the words themselves.
func (db *DB) Search(ctx context.Context, q store.SearchQuery) (store.SearchResult, error) {
	if len(q.Words) == 0 || q.Limit <= 0 {
		return store.SearchResult{}, fmt.Errorf("archive: search: %w: want words and a positive Limit, got %d words and Limit %d",
			store.ErrInvalid, len(q.Words), q.Limit)
	}
	tokens, err := db.search().tokens(ctx, db, q.Words)
	if err != nil {
		return store.SearchResult{}, wrap(db.d, "search", err)
	}
	var res store.SearchResult
	before := q.Before
	// Ask for what is missing and a few more, for candidates that are not
	// matches; four times as many each round that comes back short.
	for read, want := 0, q.Limit+8; read < searchBudget; want *= 4 {
		n := min(want, searchBudget-read)
		got := 0
		err := db.search().scan(ctx, db, tokens, before, q.After, n, func(c candidate) bool {
			got++
			before = c.id
			if c.kind == store.KindPost && !c.deleted && store.Matches(c.content, q.Words) {
				res.IDs = append(res.IDs, c.id)
			}
			return len(res.IDs) < q.Limit
		})
		if err != nil {
			return store.SearchResult{}, wrap(db.d, "search", err)
		}
		read += got
		switch {
		case len(res.IDs) == q.Limit:
			res.Next = before
			return res, nil
		case got < n:
			return res, nil // the index has no more
		}
	}
	res.Next = before
	return res, nil
}
