package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// MediaJanitor is one process's remover of the uploads that no post took
// within UnattachedMediaTTL. Any number of processes may run one.
type MediaJanitor struct {
	s   *Store
	opt MediaJanitorOptions
}

// NewMediaJanitor returns the media janitor of st's process; Run runs it
// every Interval, Expire once.
func NewMediaJanitor(st *Store, opt MediaJanitorOptions) *MediaJanitor {
	return &MediaJanitor{s: st, opt: opt.withDefaults()}
}

// expireBatch is the most uploads one Expire removes.
const expireBatch = 500

// Run runs Expire every Interval until ctx ends.
func (j *MediaJanitor) Run(ctx context.Context) {
	every(ctx, j.opt.Interval, func() {
		if n, err := j.Expire(ctx); err != nil && ctx.Err() == nil {
			j.opt.Logger.Warn("expire unattached media", "err", err)
		} else if n > 0 {
			j.opt.Logger.Info("removed unattached media", "count", n)
		}
	})
}

// Expire removes the uploads that no post took within UnattachedMediaTTL,
// expireBatch at most, and returns how many.
func (j *MediaJanitor) Expire(ctx context.Context) (int, error) {
	s := j.s
	cutoff := s.now() - UnattachedMediaTTL.Milliseconds()
	ids, err := s.rdb.ZRangeByScore(ctx, s.keys.UnattachedMedia(), &redis.ZRangeBy{
		Min: "-inf", Max: id(cutoff), Count: expireBatch}).Result()
	if err != nil || len(ids) == 0 {
		return 0, s.wrap("expire media", err)
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, m := range ids {
			cmds[i] = pl.HGetAll(ctx, s.keys.Media(parseID(m)))
		}
		return nil
	})
	if err != nil {
		return 0, s.wrap("expire media", err)
	}
	var gone []store.Media
	for i, c := range cmds {
		var h schema.MediaHash
		if c.Scan(&h) == nil && h.Post == 0 {
			gone = append(gone, h.Media(parseID(ids[i])))
		} else { // taken meanwhile, or its hash is gone: only the index entry goes
			s.rdb.ZRem(ctx, s.keys.UnattachedMedia(), ids[i])
		}
	}
	s.dropMedia(ctx, gone)
	return len(gone), nil
}
