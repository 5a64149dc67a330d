package redisdb

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// maxSeenWrite bounds how stale global:lastseen may be for an active user:
// touch writes it at most this often (or an eighth of InactiveAfter, if less).
const maxSeenWrite = time.Minute

// HomeTimeline is a page of the user's own posts and its stars', newest
// first: its G set merged by id with the F sets of the celebrities it
// follows (and of stars whose fan-out is in flight). A user back from an
// absence gets its G rebuilt first.
//
// The first ids of the page are read from G in the round trip that looks
// for the other sources: when there are none, as for most readers, that
// read is the page's first round.
func (s *Store) HomeTimeline(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	first := firstRound(q)
	keys, ids, err := s.homeSourcesWith(ctx, uid, first)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	q.Viewer = uid
	var pre []int64
	if len(keys) == 1 && ids != nil {
		pre = parseIDs(ids.Val())
	}
	return s.messagePageFrom(ctx, keys, s.homeTail(uid), q, store.InFeed, pre)
}

// HomeSince returns the home-timeline posts of uid newer than after, oldest
// first: the newest max of them when there are more. It is what a live
// client that reconnects needs to miss nothing, fan-outs in flight included.
func (s *Store) HomeSince(ctx context.Context, uid, after int64, max int) ([]store.Post, error) {
	keys, err := s.homeSources(ctx, uid)
	if err != nil {
		return nil, err
	}
	mids, err := s.newest(ctx, keys, 0, after, max)
	if err != nil {
		return nil, err
	}
	posts, err := s.posts(ctx, mids, uid)
	if err != nil {
		return nil, err
	}
	if err := s.sieve(ctx, posts, uid, store.InFeed); err != nil {
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

// LastID is the newest message id of uid's home timeline, 0 when it is empty.
func (s *Store) LastID(ctx context.Context, uid int64) (int64, error) {
	keys, err := s.homeSources(ctx, uid)
	if err != nil {
		return 0, err
	}
	mids, err := s.newest(ctx, keys, 0, 0, 1)
	if err != nil || len(mids) == 0 {
		return 0, err
	}
	return mids[0], nil
}

// homeSources are the sets uid's home timeline merges: its G, and the F sets
// of the authors it follows whose posts are pulled (celebrities) or whose
// latest fan-out is still in flight.
func (s *Store) homeSources(ctx context.Context, uid int64) ([]string, error) {
	keys, _, err := s.homeSourcesWith(ctx, uid, nil)
	return keys, err
}

// homeSourcesWith is homeSources that also reads the ids of G in range by
// (nil: none) in its first round trip; the ids are nil when G may have
// changed since (a rebuild).
func (s *Store) homeSourcesWith(ctx context.Context, uid int64, by *redis.ZRangeBy) ([]string, *redis.StringSliceCmd, error) {
	pulled, ids, err := s.touch(ctx, uid, by)
	if err != nil {
		return nil, nil, err
	}
	keys := []string{s.keys.Home(uid)}
	if len(pulled) == 0 {
		return keys, ids, nil
	}
	slices.Sort(pulled)
	pulled = slices.Compact(pulled)
	follows, err := s.rdb.ZMScore(ctx, s.keys.Stars(uid), pulled...).Result()
	if err != nil {
		return nil, nil, s.wrap("home timeline: pulled authors", err)
	}
	for i, a := range pulled {
		if follows[i] != 0 {
			keys = append(keys, s.keys.UserPosts(parseID(a)))
		}
	}
	s.opt.Metrics.pulls.Observe(float64(len(keys) - 1))
	return keys, ids, nil
}

// touch marks uid as seen now and returns the authors whose posts home
// timelines pull: the celebrities and those with a fan-out in flight (all
// of them: the caller picks those uid follows). If uid was away for longer than
// InactiveAfter, its stars' posts were not pushed to it meanwhile: its G is
// rebuilt by pulling their F sets after its lastpull mark (the pull timeline of the tutorials).
//
// The new mark is written before the rebuild reads F: a post written after
// that read is pushed, since its fan-out finds uid active.
//
// With by, it also reads the ids of G in that range, in the same round trip.
func (s *Store) touch(ctx context.Context, uid int64, by *redis.ZRangeBy) (pulled []string, ids *redis.StringSliceCmd, err error) {
	var seen *redis.FloatCmd
	var celebCmd, pendingCmd *redis.StringSliceCmd
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		seen = pl.ZScore(ctx, s.keys.LastSeen(), id(uid))
		celebCmd = pl.SMembers(ctx, s.keys.Celebrities())
		pendingCmd = pl.HVals(ctx, s.keys.FanOutPending())
		if by != nil {
			ids = pl.ZRevRangeByScore(ctx, s.keys.Home(uid), by)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, s.wrap("touch", err)
	}
	now := s.now()
	away := seen.Err() == nil && now-int64(seen.Val()) > s.opt.InactiveAfter.Milliseconds()
	stale := seen.Err() != nil || now-int64(seen.Val()) > min(maxSeenWrite, s.opt.InactiveAfter/8).Milliseconds()
	if away || stale {
		// At most once every maxSeenWrite per user: the old mark and the last
		// id issued, then the new marks.
		var lastPull, lastID *redis.StringCmd
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			lastPull = pl.HGet(ctx, s.keys.User(uid), fieldLastPull)
			lastID = pl.Get(ctx, s.keys.LastPostID())
			return nil
		})
		if err == nil || errors.Is(err, redis.Nil) {
			_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
				pl.ZAdd(ctx, s.keys.LastSeen(), redis.Z{Score: float64(now), Member: uid})
				pl.HSet(ctx, s.keys.User(uid), fieldLastPull, lastID.Val())
				return nil
			})
		}
		if err != nil {
			return nil, nil, s.wrap("touch", err)
		}
		if away {
			if err := s.rebuild(ctx, uid, lastPull.Val()); err != nil {
				return nil, nil, err
			}
			ids = nil // G has changed
		}
	}
	return append(celebCmd.Val(), pendingCmd.Val()...), ids, nil
}

// rebuild pulls into uid's G the posts of its stars (and its own) newer
// than from, within the hot window: what pushes would have brought.
func (s *Store) rebuild(ctx context.Context, uid int64, from string) error {
	if from == "" {
		from = "0"
	}
	stars, err := s.Stars(ctx, uid)
	if err != nil {
		return err
	}
	stars = append(stars, uid)
	cmds := make([]*redis.ZSliceCmd, len(stars))
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, star := range stars {
			cmds[i] = pl.ZRevRangeByScoreWithScores(ctx, s.keys.UserPosts(star), &redis.ZRangeBy{
				Min: "(" + from, Max: "+inf", Count: int64(s.opt.HotWindow)})
		}
		return nil
	})
	if err != nil {
		return s.wrap("rebuild home timeline", err)
	}
	// A star with a whole window of new posts may have older ones that
	// already left Redis: below the newest such star's oldest post, G is cut,
	// and the home timeline's pull tail (F sets and archive) takes over.
	var zs []redis.Z
	var cut float64
	for _, c := range cmds {
		got := c.Val()
		zs = append(zs, got...)
		if len(got) == s.opt.HotWindow {
			cut = max(cut, got[len(got)-1].Score)
		}
	}
	if err := s.fillHome(ctx, uid, zs, cut); err != nil {
		return s.wrap("rebuild home timeline", err)
	}
	s.opt.Metrics.rebuilds.Inc()
	return nil
}

// fillHome adds posts to uid's home timeline (G) that pushes did not bring.
// With cut > 0, its authors may have posts below cut that left Redis: G
// keeps nothing below cut, so that a page past G goes on in the pull tail
// (F sets and archive), which has them all.
func (s *Store) fillHome(ctx context.Context, uid int64, zs []redis.Z, cut float64) error {
	zs = slices.DeleteFunc(zs, func(z redis.Z) bool { return z.Score < cut })
	if len(zs) == 0 {
		return nil
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if cut > 0 {
			pl.ZRemRangeByScore(ctx, s.keys.Home(uid), "-inf", "("+strconv.FormatFloat(cut, 'f', -1, 64))
		}
		pl.ZAdd(ctx, s.keys.Home(uid), zs...)
		pl.ZRemRangeByRank(ctx, s.keys.Home(uid), 0, int64(-s.opt.HotWindow-1))
		return nil
	})
	return err
}
