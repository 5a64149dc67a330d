package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// The fan-out's queues as the server names them (no key prefix): the jobs,
// and the parts of split jobs (a build without splitting has none).
const (
	queueKey = "fanout:queue"
	partsKey = "fanout:parts"
)

// watcher reads the fan-out queues' length and lag every so often, from
// outside, as an operator's dashboard would.
type watcher struct {
	ctx     context.Context
	rdb     *redis.Client
	every   time.Duration
	posted  *atomic.Int64
	t0      time.Time
	mu      sync.Mutex
	samples []sample
	quit    chan struct{}
	done    chan struct{}
}

// watch returns a watcher of rdb's queues; start starts it.
func watch(ctx context.Context, rdb *redis.Client, every time.Duration, posted *atomic.Int64) *watcher {
	return &watcher{ctx: ctx, rdb: rdb, every: every, posted: posted, quit: make(chan struct{}), done: make(chan struct{})}
}

// start reads the queues every w.every from t0 on, until stop.
func (w *watcher) start(t0 time.Time) {
	w.t0 = t0
	go func() {
		defer close(w.done)
		tick := time.NewTicker(w.every)
		defer tick.Stop()
		for {
			if s, err := w.read(); err == nil {
				w.mu.Lock()
				w.samples = append(w.samples, s)
				w.mu.Unlock()
			}
			select {
			case <-w.quit:
				return
			case <-tick.C:
			}
		}
	}()
}

// read reads the queues once, in one round trip.
func (w *watcher) read() (sample, error) {
	posted := w.posted.Load()
	var lens []*redis.IntCmd
	var heads []*redis.XMessageSliceCmd
	_, err := w.rdb.Pipelined(w.ctx, func(pl redis.Pipeliner) error {
		for _, k := range []string{queueKey, partsKey} {
			lens = append(lens, pl.XLen(w.ctx, k))
			heads = append(heads, pl.XRangeN(w.ctx, k, "-", "+", 1))
		}
		return nil
	})
	now := time.Now()
	if err != nil {
		return sample{}, err
	}
	s := sample{T: now.Sub(w.t0).Seconds(), Done: posted - lens[0].Val()}
	for i := range lens {
		s.Queue += lens[i].Val()
		if msgs := heads[i].Val(); len(msgs) > 0 {
			ms, _ := strconv.ParseInt(strings.SplitN(msgs[0].ID, "-", 2)[0], 10, 64)
			s.LagMS = max(s.LagMS, float64(now.UnixMilli()-ms))
		}
	}
	return s, nil
}

// drained waits, once every post is answered, until a read finds both
// queues empty, and returns when (since t0); after settle it gives up.
func (w *watcher) drained(settle time.Duration) (time.Duration, error) {
	deadline := time.Now().Add(settle)
	for {
		s, err := w.read()
		if err == nil && s.Queue == 0 {
			return time.Duration(s.T * float64(time.Second)), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the fan-out queues still hold %d entries %s after the last post (%v)", s.Queue, settle, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop stops the reads and returns the samples taken.
func (w *watcher) stop() []sample {
	close(w.quit)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.samples
}
