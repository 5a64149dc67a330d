package mastodon

import (
	"slices"

	"microblog/store"
)

// The page right above min_id. Mastodon clients catch up after an absence
// with ?min_id= and the prev links that follow: each page must be the
// limit OLDEST posts newer than min_id (answered newest first), however
// many posts lie above it, or the posts between are skipped for good. The
// store reads those upwards (store.PageQuery.Ascending: ZRANGEBYSCORE from
// min_id, and the archive ORDER BY id ASC), so a page costs the same
// whatever the gap.

// maxUpRounds bounds the store pages one min_id page reads when what the
// store skips (posts gone or hidden from the reader) or a filter leaves them
// short: past it, the page ends early, and its prev link goes on from where
// the reading stopped, so nothing is skipped.
const maxUpRounds = 10

// readPageUp reads the page right above q.After (min_id, and below
// q.Cursor.Score when max_id is set too) of list, newest first, and the id
// its prev link starts from: its newest post's, or where the reading
// stopped if that is newer (0 when there is nothing above).
func readPageUp(q store.PageQuery, list func(store.PageQuery) (store.Page[store.Post], error)) ([]store.Post, int64, error) {
	return collectUp(q, func(store.Post) bool { return true }, list)
}

// collectUp reads pages of list upwards from q.After, keeping the posts
// keep takes, until q.Size() are kept or the list ends: the page right above
// q.After, newest first. top is the id the next page up starts from: the
// newest kept, or where the reading stopped when the rounds ran out first
// (0 when nothing was kept and the list ended).
func collectUp(q store.PageQuery, keep func(store.Post) bool, list func(store.PageQuery) (store.Page[store.Post], error)) (out []store.Post, top int64, err error) {
	want := q.Size()
	q.Ascending = true
	for round := 0; round < maxUpRounds; round++ {
		pg, err := list(q)
		if err != nil {
			return nil, 0, err
		}
		for _, p := range pg.Items { // oldest first
			if !keep(p) {
				continue
			}
			out = append(out, p)
			top = p.ID
			if len(out) == want {
				break
			}
		}
		if len(out) == want || pg.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*pg.NextCursor); err != nil {
			return nil, 0, err
		}
		top = max(top, q.Cursor.After)
		q.Limit = store.MaxLimit // what is left is short of skipped or filtered posts

	}
	slices.Reverse(out)
	return out, top, nil
}

// mergedPageUp is mergedPage for an ascending query: the oldest q.Size() of
// both lists' ascending pages, oldest first. A list that has more stopped
// reading at its cursor (its After), and nothing of the other list above
// that is taken, for the next page goes on above the last id taken in both.
func mergedPageUp(q store.PageQuery, a, b func(store.PageQuery) (store.Page[store.Post], error)) (store.Page[store.Post], error) {
	pa, err := a(q)
	if err != nil {
		return pa, err
	}
	pb, err := b(q)
	if err != nil {
		return pb, err
	}
	// Above ceiling one of the lists is unread (0: both are read to their end).
	ceiling := int64(0)
	for _, p := range []store.Page[store.Post]{pa, pb} {
		if to := reachedUpTo(p); to > 0 && (ceiling == 0 || to < ceiling) {
			ceiling = to
		}
	}
	size := q.Size()
	out := store.Page[store.Post]{Items: make([]store.Post, 0, size)}
	i, j := 0, 0
	for len(out.Items) < size {
		fromA := i < len(pa.Items) && (j == len(pb.Items) || pa.Items[i].ID < pb.Items[j].ID)
		var next store.Post
		switch {
		case fromA:
			next = pa.Items[i]
		case j < len(pb.Items):
			next = pb.Items[j]
		}
		if next.ID == 0 || ceiling > 0 && next.ID > ceiling {
			break
		}
		out.Items = append(out.Items, next)
		if fromA {
			i++
		} else {
			j++
		}
	}
	switch {
	case len(out.Items) == size:
		out.NextCursor = store.NextCursor(store.Cursor{Score: q.Cursor.Score, After: out.Items[size-1].ID})
	case ceiling > 0:
		out.NextCursor = store.NextCursor(store.Cursor{Score: q.Cursor.Score, After: ceiling})
	}
	return out, nil
}

// reachedUpTo is the id an ascending page of a list read up to, the last
// it holds or skipped (its cursor's After), when the list has more above
// it; 0 when it has no more.
func reachedUpTo(p store.Page[store.Post]) int64 {
	if p.NextCursor == nil {
		return 0
	}
	c, err := store.DecodeCursor(*p.NextCursor)
	if err != nil {
		return 0
	}
	return c.After
}
