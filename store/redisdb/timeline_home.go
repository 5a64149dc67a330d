package redisdb

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
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
// read is the page's first round. On a cluster the lookup's second part
// goes with the loading of those ids' posts.
func (s *Store) HomeTimeline(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	if q.Ascending {
		return s.homeTimelineUp(ctx, uid, q)
	}
	pulls, got, err := s.touch(ctx, uid, []*redis.ZRangeBy{firstRound(q)})
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	q.Viewer = uid
	home, tail := []string{s.keys.Home(uid)}, s.homeTail(uid)
	if got != nil && pulls.later() {
		page, err := s.postPageFrom(withRider(ctx, pulls.queueShards), home, tail, q, store.InHome, schema.ParseIDs(got[0].Val()))
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		keys, err := s.homeKeys(ctx, uid, pulls)
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		if len(keys) == 1 && !pulls.settled {
			return page, nil
		}
		return s.postPageFrom(ctx, keys, tail, q, store.InHome, nil) // G's page does not stand
	}
	keys, err := s.homeKeys(ctx, uid, pulls)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	var pre []int64
	if len(keys) == 1 && got != nil && !pulls.settled {
		pre = schema.ParseIDs(got[0].Val())
	}
	return s.postPageFrom(ctx, keys, tail, q, store.InHome, pre)
}

// HomeSince returns the home-timeline posts of uid newer than after, oldest
// first, but those of skip (which are neither loaded nor counted): the
// newest max of them when there are more. It is what a live client that
// reconnects needs to miss nothing, fan-outs in flight included.
func (s *Store) HomeSince(ctx context.Context, uid, after int64, max int, skip []int64) ([]store.Post, error) {
	posts, _, err := s.HomeSinceLast(ctx, uid, after, max, skip)
	return posts, err
}

// HomeSinceLast is HomeSince (no posts when max is 0) and the newest
// message id of uid's home timeline (0 when it is empty), read together:
// what a live connection reads as it opens. Both are read from G in the
// round trip that looks for the other sources, so that a reader with none
// waits on one round trip for them (then one more to load the posts), and
// one with pulled stars one more. On a cluster the lookup's second part
// goes with the loading of the posts, or alone when there are none to load.
// Posts the reader's word filters hide are left out.
func (s *Store) HomeSinceLast(ctx context.Context, uid, after int64, max int, skip []int64) ([]store.Post, int64, error) {
	ranges := []*redis.ZRangeBy{reqpath.RangeBy(0, 0, 1)}
	if max > 0 {
		ranges = append(ranges, reqpath.RangeBy(0, after, max+len(skip)))
	}
	pulls, got, err := s.touch(ctx, uid, ranges)
	if err != nil {
		return nil, 0, err
	}
	var ids [][]int64
	for _, c := range got {
		ids = append(ids, schema.ParseIDs(c.Val()))
	}
	var posts []store.Post // loaded from G's ids, nil until then
	if got != nil && max > 0 && pulls.later() {
		if posts, err = s.homePosts(withRider(ctx, pulls.queueShards), uid, unskipped(ids[1], skip, max)); err != nil {
			return nil, 0, err
		}
	}
	keys, err := s.homeKeys(ctx, uid, pulls)
	if err != nil {
		return nil, 0, err
	}
	if got == nil || len(keys) > 1 || pulls.settled {
		if ids, err = s.newestEach(ctx, keys, ranges...); err != nil {
			return nil, 0, err
		}
		posts = nil
	}
	var last int64
	if len(ids[0]) > 0 {
		last = ids[0][0]
	}
	if max > 0 && posts == nil {
		posts, err = s.homePosts(ctx, uid, unskipped(ids[1], skip, max))
	}
	// What the reader's word filters hide is folded on its home pages
	// (store.Post.Filtered) but never replayed: the live feed leaves it out
	// as it leaves out a filtered post live, on every kind of stream.
	posts = slices.DeleteFunc(posts, func(p store.Post) bool { return p.Filtered })
	return posts, last, err
}

// unskipped is the first max of mids (newest first) that are not in skip.
func unskipped(mids, skip []int64, max int) []int64 {
	if len(skip) == 0 {
		return mids[:min(max, len(mids))]
	}
	out := make([]int64, 0, min(max, len(mids)))
	for _, mid := range mids {
		if len(out) == max {
			break
		}
		if !slices.Contains(skip, mid) {
			out = append(out, mid)
		}
	}
	return out
}

// homePosts loads the posts mids (newest first) as uid sees them in its
// home timeline, oldest first, leaving out those gone or hidden.
func (s *Store) homePosts(ctx context.Context, uid int64, mids []int64) ([]store.Post, error) {
	posts, err := s.posts(ctx, mids, uid)
	if err != nil {
		return nil, err
	}
	if err := s.sieve(ctx, posts, uid, store.InHome); err != nil {
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

// homeKeys returns the sets uid's home timeline merges: its G, the F
// sets of the stars it follows whose posts are pulled (celebrities) or
// whose fan-out is in flight, as pulls finds them (timeline_pulls.go), and
// the T sets of the topics it follows (tags_follow.go). The merge keeps
// each id once, and the posts go through the reader's lens at InHome like
// the rest of home: blocks, mutes, word filters and protected authors it
// does not follow.
func (s *Store) homeKeys(ctx context.Context, uid int64, pulls *pullLookup) ([]string, error) {
	authors, err := pulls.authors(ctx)
	if err != nil {
		return nil, err
	}
	keys := []string{s.keys.Home(uid)}
	for _, a := range authors {
		keys = append(keys, s.keys.UserPosts(a))
	}
	for _, tag := range pulls.tags.Val() { // followed topics (tags_follow.go)
		keys = append(keys, s.keys.TagPosts(tag))
	}
	s.opt.Metrics.pulls.Observe(float64(len(authors)))
	if pulls.settled {
		s.opt.Metrics.rereads.Inc()
	}
	return keys, nil
}

// touch marks uid as seen now and looks up, in the same round trip, which
// of its stars' posts it pulls (timeline_pulls.go). If uid was away for longer than
// InactiveAfter, its stars' posts were not pushed to it meanwhile: its G is
// rebuilt by pulling their F sets after its lastpull mark (the pull timeline of the tutorials).
//
// The new mark is written before the rebuild reads F: a post written after
// that read is pushed, since its fan-out finds uid active.
//
// It also reads the ids of G in each of ranges, in the same round trip.
// While the mark this process last read or wrote for uid is fresh, it is
// not read again (store_caches.go, seenMarks).
func (s *Store) touch(ctx context.Context, uid int64, ranges []*redis.ZRangeBy) (pulls *pullLookup, got []*redis.StringSliceCmd, err error) {
	staleAfter := min(maxSeenWrite, s.opt.InactiveAfter/8).Milliseconds()
	// A mark this process read or wrote lately is neither away nor stale:
	// the read asks Redis only for the page and its pulled stars.
	known := s.caches.seen.fresh(uid, s.Now()-staleAfter)
	var seen *redis.FloatCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if !known {
			seen = pl.ZScore(ctx, s.keys.LastSeen(), id(uid))
		}
		pulls = s.queuePullLookup(ctx, pl, uid)
		for _, by := range ranges {
			got = append(got, pl.ZRevRangeByScore(ctx, s.keys.Home(uid), by))
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, nil, s.Wrap("touch", err)
	}
	if known {
		return pulls, got, nil
	}
	now := s.Now()
	away := seen.Err() == nil && now-int64(seen.Val()) > s.opt.InactiveAfter.Milliseconds()
	stale := seen.Err() != nil || now-int64(seen.Val()) > staleAfter
	if !away && !stale {
		s.caches.seen.put(uid, int64(seen.Val()))
	}
	if away || stale {
		// At most once every maxSeenWrite per user: the old mark and the last
		// id issued, then the new marks.
		var lastPull, lastID *redis.StringCmd
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			lastPull = pl.HGet(ctx, s.keys.User(uid), schema.FieldLastPull)
			lastID = pl.Get(ctx, s.keys.LastPostID())
			return nil
		})
		if err == nil || errors.Is(err, redis.Nil) {
			_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
				pl.ZAdd(ctx, s.keys.LastSeen(), redis.Z{Score: float64(now), Member: uid})
				pl.HSet(ctx, s.keys.User(uid), schema.FieldLastPull, lastID.Val())
				return nil
			})
		}
		if err != nil {
			return nil, nil, s.Wrap("touch", err)
		}
		if away {
			if err := s.rebuild(ctx, uid, lastPull.Val()); err != nil {
				return nil, nil, err
			}
			got = nil // G has changed
		}
		s.caches.seen.put(uid, now) // once G is whole again
	}
	return pulls, got, nil
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
		return s.Wrap("rebuild home timeline", err)
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
		return s.Wrap("rebuild home timeline", err)
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

// QueueHomeAdd adds posts to a home timeline and trims it to the hot window.
func (s *Store) QueueHomeAdd(ctx context.Context, pl redis.Pipeliner, uid int64, zs ...redis.Z) {
	pl.ZAdd(ctx, s.keys.Home(uid), zs...)
	pl.ZRemRangeByRank(ctx, s.keys.Home(uid), 0, int64(-s.opt.HotWindow-1))
}
