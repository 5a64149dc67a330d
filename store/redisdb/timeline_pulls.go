package redisdb

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// A home read merges with its G set the F sets of the stars its reader
// follows that are pulled: celebrities (pull or drain mode) and authors
// with pushes in flight (timeline_pending.go). It asks about its own stars only, so
// that its cost does not grow with the number of celebrities or with the
// fan-out's backlog, and no key is read by every reader: on a single Redis
// it intersects the reader's A:loverID with global:celebrities and with
// fanout:pushing, each O(the smaller set), in its first round trip; on a
// cluster, where those keys are on other slots, it reads the stars in its
// first round trip and looks them up in their shards (Keys.PullShard), one
// SMISMEMBER and one ZMSCORE per shard they fall in, in the pipeline that
// loads its page's posts: the page, read from G alone, stands unless a star
// is pulled, when the read starts again with their F sets.
//
// On a cluster the read's G and its lookup are read in that order, in two
// round trips, not at one moment: a star whose last push in flight is done
// (or whose drain ends) in between would be in neither, the post that
// settled it pushed into G only after G was read. So each shard's
// fanout:settled keeps when each author stopped being pulled, for
// settledKeep, and a read whose star stopped since Options.ClockSkew
// before the read began reads G again (settled): the post is in G by then.
// That costs such a read a round trip or two more, not the star's F set.
// On a single Redis the lookup comes before G in one pipeline, which Redis
// runs in order.

// settledKeep is how long a shard's fanout:settled keeps an author: 30 s,
// or 4 ClockSkews if longer. A read whose lookup is answered later than
// settledKeep-2*ClockSkew after it began cannot tell and fails
// (unavailable).
func (s *Store) settledKeep() time.Duration { return max(30*time.Second, 4*s.opt.ClockSkew) }

// errLookupLate is a home read whose lookup came too late to be sure of it.
var errLookupLate = store.NewError(store.ErrUnavailable, store.CodeUnavailable,
	"the home timeline read took too long to be complete; try again")

// pullLookup is the part of a home read's first round trip that finds its
// reader's pulled stars.
type pullLookup struct {
	s     *Store
	began time.Time // before the read's first round trip was sent
	// On a single Redis, the stars in global:celebrities and in
	// fanout:pushing; on a cluster, all the stars.
	celebs, pushing, stars *redis.StringSliceCmd
	// tags are the keys of the topics the reader follows (tags_follow.go),
	// whose posts its home timeline merges too.
	tags   *redis.StringSliceCmd
	shards []shardLookup // on a cluster, once sent
	// settled: on a cluster, a star stopped being pulled since the read
	// began (or ClockSkew before), and the read's G must be read again.
	settled bool
}

// shardLookup asks one shard about the stars in it.
type shardLookup struct {
	members []string
	celeb   *redis.BoolSliceCmd
	pushing *redis.FloatSliceCmd
	settled *redis.FloatSliceCmd
}

// queuePullLookup adds to pl, a home read's first round trip, what finds
// uid's pulled stars.
func (s *Store) queuePullLookup(ctx context.Context, pl redis.Pipeliner, uid int64) *pullLookup {
	l := &pullLookup{s: s, began: time.Now()}
	l.tags = pl.ZRange(ctx, s.keys.FollowedTags(uid), 0, -1)
	stars := s.keys.Stars(uid)
	if s.keys.PullShards() > 1 {
		l.stars = pl.ZRange(ctx, stars, 0, -1)
		return l
	}
	l.celebs = pl.ZInter(ctx, &redis.ZStore{Keys: []string{stars, s.keys.CelebritiesShard(0)}})
	l.pushing = pl.ZInter(ctx, &redis.ZStore{Keys: []string{stars, s.keys.FanOutPushingShard(0)}})
	return l
}

// later tells whether the lookup needs commands after the first round trip:
// on a cluster, for a reader who follows anyone. The read sends them with
// its next pipeline (withRider) or, failing that, authors does.
func (l *pullLookup) later() bool { return l.stars != nil && len(l.stars.Val()) > 0 }

// queueShards adds to pl the lookups of the stars in their shards (on a
// cluster), once: one SMISMEMBER and one ZMSCORE per shard they fall in.
func (l *pullLookup) queueShards(ctx context.Context, pl redis.Pipeliner) {
	if !l.later() || l.shards != nil {
		return
	}
	byShard := make(map[int][]string)
	for _, star := range l.stars.Val() {
		n := l.s.keys.PullShard(parseID(star))
		byShard[n] = append(byShard[n], star)
	}
	for n, members := range byShard {
		asAny := make([]any, len(members))
		for i, m := range members {
			asAny[i] = m
		}
		l.shards = append(l.shards, shardLookup{members: members,
			celeb:   pl.SMIsMember(ctx, l.s.keys.CelebritiesShard(n), asAny...),
			pushing: pl.ZMScore(ctx, l.s.keys.FanOutPushingShard(n), members...),
			settled: pl.ZMScore(ctx, l.s.keys.FanOutSettledShard(n), members...)})
	}
}

// authors returns the pulled stars, once the first round trip has run:
// sorted, each once. On a cluster it sends the shards' lookups in a round
// trip of their own unless they went already.
func (l *pullLookup) authors(ctx context.Context) ([]int64, error) {
	got, err := l.found(ctx)
	if err != nil {
		return nil, l.s.Wrap("home timeline: pulled stars", err)
	}
	ids := schema.ParseIDs(got)
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// found is the pulled stars as the lookup's replies name them.
func (l *pullLookup) found(ctx context.Context) ([]string, error) {
	if l.stars == nil {
		return append(l.celebs.Val(), l.pushing.Val()...), nil
	}
	if l.later() && l.shards == nil {
		if _, err := l.s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error { l.queueShards(ctx, pl); return nil }); err != nil {
			return nil, err
		}
	}
	skew := l.s.opt.ClockSkew
	if time.Since(l.began) > l.s.settledKeep()-2*skew {
		return nil, errLookupLate // what it needs may be trimmed already
	}
	since := float64(l.began.Add(-skew).UnixMilli())
	var out []string
	for _, sh := range l.shards {
		if err := errors.Join(sh.celeb.Err(), sh.pushing.Err(), sh.settled.Err()); err != nil {
			return nil, err
		}
		celeb, pushing, settled := sh.celeb.Val(), sh.pushing.Val(), sh.settled.Val()
		for i, m := range sh.members {
			switch {
			case (i < len(celeb) && celeb[i]) || (i < len(pushing) && pushing[i] > 0):
				out = append(out, m)
			case i < len(settled) && settled[i] >= since:
				l.settled = true
			}
		}
	}
	return out, nil
}

type riderKey struct{}

// rider is commands to send with the next pipeline that loads messages
// under a context, once: on a cluster, a home read's lookup of its pulled
// stars goes with the loading of its page's posts, which the read does
// anyway, rather than in a round trip of its own before it.
type rider struct {
	add  func(context.Context, redis.Pipeliner)
	sent atomic.Bool
}

// withRider returns ctx carrying add, for rideAlong.
func withRider(ctx context.Context, add func(context.Context, redis.Pipeliner)) context.Context {
	return context.WithValue(ctx, riderKey{}, &rider{add: add})
}

// rideAlong adds to pl the commands ctx carries, unless they went already.
func rideAlong(ctx context.Context, pl redis.Pipeliner) {
	if r, ok := ctx.Value(riderKey{}).(*rider); ok && r.sent.CompareAndSwap(false, true) {
		r.add(ctx, pl)
	}
}

// addCelebrity adds to pl what makes author a celebrity to home reads: its
// entry in global:celebrities and in its shard (the same key on a single
// Redis). The SADD of the shard is returned.
func (s *Store) addCelebrity(ctx context.Context, pl redis.Pipeliner, author int64) *redis.IntCmd {
	if s.keys.PullShards() > 1 {
		pl.SAdd(ctx, s.keys.Celebrities(), author)
	}
	return pl.SAdd(ctx, s.keys.CelebritiesShard(s.keys.PullShard(author)), author)
}

// removeCelebrity adds to pl what addCelebrity's removal takes; on a
// cluster the shard notes when in its fanout:settled.
func (s *Store) removeCelebrity(ctx context.Context, pl redis.Pipeliner, author int64) {
	n := s.keys.PullShard(author)
	if s.keys.PullShards() == 1 {
		pl.SRem(ctx, s.keys.CelebritiesShard(n), author)
		return
	}
	pl.SRem(ctx, s.keys.Celebrities(), author)
	schema.CelebrityLeave.Eval(ctx, pl, []string{s.keys.CelebritiesShard(n), s.keys.FanOutSettledShard(n)}, author, s.settledKeep().Milliseconds())
}
