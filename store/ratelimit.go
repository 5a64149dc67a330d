package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limit is a rate: at most N requests per Per.
type Limit struct {
	N   int
	Per time.Duration
}

// RateLimitError says a caller must wait RetryAfter before trying again.
type RateLimitError struct{ RetryAfter time.Duration }

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many requests; try again in %s", e.RetryAfter.Round(time.Second))
}
func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

// Allow counts one request of subject (a uid or an address) in bucket (say
// "post") against l, in fixed windows kept in Redis so that every server
// process shares them. It returns a *RateLimitError when the limit is spent.
func (s *Store) Allow(ctx context.Context, bucket, subject string, l Limit) error {
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
		return &RateLimitError{RetryAfter: max(wait, time.Second)}
	}
	return nil
}
