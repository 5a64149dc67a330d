package runner

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/retry"
	"microblog/store/redisdb/schema"
)

// MediaJanitor is one process's remover of the uploads that no post took
// within schema.UnattachedMediaTTL. Any number of processes may run one.
type MediaJanitor struct {
	base
	opt MediaJanitorOptions
}

// NewMediaJanitor returns the media janitor of st's process; Run runs it
// every Interval, Expire once.
func NewMediaJanitor(st Ops, opt MediaJanitorOptions) *MediaJanitor {
	return &MediaJanitor{base: newBase(st), opt: opt.withDefaults()}
}

// expireBatch is the most uploads one Expire removes.
const expireBatch = 500

// Run runs Expire every Interval until ctx ends.
func (j *MediaJanitor) Run(ctx context.Context) {
	retry.Every(ctx, j.opt.Interval, func() {
		if n, err := j.Expire(ctx); err != nil && ctx.Err() == nil {
			j.opt.Logger.Warn("expire unattached media", "err", err)
		} else if n > 0 {
			j.opt.Logger.Info("removed unattached media", "count", n)
		}
	})
}

// Expire removes the uploads that no post took within schema.UnattachedMediaTTL,
// expireBatch at most, and returns how many.
func (j *MediaJanitor) Expire(ctx context.Context) (int, error) {
	s := j.s
	cutoff := s.Now() - schema.UnattachedMediaTTL.Milliseconds()
	ids, err := j.rdb.ZRangeByScore(ctx, j.keys.UnattachedMedia(), &redis.ZRangeBy{
		Min: "-inf", Max: id(cutoff), Count: expireBatch}).Result()
	if err != nil || len(ids) == 0 {
		return 0, s.Wrap("expire media", err)
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err = j.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, m := range ids {
			cmds[i] = pl.HGetAll(ctx, j.keys.Media(parseID(m)))
		}
		return nil
	})
	if err != nil {
		return 0, s.Wrap("expire media", err)
	}
	var gone []store.Media
	for i, c := range cmds {
		var h schema.MediaHash
		if c.Scan(&h) == nil && h.Post == 0 {
			gone = append(gone, h.Media(parseID(ids[i])))
		} else { // taken meanwhile, or its hash is gone: only the index entry goes
			j.rdb.ZRem(ctx, j.keys.UnattachedMedia(), ids[i])
		}
	}
	s.DropMedia(ctx, gone)
	return len(gone), nil
}
