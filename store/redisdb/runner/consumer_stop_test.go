package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"

	"microblog/store/redisdb"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// runFanOut runs w until the test ends or its stop is called; stop waits
// until Run has returned (hand-back included).
func runFanOut(t *testing.T, w *FanOut) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// consumers lists the names of the fan-out group's consumers of the queue.
func (s testStore) consumers() []string {
	cs, _ := s.rdb.XInfoConsumers(s.ctx, s.keys.FanOutQueue(), schema.FanOutGroup).Result()
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	return names
}

// TestStopHandsBackJobs: a process stopping gracefully while its worker is
// stuck in a batch (a push to more fans than one pipeline takes, slowed
// down) hands the batch back, and another process whose claim idle time is
// a minute takes it over within about a second, where it used to wait that
// minute. Both then leave the consumer group when they hold nothing.
func TestStopHandsBackJobs(t *testing.T) {
	const claimIdle = time.Minute
	s := newIdleStore(t, redisdb.Options{})
	star, small, fan := s.user("star"), s.user("small"), s.user("fan")
	fans := s.seedFans(star, 4_000_000, 3*FanOutBatch)
	s.follow(fan, small)
	big := s.post(store.NewPost{Author: star, Content: "to many"})
	few := s.post(store.NewPost{Author: small, Content: "to one"})
	// Queued before it starts, so that its one read takes both.
	stuck := NewFanOut(s.Store, FanOutOptions{Workers: 1, Helpers: -1, ClaimIdle: claimIdle, BatchDelay: time.Hour})
	stopStuck := runFanOut(t, stuck)
	s.waitPending(2)

	other := NewFanOut(s.Store, FanOutOptions{ClaimIdle: claimIdle})
	stopOther := runFanOut(t, other)
	start := time.Now()
	stopStuck()
	stopped := time.Since(start)
	if stopped > FinishWithin+storetest.HangWait { // not the batch's hour
		t.Fatalf("the stuck worker took %v to stop, want about finishWithin (%v)", stopped, FinishWithin)
	}
	s.settleWithin(claimIdle / 2) // within reclaimTick, where it used to take claimIdle
	t.Logf("stopped in %v, jobs done by the other %v after", stopped, time.Since(start)-stopped)
	s.everyFanHas([]int64{fans[0], fans[len(fans)-1]}, big.ID, true)
	s.everyFanHas([]int64{fan}, few.ID, true)
	// The taker forgets the consumers it took from once its take-over is
	// done, a round trip after the jobs are.
	s.waitConsumers(func(names []string) bool { return !slices.Contains(names, stuck.c.name) },
		"the stopped consumer is still in the group")
	stopOther()
	s.waitConsumers(func(names []string) bool { return len(names) == 0 },
		"a consumer that stopped holding nothing is still in the group")
}

// waitConsumers waits until the group's consumers satisfy ok, and fails
// with what if they do not within storetest.HangWait.
func (s testStore) waitConsumers(ok func([]string) bool, what string) {
	s.t.Helper()
	for deadline := time.Now().Add(storetest.HangWait); !ok(s.consumers()); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: %v", what, s.consumers())
		}
	}
}

// waitPending waits until the queue's group holds n jobs read and not
// acknowledged.
func (s testStore) waitPending(n int64) {
	s.t.Helper()
	for deadline := time.Now().Add(storetest.HangWait); ; time.Sleep(5 * time.Millisecond) {
		if p, err := s.rdb.XPending(s.ctx, s.keys.FanOutQueue(), schema.FanOutGroup).Result(); err == nil && p.Count == n {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the worker did not take the %d jobs", n)
		}
	}
}

// settleWithin waits until every job of the queue is done, and fails if
// that takes longer than d.
func (s testStore) settleWithin(d time.Duration) {
	s.t.Helper()
	start := time.Now()
	for {
		n, err := s.rdb.XLen(s.ctx, s.keys.FanOutQueue()).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Since(start) > d {
			s.t.Fatalf("%d jobs still queued %v later (%v)", n, d, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHandBackWithRedisAwayKeepsJobs: a hand-back that cannot reach Redis
// leaves the jobs pending as they were: no other process takes them before
// the claim idle time (none was lost or acknowledged), and one does after.
func TestHandBackWithRedisAwayKeepsJobs(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	s := storeOn(t, b.Client(), redisdb.Options{})
	author, fan := s.user("author"), s.user("fan")
	s.follow(fan, author)
	var mids []int64
	for range 3 {
		mids = append(mids, s.post(store.NewPost{Author: author, Content: "queued"}).ID)
	}
	// Long enough for the stop, the failed hand-back and the restart below
	// to come before it on a busy machine (at 2 s a fresh-clone run's first
	// look came after, and rightly took the jobs over).
	const claimIdle = 8 * time.Second
	w := s.worker(FanOutOptions{ClaimIdle: claimIdle})
	reading := time.Now()
	s.take(w, 3)
	taken := time.Now()

	if b.Single != nil {
		b.Single.Stop()
		if n := w.c.handBack(s.ctx); n != 0 {
			t.Fatalf("handed back %d jobs with Redis down", n)
		}
		b.Single.Restart()
	} else {
		// The test.s cluster stays up: this consumer.s client reaches none of it.
		away := *w.c
		away.rdb = redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
		defer away.rdb.Close()
		if n := away.handBack(s.ctx); n != 0 {
			t.Fatalf("handed back %d jobs with Redis away", n)
		}
	}

	other := s.worker(FanOutOptions{ClaimIdle: claimIdle})
	other.c.name = "other"
	if err := other.c.reclaim(s.ctx, 1, other.takeOver); err != nil {
		t.Fatal(err)
	}
	// A machine so slow that the look came after the claim idle time
	// proves nothing here (and rightly lost the jobs), but fails nothing.
	early := time.Since(reading) < claimIdle
	held, err := s.rdb.XPendingExt(s.ctx, &redis.XPendingExtArgs{Stream: s.keys.FanOutQueue(), Group: schema.FanOutGroup,
		Start: "-", End: "+", Count: 10, Consumer: w.c.name}).Result()
	if err != nil || len(held) != 3 && early {
		t.Fatalf("the stopped worker holds %d jobs (%v), want the 3 it read", len(held), err)
	} else if len(held) != 3 {
		t.Logf("the first look came %v after the jobs were read, past the claim idle time: the early look proves nothing", time.Since(reading))
	}
	time.Sleep(time.Until(taken.Add(claimIdle)))
	if err := other.c.reclaim(s.ctx, 1, other.takeOver); err != nil {
		t.Fatal(err)
	}
	s.queueEmpty()
	s.everyFanHas([]int64{fan}, mids[2], true)
	if slices.Contains(s.consumers(), w.c.name) {
		t.Fatalf("the consumer whose jobs were taken over is still in the group: %v", s.consumers())
	}
}
