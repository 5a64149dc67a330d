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
	var spent func() error
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		spent = s.queueAllow(ctx, p, bucket, subject, l)
		return nil
	})
	if err != nil {
		return s.Wrap("rate limit", err)
	}
	return spent()
}

// queueAllow counts the request as Allow does, in a pipeline of the
// caller's; once the pipeline has run, the function it returns tells
// whether the limit was spent (a *RateLimitError).
func (s *Store) queueAllow(ctx context.Context, p redis.Pipeliner, bucket, subject string, l store.Limit) func() error {
	if l.N <= 0 || l.Per <= 0 {
		return func() error { return nil }
	}
	per := l.Per.Milliseconds()
	now := s.Now()
	window := now / per
	key := s.keys.Rate(bucket, subject, window)
	incr := p.Incr(ctx, key)
	p.PExpire(ctx, key, l.Per)
	return func() error {
		if incr.Val() > int64(l.N) {
			wait := time.Duration((window+1)*per-now) * time.Millisecond
			return &store.RateLimitError{RetryAfter: max(wait, time.Second)}
		}
		return nil
	}
}
