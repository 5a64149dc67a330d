package social

import (
	"context"

	"microblog/store"
)

// searchRounds bounds how many times one page asks the archive: a round
// comes back short only when posts it found are hidden from the reader,
// deleted or edited since they were archived, or when the archive reached
// its budget of candidates.
const searchRounds = 5

// SearchPosts is a page of the posts whose content holds every word of q
// (store.ParseQuery), newest first, as the reader may see them in search.
// The archive, which holds every post within a moment of its writing (the
// archiver's batch), finds them; they are read as any page is (from Redis
// while hot), and kept only while they still hold the words as read, so a
// post edited or deleted a moment ago, and not archived as such yet, is
// not shown for what it no longer says.
func (s *Social) SearchPosts(ctx context.Context, q string, pq store.PageQuery) (store.Page[store.Post], error) {
	words, err := store.ParseQuery(q)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	if s.opt.Archive == nil {
		return store.Page[store.Post]{}, store.ErrSearchUnavailable
	}
	limit := pq.Size()
	before, after := pq.Cursor.Score, max(pq.After, pq.Cursor.After)
	page := store.Page[store.Post]{Items: make([]store.Post, 0, limit)}
	more := true
	for round := 0; round < searchRounds && more && len(page.Items) < limit; round++ {
		want := limit - len(page.Items)
		res, err := s.opt.Archive.Search(ctx, store.SearchQuery{Words: words, Before: before, After: after, Limit: want + 1})
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		mids := res.IDs
		switch more = res.Next != 0; {
		case len(mids) > want:
			mids = mids[:want]
			before = mids[want-1]
		case more:
			before = res.Next
		}
		n := len(page.Items)
		if page.Items, err = s.core.Hydrate(ctx, nil, mids, pq.Viewer, store.InSearch, page.Items); err != nil {
			return store.Page[store.Post]{}, err
		}
		kept := page.Items[:n]
		for _, p := range page.Items[n:] {
			if store.Matches(p.Content, words) {
				kept = append(kept, p)
			}
		}
		page.Items = kept
	}
	if more {
		page.NextCursor = store.NextCursor(store.Cursor{Score: before, After: after})
	}
	return page, nil
}
