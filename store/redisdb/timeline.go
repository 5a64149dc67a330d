package redisdb

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// HomeTimeline is a page of the user's own posts and its stars', newest first.
func (s *Store) HomeTimeline(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	return s.messagePage(ctx, s.keys.home(uid), q)
}

// UserPosts is a page of the posts user uid wrote, newest first.
func (s *Store) UserPosts(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	if _, err := s.username(ctx, uid); err != nil {
		return store.Page[store.Post]{}, err
	}
	return s.messagePage(ctx, s.keys.userPosts(uid), q)
}

// PublicTimeline is a page of everyone's newest posts, newest first.
func (s *Store) PublicTimeline(ctx context.Context, q store.PageQuery) (store.Page[store.Post], error) {
	return s.messagePage(ctx, s.keys.publicTimeline(), q)
}

// Comments is a page of the comments on message mid, newest first.
func (s *Store) Comments(ctx context.Context, mid int64, q store.PageQuery) (store.Page[store.Post], error) {
	if _, err := s.Post(ctx, mid); err != nil {
		return store.Page[store.Post]{}, err
	}
	return s.messagePage(ctx, s.keys.comments(mid), q)
}

// messagePage pages a sorted set of message ids (score = id), newest first,
// hydrating the ids into Posts. Ids whose message is gone are skipped, and
// dropped from the set so the next reader does not meet them again.
func (s *Store) messagePage(ctx context.Context, key string, q store.PageQuery) (store.Page[store.Post], error) {
	limit := q.Size()
	before, after := q.Cursor.Score, max(q.After, q.Cursor.After)
	page := store.Page[store.Post]{Items: make([]store.Post, 0, limit)}
	// A few rounds at most: each one asks for what is still missing, and only
	// dangling ids make a round come back short.
	more := true
	for round := 0; round < 5 && more && len(page.Items) < limit; round++ {
		maxScore := "+inf"
		if before > 0 {
			maxScore = "(" + strconv.FormatInt(before, 10)
		}
		want := limit - len(page.Items) + 1
		ids, err := s.rdb.ZRevRangeByScore(ctx, key, &redis.ZRangeBy{
			Max: maxScore, Min: "(" + strconv.FormatInt(after, 10), Count: int64(want),
		}).Result()
		if err != nil {
			return store.Page[store.Post]{}, s.wrap("read timeline", err)
		}
		mids := parseIDs(ids)
		if more = len(mids) == want; more {
			mids = mids[:want-1]
		}
		posts, err := s.posts(ctx, mids)
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		var gone []any
		for i, p := range posts {
			if p == nil {
				gone = append(gone, mids[i])
				continue
			}
			page.Items = append(page.Items, *p)
		}
		if len(gone) > 0 {
			s.rdb.ZRem(ctx, key, gone...)
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

func parseIDs(ss []string) []int64 {
	out := make([]int64, 0, len(ss))
	for _, s := range ss {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// HomeSince returns the home-timeline posts of uid newer than after, oldest
// first: the newest max of them when there are more. It is what a live client
// that reconnects needs to miss nothing.
func (s *Store) HomeSince(ctx context.Context, uid, after int64, max int) ([]store.Post, error) {
	ids, err := s.rdb.ZRevRangeByScore(ctx, s.keys.home(uid), &redis.ZRangeBy{
		Max: "+inf", Min: "(" + strconv.FormatInt(after, 10), Count: int64(max),
	}).Result()
	if err != nil {
		return nil, s.wrap("home since", err)
	}
	mids := parseIDs(ids)
	posts, err := s.posts(ctx, mids)
	if err != nil {
		return nil, err
	}
	out := make([]store.Post, 0, len(posts))
	for i := len(posts) - 1; i >= 0; i-- {
		if posts[i] != nil {
			out = append(out, *posts[i])
		}
	}
	return out, nil
}

// LastID is the newest message id in uid's home timeline, 0 when it is empty.
func (s *Store) LastID(ctx context.Context, uid int64) (int64, error) {
	ids, err := s.rdb.ZRevRange(ctx, s.keys.home(uid), 0, 0).Result()
	if err != nil {
		return 0, s.wrap("last id", err)
	}
	if mids := parseIDs(ids); len(mids) > 0 {
		return mids[0], nil
	}
	return 0, nil
}
