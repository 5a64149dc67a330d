package redisdb

import (
	"context"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// UserPosts is a page of the posts user uid wrote, newest first.
func (s *Store) UserPosts(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	if _, err := s.username(ctx, uid); err != nil {
		return store.Page[store.Post]{}, err
	}
	tail := s.archiveTail(store.ArchiveQuery{Authors: []int64{uid}, Ascending: q.Ascending})
	return s.postPage(ctx, []string{s.keys.UserPosts(uid)}, tail, q, store.InView)
}

// UserComments is a page of the comments uid wrote, newest first, as the
// reader may see them: the newest from uid's R set, the older ones from the
// archive.
func (s *Store) UserComments(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	if _, err := s.username(ctx, uid); err != nil {
		return store.Page[store.Post]{}, err
	}
	tail := s.archiveTail(store.ArchiveQuery{CommentsBy: uid, Ascending: q.Ascending})
	return s.postPage(ctx, []string{s.keys.UserComments(uid)}, tail, q, store.InView)
}

// PublicTimeline is a page of everyone's newest posts, newest first.
func (s *Store) PublicTimeline(ctx context.Context, q store.PageQuery) (store.Page[store.Post], error) {
	return s.postPage(ctx, []string{s.keys.PublicTimeline()}, s.archiveTail(store.ArchiveQuery{Public: true, Ascending: q.Ascending}), q, store.InPublic)
}

// Comments is a page of the comments on message mid, newest first, when
// the reader may see mid. While mid is hot, its C set holds all of them;
// once it has left Redis, the archived ones are only in the archive.
func (s *Store) Comments(ctx context.Context, mid int64, q store.PageQuery) (store.Page[store.Post], error) {
	if _, err := s.Post(ctx, mid, q.Viewer); err != nil {
		return store.Page[store.Post]{}, err
	}
	_, hot, err := s.lookup(ctx, mid)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	var tail tail
	if !hot {
		tail = s.archiveTail(store.ArchiveQuery{Parent: mid, Ascending: q.Ascending})
	}
	return s.postPageGapped(ctx, []string{s.keys.Comments(mid)}, tail, q, store.InView)
}

// postPage pages the union of sorted sets of message ids (score = id),
// newest first, hydrating the ids into Posts: one key for most lists, a home
// timeline and the F sets of the celebrities it pulls for the home page.
// When the sets run short, the tail (if any) goes on below them: the
// archive, or the pull model behind a home timeline. Both answer by id, so
// one cursor pages through both with no gap and no duplicate at the seam.
// Ids whose message is gone are skipped, and dropped from the sets so the
// next reader does not meet them again; those the reader may not see at
// place at are skipped. An ascending query (q.Ascending, with a tail that
// answers oldest first) is postPageUp's, for sets that are windows of
// their lists (else postPageGapped).
func (s *Store) postPage(ctx context.Context, keys []string, tail tail, q store.PageQuery, at store.Place) (store.Page[store.Post], error) {
	if q.Ascending {
		return s.postPageUp(ctx, keys, tail, q, at, true)
	}
	return s.postPageFrom(ctx, keys, tail, q, at, nil)
}

// firstRound is the range of the first round of postPage for q.
func firstRound(q store.PageQuery) *redis.ZRangeBy {
	return reqpath.RangeBy(q.Cursor.Score, max(q.After, q.Cursor.After), q.Size()+1)
}

// postPageFrom is postPage whose first round's ids (the range of
// firstRound in keys[0], the only key) were read already, unless first is nil.
func (s *Store) postPageFrom(ctx context.Context, keys []string, tail tail, q store.PageQuery, at store.Place, first []int64) (store.Page[store.Post], error) {
	limit := q.Size()
	before, after := q.Cursor.Score, max(q.After, q.Cursor.After)
	page := store.Page[store.Post]{Items: make([]store.Post, 0, limit)}
	// A few rounds at most: each one asks for what is still missing, and only
	// dangling ids make a round come back short.
	more := true
	for round := 0; round < 5 && more && len(page.Items) < limit; round++ {
		want := limit - len(page.Items)
		mids := first
		var err error
		if round > 0 || first == nil {
			if mids, err = s.newest(ctx, keys, before, after, want+1); err != nil {
				return store.Page[store.Post]{}, err
			}
		}
		if len(mids) <= want && tail != nil {
			// The sets hold all they have below before; the tail may hold
			// more, and may hold some of the same (archived but still hot).
			older, err := tail(ctx, before, after, want+1)
			if err != nil {
				return store.Page[store.Post]{}, err
			}
			mids = reqpath.MergeNewest(mids, older, want+1)
		}
		if more = len(mids) > want; more {
			mids = mids[:want]
		}
		if page.Items, err = s.hydrate(ctx, keys, mids, q.Viewer, at, page.Items); err != nil {
			return store.Page[store.Post]{}, err
		}
		if len(mids) > 0 {
			before = mids[len(mids)-1]
		}
	}
	if more {
		page.NextCursor = store.NextCursor(store.Cursor{Score: before, After: after})
	}
	return page, nil
}

// hydrate appends to items the posts mids as viewer sees them at place at.
// The ids whose message is gone are skipped, and dropped from keys, the
// sets they were read from, so that the next reader does not meet them
// again; those viewer may not see are skipped.
func (s *Store) hydrate(ctx context.Context, keys []string, mids []int64, viewer int64, at store.Place, items []store.Post) ([]store.Post, error) {
	posts, err := s.posts(ctx, mids, viewer)
	if err != nil {
		return nil, err
	}
	var gone []int64
	for i, p := range posts {
		if p == nil {
			gone = append(gone, mids[i])
		}
	}
	if err := s.sieve(ctx, posts, viewer, at); err != nil {
		return nil, err
	}
	if at == store.InPublic { // a topic's page lists comments (post_comment_tags.go)
		if err := s.visibleThreads(ctx, posts, viewer); err != nil {
			return nil, err
		}
	}
	for _, p := range posts {
		if p != nil {
			items = append(items, *p)
		}
	}
	if len(gone) > 0 && len(keys) > 0 {
		s.dropGone(ctx, keys, gone)
	}
	return items, nil
}

// dropGone takes out of keys the ids of mids a read found gone. On a
// cluster a post's index entries are written while its hash still carries
// its unfinished mark, which hides it from readers until its finish, a
// round trip later: a read in between finds it hidden, not gone, and taking
// it out of its author's F set, a home timeline or the public timeline
// would lose it there once it shows (the chaos run found acknowledged posts
// missing from F, posts_count one above it, after a read fell in that
// moment). So there the hashes are read again, and only the ids whose hash
// is not in Redis (neither there nor in the archive, as the read found) or
// is a tombstone go; the others stay for a later reader.
func (s *Store) dropGone(ctx context.Context, keys []string, mids []int64) {
	if s.keys.Cluster() {
		kinds := make([]*redis.SliceCmd, len(mids))
		cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for i, mid := range mids {
				kinds[i] = pl.HMGet(ctx, s.keys.Post(mid), "kind", schema.FieldDeleted)
			}
			return nil
		})
		if err := reqpath.PipeErr(cmds, err); err != nil {
			return // left for a later reader
		}
		var gone []int64
		for i, c := range kinds {
			if v := c.Val(); len(v) == 2 && (v[0] == nil || v[1] == "1") {
				gone = append(gone, mids[i])
			}
		}
		mids = gone
	}
	if len(mids) == 0 {
		return
	}
	s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, key := range keys {
			pl.ZRem(ctx, key, anyIDs(mids)...)
		}
		return nil
	})
}

// newest returns the n newest ids of the union of keys below before (0: no
// bound) and above after, newest first, in one round trip.
func (s *Store) newest(ctx context.Context, keys []string, before, after int64, n int) ([]int64, error) {
	ids, err := s.newestEach(ctx, keys, reqpath.RangeBy(before, after, n))
	if err != nil {
		return nil, err
	}
	return ids[0], nil
}

// newestEach is newest for each of ranges (as rangeBy makes them), all in
// one round trip.
func (s *Store) newestEach(ctx context.Context, keys []string, ranges ...*redis.ZRangeBy) ([][]int64, error) {
	cmds := make([][]*redis.StringSliceCmd, len(ranges))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for r, by := range ranges {
			for _, key := range keys {
				cmds[r] = append(cmds[r], pl.ZRevRangeByScore(ctx, key, by))
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.Wrap("read timeline", err)
	}
	out := make([][]int64, len(ranges))
	for r, by := range ranges {
		if len(keys) == 1 {
			out[r] = schema.ParseIDs(cmds[r][0].Val())
			continue
		}
		var all []int64
		for _, c := range cmds[r] {
			all = append(all, schema.ParseIDs(c.Val())...)
		}
		slices.Sort(all)
		all = slices.Compact(all)
		slices.Reverse(all)
		out[r] = all[:min(int(by.Count), len(all))]
	}
	return out, nil
}
