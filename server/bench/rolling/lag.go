package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// watcher reads which fan-out jobs are still queued every so often, and
// keeps the lag of each job it saw: from its queueing (the time in its
// stream id, Redis's clock, this machine's) to the first read that no
// longer found it.
type watcher struct {
	ctx   context.Context
	rdb   *redis.Client
	every time.Duration
	quit  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	seen  map[string]bool // queued at the last read
	lags  []time.Duration // of the jobs seen and done since
}

// lags is the fan-out lags a watch measured.
type lags struct {
	every time.Duration
	jobs  int             // every job queued during the watch: one a post
	seen  []time.Duration // of the jobs a read found, sorted; the others took less than every
}

// watch starts reading rdb's fan-out queue every so often, until stop.
func watch(ctx context.Context, rdb *redis.Client, every time.Duration) *watcher {
	w := &watcher{ctx: ctx, rdb: rdb, every: every, quit: make(chan struct{}), done: make(chan struct{}), seen: map[string]bool{}}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			w.read()
			select {
			case <-w.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// read reads the queued jobs once.
func (w *watcher) read() {
	msgs, err := w.rdb.XRange(w.ctx, queueKey, "-", "+").Result()
	now := time.Now()
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	queued := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		queued[m.ID] = true
	}
	for id := range w.seen {
		if !queued[id] {
			w.lags = append(w.lags, now.Sub(queuedAt(id)))
		}
	}
	w.seen = queued
}

// drained waits until the queue is empty (and the watcher has read it so),
// or fails after d.
func (w *watcher) drained(d time.Duration) error {
	for deadline := time.Now().Add(d); ; time.Sleep(w.every) {
		w.mu.Lock()
		empty := len(w.seen) == 0
		w.mu.Unlock()
		if n, err := w.rdb.XLen(w.ctx, queueKey).Result(); err == nil && n == 0 && empty {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the fan-out queue did not empty within %s", d)
		}
	}
}

// stop ends the watch and returns the lags of jobs jobs (one a post).
func (w *watcher) stop(jobs int) lags {
	close(w.quit)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.Sort(w.lags)
	return lags{every: w.every, jobs: max(jobs, len(w.lags)), seen: w.lags}
}

// queuedAt is when a stream entry was added: its id's milliseconds.
func queuedAt(id string) time.Time {
	ms, _ := strconv.ParseInt(strings.SplitN(id, "-", 2)[0], 10, 64)
	return time.UnixMilli(ms)
}

// max is the longest lag: at least one read interval.
func (l lags) max() string {
	if len(l.seen) == 0 {
		return "< " + l.every.String()
	}
	return l.seen[len(l.seen)-1].Round(time.Millisecond).String()
}

// quantile is the lag q of the jobs are within, counting those no read
// found as faster than any read.
func (l lags) quantile(q float64) string {
	fast := l.jobs - len(l.seen)
	i := int(q*float64(l.jobs)+0.5) - 1
	if i < fast {
		return "< " + l.every.String()
	}
	return l.seen[min(i-fast, len(l.seen)-1)].Round(time.Millisecond).String()
}
