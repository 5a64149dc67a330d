// Package retry holds what the request path and the background runners
// share when they wait: a ticker, a sleep that ends with its context, and a
// back-off between retries.
package retry

import (
	"context"
	"time"
)

// Every calls fn every d until ctx ends; the first call is d from now.
func Every(ctx context.Context, d time.Duration, fn func()) {
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

// Sleep waits d, or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Backoff is the wait between the retries of a failing step: min after the
// first failure, twice as long after each further one in a row, up to max.
type Backoff struct {
	Min, Max time.Duration
	next     time.Duration // 0: min
}

// Delay is how long the next sleep lasts.
func (b *Backoff) Delay() time.Duration {
	if b.next == 0 {
		return b.Min
	}
	return b.next
}

// Sleep waits before the next try, or until ctx ends.
func (b *Backoff) Sleep(ctx context.Context) {
	d := b.Delay()
	b.next = min(2*d, b.Max)
	Sleep(ctx, d)
}

// Reset starts over from Min, after a success.
func (b *Backoff) Reset() { b.next = 0 }
