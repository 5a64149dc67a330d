package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"microblog/store/storetest"
)

// TestGracefulStopHandsBackFanOut: two processes on one backend, with a
// claim idle time of ten minutes. The first is stuck in a fan-out (a long
// pause between batches) when it is stopped gracefully: it hands the job
// back, and the second finishes it, and every post queued meanwhile, within
// seconds of the stop (the test waits up to hangWait, far below the claim
// idle time, for a busy machine), where it used to wait out the claim idle
// time.
func TestGracefulStopHandsBackFanOut(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	const claimIdle = "MICROBLOG_FANOUT_CLAIM_IDLE=10m"
	a := startOn(t, b, claimIdle, "MICROBLOG_FANOUT_BATCH_DELAY=1h", "MICROBLOG_FANOUT_WORKERS=1")
	rdb := a.rdb()
	starTok, starID := a.register(t, "star")
	fans := seedFans(t, rdb, starID, 1000, 3000)
	authorTok, _ := a.register(t, "author")
	fanTok, fanID := a.register(t, "fan")
	a.follow(t, fanTok, "author", true)
	mid := a.newPost(t, starTok, "to 3000 fans")
	for deadline := time.Now().Add(hangWait); pushedTo(t, rdb, fans, mid) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the fan-out never started\n%s", a.logs.String())
		}
	}
	var mids []int64
	for i := range 20 {
		mids = append(mids, a.newPost(t, authorTok, fmt.Sprint("queued behind it ", i)))
	}

	other := startOn(t, b, claimIdle)
	start := time.Now()
	a.Stop()
	stopped := time.Since(start)
	for deadline := start.Add(hangWait); ; time.Sleep(20 * time.Millisecond) {
		if n := pushedTo(t, rdb, fans, mid); n == len(fans) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%v after the stop %d of %d fans have the post\n%s", time.Since(start), n, len(fans), other.logs.String())
		}
	}
	settle(t, rdb)
	for _, m := range mids {
		if !inG(rdb, fanID, m) {
			t.Fatalf("the fan's home timeline lacks post %d", m)
		}
	}
	t.Logf("the stop took %v; every fan had every post %v after it began", stopped, time.Since(start))
	// The stopped process held the job when it handed it back, so it stays
	// in the group until the take-over's end forgets it: just after the
	// job's acknowledgement, which the settle above may see first.
	for deadline := time.Now().Add(hangWait); ; time.Sleep(20 * time.Millisecond) {
		names, err := rdb.XInfoConsumers(context.Background(), keysOf(rdb).FanOutQueue(), "fanout").Result()
		if err == nil && len(names) == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the group has consumers %v (%v), want only the running process", names, err)
		}
	}
}
