package social

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// Follow makes fan follow star (idempotent): the A sets on both sides, the
// star's fan-out mode reconsidered, the star's recent posts brought into the
// fan's home timeline (a celebrity's too: should it be demoted, its older
// posts are not backfilled), a follow event to the star and a stars event to
// the fan's own live connections.
func (s *Social) Follow(ctx context.Context, fan, star int64) error {
	if fan == star {
		return store.ErrFollowSelf
	}
	if _, err := s.core.Username(ctx, star); err != nil {
		return err
	}
	if err := s.mayAct(ctx, fan, star); err != nil {
		return err
	}
	now := s.core.Now()
	var added *redis.IntCmd
	var since *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		since = p.Get(ctx, s.keys.LastPostID())
		added = p.ZAddNX(ctx, s.keys.Stars(fan), redis.Z{Score: float64(now), Member: star})
		// Written even when the fan already followed, to mend a half-done earlier follow.
		p.ZAddNX(ctx, s.keys.Fans(star), redis.Z{Score: float64(now), Member: fan})
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return s.core.Wrap("follow", err)
	}
	// Also on a repeated follow, to mend a change of mode cut short before.
	if err := s.core.Reconsider(ctx, star); err != nil {
		return err
	}
	// The star's posts come also on a repeated follow: the one before may
	// have failed after adding the fan (a master failing over), and its
	// retry, which lands here, must still bring them (the chaos run found a
	// fan following a star whose posts up to the failover never came).
	recent, err := s.rdb.ZRevRangeWithScores(ctx, s.keys.UserPosts(star), 0, int64(s.opt.HotWindow-1)).Result()
	if err != nil {
		return s.core.Wrap("follow: read star's posts", err)
	}
	var cut float64 // a whole window: the star may have older posts
	if len(recent) == s.opt.HotWindow {
		cut = recent[len(recent)-1].Score
	}
	if err := s.core.FillHome(ctx, fan, recent, cut); err != nil {
		return s.core.Wrap("follow: fill home timeline", err)
	}
	if added.Val() == 0 {
		return nil
	}
	announce := s.firstFollowLately(ctx, fan, star)
	u, uerr := s.core.User(ctx, fan, star)
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if uerr == nil && announce {
			s.core.QueuePublish(ctx, p, s.keys.NotifyChannel(star), store.EventFollow, store.FollowData{User: u})
		}
		s.core.QueuePublish(ctx, p, s.keys.NotifyChannel(fan), store.EventStars, store.StarsData{StarID: star, Following: true, Since: parseID(since.Val())})
		return nil
	})
	if err != nil {
		// The follow is stored; live clients pick it up when they reconnect.
		s.opt.Logger.WarnContext(ctx, "publish follow events", "fan", fan, "star", star, "err", err)
	}
	if announce {
		s.notify(ctx, fan, store.NotifyFollow, 0, star)
	}
	return nil
}

// followNoteTTL is how long after a follow was announced, or after an
// unfollow, following the same star again announces nothing: a fan who
// follows and unfollows in a loop tells the star once.
const followNoteTTL = time.Hour

// firstFollowLately tells whether fan's follow of star should be announced
// (a follow event and a notification): not when one was announced, or fan
// unfollowed star, within followNoteTTL. When Redis cannot tell, it is.
func (s *Social) firstFollowLately(ctx context.Context, fan, star int64) bool {
	ok, err := s.rdb.SetNX(ctx, s.keys.FollowNoted(star, fan), 1, followNoteTTL).Result()
	return ok || err != nil
}

// Unfollow ends fan's following of star (or withdraws its request to
// follow), idempotently, and takes the star's posts out of the fan's home
// timeline.
func (s *Social) Unfollow(ctx context.Context, fan, star int64) error {
	if fan == star {
		return store.ErrFollowSelf
	}
	if _, err := s.core.Username(ctx, star); err != nil {
		return err
	}
	var removed *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		removed = p.ZRem(ctx, s.keys.Stars(fan), star)
		p.ZRem(ctx, s.keys.Fans(star), fan)
		p.ZRem(ctx, s.keys.FollowRequests(star), fan) // a request waiting is withdrawn
		return nil
	})
	if err != nil {
		return s.core.Wrap("unfollow", err)
	}
	// Also on a repeated unfollow, to finish one cut short (lists.go).
	if err := s.leaveLists(ctx, fan, star); err != nil {
		return err
	}
	if err := s.core.Reconsider(ctx, star); err != nil {
		return err
	}
	if removed.Val() == 1 {
		// Following again within the hour announces nothing.
		if err := s.rdb.Set(ctx, s.keys.FollowNoted(star, fan), 1, followNoteTTL).Err(); err != nil {
			s.opt.Logger.WarnContext(ctx, "note unfollow", "fan", fan, "star", star, "err", err)
		}
		s.unnotify(ctx, star, fan, store.NotifyFollow, 0)
		// Tell live connections first, so no new post of the star arrives
		// after its old ones were taken away.
		s.core.Publish(ctx, s.keys.NotifyChannel(fan), store.EventStars, store.StarsData{StarID: star, Following: false})
	}
	// The star's posts go also on a repeated unfollow: the one before may
	// have failed after taking the fan away, and its retry lands here.
	mids, err := s.rdb.ZRange(ctx, s.keys.UserPosts(star), 0, -1).Result()
	if err != nil {
		return s.core.Wrap("unfollow: read star's posts", err)
	}
	for len(mids) > 0 {
		n := min(len(mids), 1000)
		batch := make([]any, n)
		for i, m := range mids[:n] {
			batch[i] = m
		}
		if err := s.rdb.ZRem(ctx, s.keys.Home(fan), batch...).Err(); err != nil {
			return s.core.Wrap("unfollow: clean home timeline", err)
		}
		mids = mids[n:]
	}
	return nil
}

// Stars returns the uids user uid follows.
func (s *Social) Stars(ctx context.Context, uid int64) ([]int64, error) {
	ms, err := s.rdb.ZRange(ctx, s.keys.Stars(uid), 0, -1).Result()
	if err != nil {
		return nil, s.core.Wrap("load stars", err)
	}
	out := make([]int64, 0, len(ms))
	for _, m := range ms {
		if n, err := strconv.ParseInt(m, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// Followers returns a page of user uid's fans, newest follow first; empty
// for a viewer who may not see uid's people (collectionHidden).
func (s *Social) Followers(ctx context.Context, uid, viewer int64, q store.PageQuery) (store.Page[store.User], error) {
	return s.collection(ctx, uid, viewer, s.keys.Fans(uid), q)
}

// Following returns a page of the users uid follows, newest follow first;
// empty for a viewer who may not see uid's people (collectionHidden).
func (s *Social) Following(ctx context.Context, uid, viewer int64, q store.PageQuery) (store.Page[store.User], error) {
	return s.collection(ctx, uid, viewer, s.keys.Stars(uid), q)
}

// collection is a page of the set key of uid's people (fans or stars).
func (s *Social) collection(ctx context.Context, uid, viewer int64, key string, q store.PageQuery) (store.Page[store.User], error) {
	if _, err := s.core.Username(ctx, uid); err != nil {
		return store.Page[store.User]{}, err
	}
	hidden, err := s.collectionHidden(ctx, uid, viewer)
	if err != nil || hidden {
		return store.Page[store.User]{Items: []store.User{}}, err
	}
	q.Viewer = viewer
	return s.relationPage(ctx, key, q)
}

// collectionHidden tells whether viewer may not see whom uid follows and
// who follows uid: a protected account's people are seen, as its posts
// are, only by itself and its approved fans (as a protected account's are
// on Twitter); a suspended account's and a blocker's by nobody else. The
// rule is the one of people on a post (store.Lens.HidesPerson). The
// counts stay on the profile, as its posts_count does.
func (s *Social) collectionHidden(ctx context.Context, uid, viewer int64) (bool, error) {
	if uid == viewer {
		return false, nil
	}
	cards, err := s.core.Cards(ctx, []int64{uid})
	if err != nil {
		return false, err
	}
	c := cards[uid]
	a := store.Author{ID: uid, Protected: c.Protected, Suspended: c.Suspended}
	if a.Protected && viewer > 0 {
		n, err := s.rdb.ZScore(ctx, s.keys.Fans(uid), id(viewer)).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return false, s.core.Wrap("check protected account", err)
		}
		a.Approved = err == nil && n != 0
	}
	lens, err := s.lens(ctx, viewer)
	if err != nil {
		return false, err
	}
	return lens.HidesPerson(a), nil
}

// relationPage pages a set of users by time (an A set by follow time, a
// likes set by like time). Its cursor is the last item's
// (score, member), so that follows made while paging shift nothing.
func (s *Social) relationPage(ctx context.Context, key string, q store.PageQuery) (store.Page[store.User], error) {
	limit := q.Size()
	uids, scores, err := s.byTime(ctx, key, q.Cursor, limit+1)
	if err != nil {
		return store.Page[store.User]{}, s.core.Wrap("list relations", err)
	}
	page := store.Page[store.User]{Items: []store.User{}}
	if len(uids) > limit {
		uids, scores = uids[:limit], scores[:limit]
		page.NextCursor = store.NextCursor(store.Cursor{Score: scores[limit-1], Member: uids[limit-1]})
	}
	users, err := s.core.Users(ctx, uids, q.Viewer)
	if err != nil {
		return store.Page[store.User]{}, err
	}
	page.Items = append(page.Items, users...)
	return page, nil
}

// byTime reads the n newest members of a set of ids scored by time (ms),
// with their scores, below the cursor c: the (score, member) of the last
// item of the page before, or zero for the first page.
func (s *Social) byTime(ctx context.Context, key string, c store.Cursor, n int) (ids, scores []int64, err error) {
	max, skipTo := "+inf", ""
	if !c.IsZero() {
		max, skipTo = strconv.FormatInt(c.Score, 10), strconv.FormatInt(c.Member, 10)
	}
	// Ties of one millisecond are ordered by member, descending; skip those
	// already seen. The extra room covers such ties.
	zs, err := s.rdb.ZRevRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
		Max: max, Min: "-inf", Count: int64(n + 64),
	}).Result()
	if err != nil {
		return nil, nil, err
	}
	for _, z := range zs {
		m, _ := z.Member.(string)
		if skipTo != "" && strconv.FormatInt(int64(z.Score), 10) == max && m >= skipTo {
			continue
		}
		v, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			continue
		}
		ids = append(ids, v)
		scores = append(scores, int64(z.Score))
		if len(ids) == n {
			break
		}
	}
	return ids, scores, nil
}
