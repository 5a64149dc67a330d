package redisdb

import (
	"context"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Ascending pages (store.PageQuery.Ascending): the oldest posts of a list
// above an id, however far below the newest it lies, as a Mastodon client
// asks with min_id when it catches up. The sets are read with
// ZRANGEBYSCORE (after, before) LIMIT 0 n instead of ZREVRANGEBYSCORE.
// Here the tail (the archive, or a home timeline's pull model) holds the
// OLDER part of the list and the sets the newer, overlapping it (archived
// but still hot). Most sets (F, R, G, the public timeline) are windows:
// trimmed from below, each holds every id of its list above its oldest
// member, so the tail is asked only when some set's oldest member lies
// above the range's lower bound. A topic's T set and a cold post's C set
// are not (a post leaves T with its author's window, whatever the other
// authors' posts do), so there the tail is always asked. Both are merged
// oldest first without duplicates.

// postPageUp is postPage for an ascending query: the q.Size() oldest posts
// of the union of keys and tail (which answers oldest first) above q.After
// and q.Cursor.After (below q.Cursor.Score when set), oldest first, under
// the same rules as postPageFrom: gone ids are skipped and dropped from
// keys, the hidden ones skipped, a round reads on for what is missing.
// windows tells whether the sets are windows of their lists (see above).
func (s *Store) postPageUp(ctx context.Context, keys []string, tail tail, q store.PageQuery, at store.Place, windows bool) (store.Page[store.Post], error) {
	limit := q.Size()
	before, after := q.Cursor.Score, max(q.After, q.Cursor.After)
	page := store.Page[store.Post]{Items: make([]store.Post, 0, limit)}
	more := true
	for round := 0; round < 5 && more && len(page.Items) < limit; round++ {
		want := limit - len(page.Items)
		mids, covered, err := s.oldest(ctx, keys, before, after, want+1)
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		if (!covered || !windows) && tail != nil {
			older, err := tail(ctx, before, after, want+1)
			if err != nil {
				return store.Page[store.Post]{}, err
			}
			mids = reqpath.MergeOldest(mids, older, want+1)
		}
		if more = len(mids) > want; more {
			mids = mids[:want]
		}
		if page.Items, err = s.hydrate(ctx, keys, mids, q.Viewer, at, page.Items); err != nil {
			return store.Page[store.Post]{}, err
		}
		if len(mids) > 0 {
			after = mids[len(mids)-1]
		}
	}
	if more {
		page.NextCursor = store.NextCursor(store.Cursor{Score: before, After: after})
	}
	return page, nil
}

// oldest returns the n oldest ids of the union of keys above after and
// below before (0: no bound), oldest first, in one round trip, and whether
// the sets cover that range: each holds a member at or below after, so
// nothing of the range lies only below them.
func (s *Store) oldest(ctx context.Context, keys []string, before, after int64, n int) ([]int64, bool, error) {
	by := reqpath.RangeBy(before, after, n)
	ranges := make([]*redis.StringSliceCmd, len(keys))
	firsts := make([]*redis.ZSliceCmd, len(keys))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, key := range keys {
			ranges[i] = pl.ZRangeByScore(ctx, key, by)
			firsts[i] = pl.ZRangeWithScores(ctx, key, 0, 0)
		}
		return nil
	})
	if err != nil {
		return nil, false, s.Wrap("read timeline", err)
	}
	covered := true
	var all []int64
	for i := range keys {
		all = append(all, schema.ParseIDs(ranges[i].Val())...)
		if f := firsts[i].Val(); len(f) == 0 || int64(f[0].Score) > after {
			covered = false
		}
	}
	if len(keys) > 1 {
		slices.Sort(all)
		all = slices.Compact(all)
	}
	return all[:min(n, len(all))], covered, nil
}

// homeTimelineUp is HomeTimeline for an ascending query: the sets a home
// page merges (its G and the F sets it pulls), then its pull model (the F
// sets of uid and its stars, and the archive) for what lies below them.
func (s *Store) homeTimelineUp(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	pulls, _, err := s.touch(ctx, uid, nil)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	keys, err := s.homeKeys(ctx, uid, pulls)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	q.Viewer = uid
	return s.postPageUp(ctx, keys, s.homeTailUp(uid), q, store.InHome, true)
}

// homeTailUp is homeTail oldest first, the tail of an ascending home page:
// the F sets of uid and its stars, and the archive when they do not cover
// the range.
func (s *Store) homeTailUp(uid int64) tail {
	return func(ctx context.Context, before, after int64, n int) ([]int64, error) {
		stars, err := s.Stars(ctx, uid)
		if err != nil {
			return nil, err
		}
		authors := append(stars, uid)
		keys := make([]string, len(authors))
		for i, a := range authors {
			keys[i] = s.keys.UserPosts(a)
		}
		hot, covered, err := s.oldest(ctx, keys, before, after, n)
		if err != nil || covered || s.opt.Archive == nil {
			return hot, err
		}
		cold, err := s.archiveTail(store.ArchiveQuery{Authors: authors, Ascending: true})(ctx, before, after, n)
		if err != nil {
			return nil, err
		}
		return reqpath.MergeOldest(hot, cold, n), nil
	}
}

// postPageGapped is postPage for sets that are not windows of their lists
// (a topic's, a cold post's comments): an ascending page always merges
// the tail.
func (s *Store) postPageGapped(ctx context.Context, keys []string, tail tail, q store.PageQuery, at store.Place) (store.Page[store.Post], error) {
	if q.Ascending {
		return s.postPageUp(ctx, keys, tail, q, at, false)
	}
	return s.postPageFrom(ctx, keys, tail, q, at, nil)
}
