package social

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Pins and bookmarks are two sorted sets of each user's, scored by when
// (schema/keys.go: Pinned, Bookmarks); they hold message ids and nothing else, so a
// post that is archived is still read from the archive, and one that is
// deleted is skipped by every reader and dropped from the set (its author's
// pins are cleaned by Delete at once, so that a deleted pin frees its place).
//
// Whether its author pinned a post travels with the author's card (redisdb/post_read.go),
// which is remembered and forgotten everywhere on each change like an
// avatar: a page learns it without a round trip. Whether the reader saved it
// is asked of the reader's bookmarks in the pipeline that reads the page.

var (
	errNotYours   = store.NewError(store.ErrForbidden, store.CodeNotYours, "you can pin only your own posts")
	errPinComment = store.Invalid(store.CodeBadRequest, "comments cannot be pinned, only posts")
	errPinLimit   = store.NewError(store.ErrConflict, store.CodePinLimit, fmt.Sprintf("at most %d posts can be pinned; unpin one first", store.MaxPins))
)

// Pin pins uid's own post mid to the top of its profile (on) or not,
// idempotently. Another's message is 403 not_yours, a comment 400, and a
// pin past store.MaxPins 409 pin_limit with nothing written. Unpinning a
// message that is gone succeeds (and removes what was left of its pin).
func (s *Social) Pin(ctx context.Context, uid, mid int64, on bool) error {
	m, err := s.core.Message(ctx, mid)
	switch {
	case errors.Is(err, store.ErrNotFound) && !on && mid > 0:
		return s.unpin(ctx, uid, mid)
	case err != nil:
		return err
	case m.Author.ID != uid:
		err := s.hiddenOr(ctx, uid, mid, errNotYours)
		if errors.Is(err, store.ErrNotFound) && !on {
			return s.unpin(ctx, uid, mid) // as for a message that is gone
		}
		return err
	case m.ParentID != nil:
		return errPinComment
	case !on:
		return s.unpin(ctx, uid, mid)
	}
	key := s.keys.Pinned(uid)
	err = s.addCapped(ctx, key, mid, store.MaxPins, errPinLimit)
	if errors.Is(err, errPinLimit) {
		// Pins of posts deleted while being pinned may hold places: free
		// them, and try once more.
		var dropped int
		if dropped, err = s.dropGonePins(ctx, uid); err == nil && dropped > 0 {
			err = s.addCapped(ctx, key, mid, store.MaxPins, errPinLimit)
		} else if err == nil {
			err = errPinLimit
		}
	}
	if err != nil {
		return err
	}
	// A delete that ran meanwhile may have cleaned the pins before this one
	// was added: look once more, as the delete made the message gone first.
	if _, err := s.core.Message(ctx, mid); err != nil {
		s.unpin(ctx, uid, mid)
		return err
	}
	s.authorChanged(ctx, uid)
	return nil
}

// unpin takes mid out of uid's pins.
func (s *Social) unpin(ctx context.Context, uid, mid int64) error {
	n, err := s.rdb.ZRem(ctx, s.keys.Pinned(uid), mid).Result()
	if err != nil {
		return s.core.Wrap("unpin", err)
	}
	if n > 0 {
		s.authorChanged(ctx, uid)
	}
	return nil
}

// dropGonePins takes the pins of messages that are gone out of uid's pins,
// and tells how many there were.
func (s *Social) dropGonePins(ctx context.Context, uid int64) (int, error) {
	mids, err := s.rdb.ZRange(ctx, s.keys.Pinned(uid), 0, -1).Result()
	if err != nil {
		return 0, s.core.Wrap("pin: read pins", err)
	}
	ms, err := s.core.LoadPosts(ctx, schema.ParseIDs(mids), 0)
	if err != nil {
		return 0, err
	}
	var gone []any
	for i, m := range ms {
		if m == nil {
			gone = append(gone, mids[i])
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	if err := s.rdb.ZRem(ctx, s.keys.Pinned(uid), gone...).Err(); err != nil {
		return 0, s.core.Wrap("pin: drop gone pins", err)
	}
	return len(gone), nil
}

// Pinned are uid's pinned posts as viewer sees them (none for whom may not
// see uid's posts), newest pin first.
func (s *Social) Pinned(ctx context.Context, uid, viewer int64) ([]store.Post, error) {
	if _, err := s.core.Username(ctx, uid); err != nil {
		return nil, err
	}
	key := s.keys.Pinned(uid)
	mids, err := s.rdb.ZRevRange(ctx, key, 0, -1).Result()
	if err != nil {
		return nil, s.core.Wrap("pinned posts", err)
	}
	return s.kept(ctx, key, schema.ParseIDs(mids), viewer)
}

// Bookmark saves message mid (a post or a comment) for uid (on) or not,
// idempotently: saving again keeps the first time. Only what uid may open
// can be saved (404 otherwise); letting go needs nothing but the id.
func (s *Social) Bookmark(ctx context.Context, uid, mid int64, on bool) error {
	if mid <= 0 {
		return store.ErrPostNotFound
	}
	key := s.keys.Bookmarks(uid)
	if !on {
		return s.core.Wrap("unbookmark", s.rdb.ZRem(ctx, key, mid).Err())
	}
	if _, err := s.core.Post(ctx, mid, uid); err != nil {
		return err
	}
	// A delete that runs meanwhile leaves an id readers skip and drop.
	return s.core.Wrap("bookmark", s.rdb.ZAddNX(ctx, key, redis.Z{Score: float64(s.core.Now()), Member: mid}).Err())
}

// Bookmarks is a page of uid's bookmarked messages as it may see them now,
// newest bookmark first, paged by bookmark time (see keptPage).
func (s *Social) Bookmarks(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	return s.keptPage(ctx, "bookmarks", s.keys.Bookmarks(uid), uid, q, nil)
}

// keptTail reads the part of a kept list that is not in its Redis set:
// below the cursor c, newest first, at most n ids with their scores.
type keptTail func(ctx context.Context, c store.Cursor, n int) (mids, scores []int64, err error)

// keptPage is a page of the messages of uid's set key, scored by when uid
// kept them, as uid may see them now, newest first, and below them those
// of tail (nil: none) with the same cursor. Those that are gone
// are skipped and dropped; those it may no longer see (a block, a
// protected author it no longer follows) skipped and kept, should that
// change again. what names the list in errors.
func (s *Social) keptPage(ctx context.Context, what, key string, uid int64, q store.PageQuery, tail keptTail) (store.Page[store.Post], error) {
	limit := q.Size()
	page := store.Page[store.Post]{Items: make([]store.Post, 0, limit)}
	c, more := q.Cursor, true
	// A few rounds at most: only skipped ones make a round come back short.
	for round := 0; round < 5 && more && len(page.Items) < limit; round++ {
		want := limit - len(page.Items)
		mids, scores, err := s.byTime(ctx, key, c, want+1)
		if err != nil {
			return store.Page[store.Post]{}, s.core.Wrap(what, err)
		}
		if tail != nil {
			tm, ts, err := tail(ctx, c, want+1)
			if err != nil {
				return store.Page[store.Post]{}, err
			}
			mids, scores = mergeByTime(mids, scores, tm, ts)
		}
		if more = len(mids) > want; more {
			mids, scores = mids[:want], scores[:want]
		}
		if len(mids) == 0 {
			break
		}
		items, err := s.kept(ctx, key, mids, uid)
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		page.Items = append(page.Items, items...)
		c = store.Cursor{Score: scores[len(mids)-1], Member: mids[len(mids)-1]}
	}
	if more {
		page.NextCursor = store.NextCursor(c)
	}
	return page, nil
}

// kept are the messages mids of the set key (pins or bookmarks) as viewer
// may open them, in order: as a timeline hydrates them, and for comments
// as Post would give them (see openThreads). Those gone are dropped from
// key.
func (s *Social) kept(ctx context.Context, key string, mids []int64, viewer int64) ([]store.Post, error) {
	items, err := s.core.Hydrate(ctx, []string{key}, mids, viewer, store.InView, make([]store.Post, 0, len(mids)))
	if err != nil {
		return nil, err
	}
	items, gone, err := s.openThreads(ctx, items, viewer)
	if err != nil {
		return nil, err
	}
	if len(gone) > 0 {
		if err := s.rdb.ZRem(ctx, key, gone...).Err(); err != nil {
			s.opt.Logger.WarnContext(ctx, "drop gone messages", "key", key, "err", err)
		}
	}
	return items, nil
}

// mergeByTime merges two lists of ids with their scores, each newest first
// (by score, then by id), into one without repeated ids.
func mergeByTime(mids, scores, more, moreScores []int64) ([]int64, []int64) {
	type item struct{ mid, score int64 }
	all := make([]item, 0, len(mids)+len(more))
	for i := range mids {
		all = append(all, item{mids[i], scores[i]})
	}
	for i := range more {
		all = append(all, item{more[i], moreScores[i]})
	}
	slices.SortStableFunc(all, func(a, b item) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.mid, a.mid)
	})
	all = slices.CompactFunc(all, func(a, b item) bool { return a.mid == b.mid })
	mids, scores = make([]int64, len(all)), make([]int64, len(all))
	for i, it := range all {
		mids[i], scores[i] = it.mid, it.score
	}
	return mids, scores
}
