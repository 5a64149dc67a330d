package archive

import (
	"context"
	"fmt"
	"slices"

	"microblog/store"
)

// searchBudget bounds how many candidates (posts holding every gram of
// the query) one Search reads and checks. Candidates are nearly always
// matches (docs/performance.md), so a page takes one round; the budget is
// for the rare query whose pairs are common but whose words are not, which
// then answers a short page and goes on from where it stopped.
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
	var tokens []string
	for _, w := range q.Words {
		tokens = wordTokens(tokens, w)
	}
	slices.Sort(tokens)
	tokens = slices.Compact(tokens)
	before := q.Before
	var res store.SearchResult
	for read := 0; read < searchBudget; {
		// Ask for what is missing and a little more, for the few
		// candidates that are not matches.
		want := min(q.Limit-len(res.IDs)+8, searchBudget-read)
		cands, err := db.search().candidates(ctx, db, tokens, before, q.After, want)
		if err != nil {
			return store.SearchResult{}, wrap(db.d, "search", err)
		}
		read += len(cands)
		found, err := db.matching(ctx, cands, q.Words)
		if err != nil {
			return store.SearchResult{}, wrap(db.d, "search", err)
		}
		for _, id := range found {
			if res.IDs = append(res.IDs, id); len(res.IDs) == q.Limit {
				res.Next = id
				return res, nil
			}
		}
		if len(cands) < want {
			return res, nil // the index has no more
		}
		before = cands[len(cands)-1]
	}
	res.Next = before
	return res, nil
}

// matching returns those of ids (newest first) that are posts, not
// deleted, whose content holds every word, in the same order.
func (db *DB) matching(ctx context.Context, ids []int64, words []string) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := db.read.QueryContext(ctx, selectPosts+list(len(ids)), anys(ids)...)
	if err != nil {
		return nil, err
	}
	posts, _, err := readPosts(rows)
	if err != nil {
		return nil, err
	}
	ok := make(map[int64]bool, len(posts))
	for _, p := range posts {
		ok[p.id] = store.Matches(p.content, words)
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return !ok[id] }), nil
}
