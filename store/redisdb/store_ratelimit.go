package redisdb

import (
	"context"
	"sync"
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
	expiring := s.caches.expiries.set(key, (window+1)*per, now)
	if !expiring {
		p.PExpire(ctx, key, l.Per)
	}
	return func() error {
		if expiring && incr.Val() == 1 {
			// Made anew though its expiry was set: Redis lost it (a restart,
			// a failover) since. Its window's key is never read after the
			// window, so this only keeps it from staying for good.
			s.rdb.PExpire(context.WithoutCancel(ctx), key, l.Per)
		}
		if incr.Val() > int64(l.N) {
			wait := time.Duration((window+1)*per-now) * time.Millisecond
			return &store.RateLimitError{RetryAfter: max(wait, time.Second)}
		}
		return nil
	}
}

// expiries remembers the rate limit keys whose expiry this process has set,
// each until its window is over, so that a request sends the PEXPIRE only
// with the first INCR of its key here, not with every one (a command less
// a post: issue 39). A key is a window's, never read once the window is
// over, so its expiry only keeps Redis from holding it for good.
type expiries struct {
	mu   sync.Mutex
	keys map[string]int64 // key → when its window and expiry are over (unix ms)
	// sweep is when the entries past their end are next taken out.
	sweep int64
}

// set tells whether the expiry of key was set already, and else remembers
// it as set (the caller sets it) until end.
func (e *expiries) set(key string, end, now int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if now >= e.sweep {
		for k, t := range e.keys {
			if t <= now {
				delete(e.keys, k)
			}
		}
		e.sweep = now + expirySweepEvery.Milliseconds()
	}
	if t, ok := e.keys[key]; ok && t > now {
		return true
	}
	if e.keys == nil {
		e.keys = make(map[string]int64)
	}
	e.keys[key] = end
	return false
}

// expirySweepEvery is how often expiries forgets the keys whose windows are
// over.
const expirySweepEvery = time.Minute
