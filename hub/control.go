package hub

import (
	"context"
	"sync"
)

// controlQueue runs the hub's stars and lens_changed events one after
// another, in the order they arrived, on one goroutine. It is unbounded
// because it is fed by Deliver on the broker's single reader: a bounded
// queue, once full, would stall every live event behind Redis round trips.
// These events are rare (a user follows, blocks, mutes or changes its
// filters), and a user's lens_changed events that arrive before its queued
// read begins share that read, so what waits stays small.
type controlQueue struct {
	mu    sync.Mutex
	queue []func()
	wake  chan struct{} // holds a token when queue may have work
}

func newControlQueue() *controlQueue {
	return &controlQueue{wake: make(chan struct{}, 1)}
}

// push appends f to the queue. It never blocks.
func (q *controlQueue) push(f func()) {
	q.mu.Lock()
	q.queue = append(q.queue, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default: // a token is already waiting and will find f
	}
}

// run applies what is pushed, in order, until ctx ends.
func (q *controlQueue) run(ctx context.Context) {
	for {
		select {
		case <-q.wake:
		case <-ctx.Done():
			return
		}
		q.mu.Lock()
		batch := q.queue
		q.queue = nil
		q.mu.Unlock()
		for _, f := range batch {
			if ctx.Err() != nil {
				return
			}
			f()
		}
	}
}
