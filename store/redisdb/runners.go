package redisdb

import (
	"context"
	"time"
)

// What the background runners share: a ticker, a sleep that ends with its
// context, and a back-off between retries.

// every calls fn every d until ctx ends; the first call is d from now.
func every(ctx context.Context, d time.Duration, fn func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			fn()
		}
	}
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// backoff is the wait between the retries of a failing step: min after the
// first failure, twice as long after each further one in a row, up to max.
type backoff struct {
	min, max time.Duration
	next     time.Duration // 0: min
}

// delay is how long the next sleep lasts.
func (b *backoff) delay() time.Duration {
	if b.next == 0 {
		return b.min
	}
	return b.next
}

// sleep waits before the next try, or until ctx ends.
func (b *backoff) sleep(ctx context.Context) {
	d := b.delay()
	b.next = min(2*d, b.max)
	sleep(ctx, d)
}

// reset starts over from min, after a success.
func (b *backoff) reset() { b.next = 0 }
