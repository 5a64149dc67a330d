package redisdb

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// Allow counts one request of subject (a uid or an address) in bucket (say
// "post") against l, in fixed windows kept in Redis so that every server
// process shares them. It returns a *RateLimitError when the limit is spent.
func (s *Store) Allow(ctx context.Context, bucket, subject string, l store.Limit) error {
	if l.N <= 0 || l.Per <= 0 {
		return nil
	}
	per := l.Per.Milliseconds()
	now := s.now()
	window := now / per
	key := s.keys.rate(bucket, subject, window)
	var incr *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		incr = p.Incr(ctx, key)
		p.PExpire(ctx, key, l.Per)
		return nil
	})
	if err != nil {
		return s.wrap("rate limit", err)
	}
	if incr.Val() > int64(l.N) {
		wait := time.Duration((window+1)*per-now) * time.Millisecond
		return &store.RateLimitError{RetryAfter: max(wait, time.Second)}
	}
	return nil
}
