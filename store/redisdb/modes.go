package redisdb

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// An author's fan-out mode (fieldFanOut) says whether its posts are pushed
// into its fans' home timelines or pulled from its F set when they read:
//
//	""        push: each post queues a push job.
//	modePull  a celebrity: posts are not pushed; readers merge its F set.
//	modeDrain leaving pull: posts are pushed again, readers still merge F,
//	          and a backfill job pushes the posts written while pulled;
//	          once it is done the mode goes back to push.
//
// global:celebrities holds the authors in pull or drain mode, and its
// shards (pulls.go) each a part of it: readers pull the F sets of those they
// follow. Changes keep one order so that no post is
// ever in neither place: an author joins the set before its posts stop being
// pushed, and leaves it only after every unpushed post has been backfilled.
const (
	modePull  = "pull"
	modeDrain = "drain"
)

// modeLockTTL bounds how long a crashed process can hold an author's mode.
const modeLockTTL = 30 * time.Second

// A change of mode that finds the lock taken tries again after
// modeLockWaitMin, then twice as long each time up to modeLockWaitMax: the
// change it waits for takes a round trip or two.
const (
	modeLockWaitMin = time.Millisecond
	modeLockWaitMax = 50 * time.Millisecond
)

// reconsider moves author into or out of pull mode when its fan count has
// crossed CelebrityFans. Follow and unfollow call it, as does the end of a
// backfill (the count may have crossed back meanwhile). The decision is
// taken again under the author's mode lock before anything changes.
//
// After a change it looks again: a follow or unfollow that read the old mode
// while the change was being made decided nothing, and its count must still
// be heard.
func (s *Store) reconsider(ctx context.Context, author int64) error {
	for range 4 {
		change, err := s.modeChange(ctx, author)
		if err != nil || change == nil {
			return err
		}
		err = s.withModeLock(ctx, author, func(ctx context.Context, author int64) error {
			change, err := s.modeChange(ctx, author)
			if err != nil || change == nil {
				return err
			}
			return change(ctx, author)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// modeChange returns the change author's fan count calls for, or nil.
func (s *Store) modeChange(ctx context.Context, author int64) (func(context.Context, int64) error, error) {
	var fans *redis.IntCmd
	var mode *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		fans = pl.ZCard(ctx, s.keys.Fans(author))
		mode = pl.HGet(ctx, s.keys.User(author), fieldFanOut)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.wrap("fan-out mode", err)
	}
	// The ranking of suggestions follows the count, whatever the mode.
	if err := s.rdb.ZAdd(ctx, s.keys.Popular(), redis.Z{Score: float64(fans.Val()), Member: author}).Err(); err != nil {
		return nil, s.wrap("fan-out mode", err)
	}
	celebrity := fans.Val() >= int64(s.opt.CelebrityFans)
	switch m := mode.Val(); {
	case celebrity && m == "":
		return s.promote, nil
	case !celebrity && m == modePull:
		return s.demote, nil
	}
	return nil, nil // already where it belongs, or draining (the backfill reconsiders)
}

// withModeLock runs change while holding the author's mode lock, so that
// changes of one author's mode never interleave. A change takes a round trip
// or two, so a caller that finds the lock taken waits its turn.
func (s *Store) withModeLock(ctx context.Context, author int64, change func(context.Context, int64) error) error {
	wait := backoff{min: modeLockWaitMin, max: modeLockWaitMax}
	for {
		ok, err := s.rdb.SetNX(ctx, s.keys.FanOutLock(author), 1, modeLockTTL).Result()
		if err != nil {
			return s.wrap("fan-out mode lock", err)
		}
		if ok {
			break
		}
		if wait.sleep(ctx); ctx.Err() != nil {
			return s.wrap("fan-out mode lock", ctx.Err())
		}
	}
	defer s.rdb.Del(context.WithoutCancel(ctx), s.keys.FanOutLock(author))
	return change(ctx, author)
}

// promote makes author a celebrity. In this order: readers start pulling
// its F set and the last id issued so far is read, and only then are its
// posts no longer pushed. A post's claim reads the mode before it draws its
// id, so every post that reads "pull" has an id above pull_from, and every
// post at or below it is pushed.
//
// The order takes two round trips, not one pipeline: on a cluster the
// commands of a pipeline go to their nodes side by side, so global:postid's
// node could be read after the user's node had already said "pull".
func (s *Store) promote(ctx context.Context, author int64) error {
	var joined *redis.IntCmd
	var last *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		joined = s.addCelebrity(ctx, pl, author)
		last = pl.Get(ctx, s.keys.LastPostID())
		return nil
	})
	if err == nil || errors.Is(err, redis.Nil) { // no message yet: pull_from 0
		err = joined.Err()
	}
	if err != nil {
		return s.wrap("promote to celebrity", err)
	}
	err = s.rdb.HSet(ctx, s.keys.User(author), fieldFanOut, modePull, fieldPullFrom, parseID(last.Val())).Err()
	return s.wrap("promote to celebrity", err)
}

// demote starts an author's way back to push: its new posts are pushed
// again, and a backfill job pushes those written while it was pulled.
//
// The job is queued only once the mode says drain. A backfill that finds
// its author still pulled takes itself for stale and does nothing, and only
// a backfill ends a drain: a job run before the mode changed would leave the
// author draining for good, merged by every reader and pushed to every fan
// however many it gets. One pipeline would not keep that order on a
// cluster, where the user's hash and the queue are on different nodes,
// written side by side. Should the job not be queued, the author goes back
// to pull (which needs no job), and the next follow or unfollow demotes it
// again.
func (s *Store) demote(ctx context.Context, author int64) error {
	if err := s.rdb.HSet(ctx, s.keys.User(author), fieldFanOut, modeDrain).Err(); err != nil {
		return s.wrap("demote celebrity", err)
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queueJob(ctx, pl, opBackfill, author, 0)
		return nil
	})
	if err != nil {
		back := s.rdb.HSet(context.WithoutCancel(ctx), s.keys.User(author), fieldFanOut, modePull).Err()
		return s.wrap("demote celebrity", errors.Join(err, back))
	}
	return nil
}

// backfill pushes the posts author wrote while pulled (its F set after
// pull_from, within the hot window) into its fans' home timelines, then ends
// the drain: the author leaves global:celebrities and is pushed again.
//
// A post that read "pull" when claimed but wrote F only after this read F is
// not missed: its index pipeline reads the mode again after writing F, sees
// "drain" and pushes itself.
func (f *FanOut) backfill(ctx context.Context, j job, alive func()) error {
	mode, err := f.s.rdb.HMGet(ctx, f.s.keys.User(j.author), fieldFanOut, fieldPullFrom).Result()
	if err != nil {
		return f.s.wrap("backfill", err)
	}
	if m, _ := mode[0].(string); m != modeDrain {
		return nil // promoted again meanwhile, or done by another worker
	}
	from, _ := mode[1].(string)
	if from == "" {
		from = "0"
	}
	ids, err := f.s.rdb.ZRevRangeByScore(ctx, f.s.keys.UserPosts(j.author), &redis.ZRangeBy{
		Min: "(" + from, Max: "+inf", Count: int64(f.s.opt.HotWindow)}).Result()
	if err != nil {
		return f.s.wrap("backfill", err)
	}
	if mids := parseIDs(ids); len(mids) > 0 {
		// Into every fan's, away or not: a fan that comes back pulls only
		// what is newer than its lastpull mark, and these may be older.
		if err := f.pushIDs(ctx, j.author, mids, 0, alive); err != nil {
			return err
		}
	}
	err = f.s.withModeLock(ctx, j.author, func(ctx context.Context, author int64) error {
		mode, err := f.s.rdb.HGet(ctx, f.s.keys.User(author), fieldFanOut).Result()
		if err != nil || mode != modeDrain {
			return err // promoted again meanwhile: it stays pulled
		}
		_, err = f.s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			pl.HSet(ctx, f.s.keys.User(author), fieldFanOut, "")
			f.s.removeCelebrity(ctx, pl, author)
			return nil
		})
		return err
	})
	if err != nil {
		return f.s.wrap("backfill", err)
	}
	return f.s.reconsider(ctx, j.author)
}
