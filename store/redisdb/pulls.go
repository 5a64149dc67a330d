package redisdb

import (
	"context"
	"slices"

	"github.com/redis/go-redis/v9"
)

// A home read merges with its G set the F sets of the stars its reader
// follows that are pulled: celebrities (pull or drain mode) and authors
// with pushes in flight (pending.go). It asks about its own stars only, so
// that its cost does not grow with the number of celebrities or with the
// fan-out's backlog, and no key is read by every reader: on a single Redis
// it intersects the reader's A:loverID with global:celebrities and with
// fanout:pushing, each O(the smaller set), in its first round trip; on a
// cluster, where those keys are on other slots, it reads the stars in its
// first round trip and looks them up in their shards (Keys.PullShard) in
// one more, one SMISMEMBER and one ZMSCORE per shard they fall in.

// pullLookup is the part of a home read's first round trip that finds its
// reader's pulled stars.
type pullLookup struct {
	s *Store
	// On a single Redis, the stars in global:celebrities and in
	// fanout:pushing; on a cluster, all the stars.
	celebs, pushing, stars *redis.StringSliceCmd
}

// queuePullLookup adds to pl, a home read's first round trip, what finds
// uid's pulled stars.
func (s *Store) queuePullLookup(ctx context.Context, pl redis.Pipeliner, uid int64) *pullLookup {
	l := &pullLookup{s: s}
	stars := s.keys.Stars(uid)
	if s.keys.PullShards() > 1 {
		l.stars = pl.ZRange(ctx, stars, 0, -1)
		return l
	}
	l.celebs = pl.ZInter(ctx, &redis.ZStore{Keys: []string{stars, s.keys.CelebritiesShard(0)}})
	l.pushing = pl.ZInter(ctx, &redis.ZStore{Keys: []string{stars, s.keys.FanOutPushingShard(0)}})
	return l
}

// authors returns the pulled stars, once the first round trip has run:
// sorted, each once. On a cluster that takes one more round trip, unless
// the reader follows nobody.
func (l *pullLookup) authors(ctx context.Context) ([]int64, error) {
	var got []string
	if l.stars == nil {
		got = append(l.celebs.Val(), l.pushing.Val()...)
	} else {
		var err error
		if got, err = l.s.pulledOf(ctx, l.stars.Val()); err != nil {
			return nil, err
		}
	}
	ids := parseIDs(got)
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// pulledOf returns those of stars that are celebrities or have pushes in
// flight, looking each up in its shard, in one round trip.
func (s *Store) pulledOf(ctx context.Context, stars []string) ([]string, error) {
	if len(stars) == 0 {
		return nil, nil
	}
	byShard := make(map[int][]string)
	for _, star := range stars {
		n := s.keys.PullShard(parseID(star))
		byShard[n] = append(byShard[n], star)
	}
	type lookup struct {
		members []string
		celeb   *redis.BoolSliceCmd
		pushing *redis.FloatSliceCmd
	}
	lookups := make([]lookup, 0, len(byShard))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for n, members := range byShard {
			asAny := make([]any, len(members))
			for i, m := range members {
				asAny[i] = m
			}
			lookups = append(lookups, lookup{members: members,
				celeb:   pl.SMIsMember(ctx, s.keys.CelebritiesShard(n), asAny...),
				pushing: pl.ZMScore(ctx, s.keys.FanOutPushingShard(n), members...)})
		}
		return nil
	})
	if err != nil {
		return nil, s.wrap("home timeline: pulled stars", err)
	}
	var out []string
	for _, l := range lookups {
		celeb, pushing := l.celeb.Val(), l.pushing.Val()
		for i, m := range l.members {
			if (i < len(celeb) && celeb[i]) || (i < len(pushing) && pushing[i] > 0) {
				out = append(out, m)
			}
		}
	}
	return out, nil
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

// removeCelebrity adds to pl what addCelebrity's removal takes.
func (s *Store) removeCelebrity(ctx context.Context, pl redis.Pipeliner, author int64) {
	if s.keys.PullShards() > 1 {
		pl.SRem(ctx, s.keys.Celebrities(), author)
	}
	pl.SRem(ctx, s.keys.CelebritiesShard(s.keys.PullShard(author)), author)
}
