package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The server's keys on a Redis Cluster, where the id of a user's or a
// message's keys is a hash tag (docs/redis-keys.md; this module does not
// import the store, to keep its dependencies few).
const (
	lastPostIDKey = "global:postid"
	fanoutQueue   = "fanout:queue" // STREAM of fan-out jobs
	fanoutParts   = "fanout:parts" // STREAM of the parts of split jobs
	archiveQueue  = "archive:queue"
)

func tagged(family string, id int64, field string) string {
	k := family + ":{" + strconv.FormatInt(id, 10) + "}"
	if field != "" {
		k += ":" + field
	}
	return k
}

func messageKey(mid int64) string { return tagged("B", mid, "") }           // HASH of a message
func likesKey(mid int64) string   { return tagged("likes", mid, "") }       // ZSET of its likers
func postsKey(uid int64) string   { return tagged("F", uid, "messageID") }  // ZSET of a user's posts
func homeKey(uid int64) string    { return tagged("G", uid, "messageID") }  // ZSET of its home timeline
func starsKey(uid int64) string   { return tagged("A", uid, "loverID") }    // ZSET of whom it follows
func fansKey(uid int64) string    { return tagged("A", uid, "fansID") }     // ZSET of its fans
func userKey(uid int64) string    { return tagged("user:userid", uid, "") } // HASH of a user

// settle waits until the fan-out and archive queues are empty and every
// live fan has every post it is owed, or timeout has passed: then it says
// what is left, and the checker that follows reports what it finds.
func settle(ctx context.Context, w *world, fans []*liveFan, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	var emptied time.Time // when the queues were found empty, the live feeds still behind
	for {
		var left []string
		for _, q := range []string{fanoutQueue, fanoutParts, archiveQueue} {
			n, err := w.b.rdb.XLen(ctx, q).Result()
			if err != nil {
				left = append(left, fmt.Sprintf("%s unread (%v)", q, err))
			} else if n > 0 {
				left = append(left, fmt.Sprintf("%s holds %d entries", q, n))
			}
		}
		queued := len(left) > 0
		for i, f := range fans {
			if n := len(missing(w.owed(i, f.baseline), f.received())); n > 0 {
				left = append(left, fmt.Sprintf("%s misses %d posts live", f.u.name, n))
			}
		}
		if len(left) == 0 {
			return time.Since(start), nil
		}
		if !queued && emptied.IsZero() {
			emptied = time.Now()
		}
		// A post a live feed lacks once the queues are empty is not on its
		// way: liveWait after, the checker says which.
		if time.Since(start) > timeout || !queued && time.Since(emptied) > liveWait {
			return time.Since(start), fmt.Errorf("not settled after %s: %s", time.Since(start).Round(time.Second), strings.Join(left, "; "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// liveWait is how long settle waits for the live feeds once the queues are
// empty: a resume after a fault takes a second or two, many more on a busy
// machine.
const liveWait = time.Minute

// owed are the acknowledged posts fan i is owed live: those of its stars
// after its first ready's last_id.
func (w *world) owed(i int, baseline int64) map[int64]int64 {
	w.led.mu.Lock()
	defer w.led.mu.Unlock()
	return w.owedLocked(i, baseline)
}

// owedLocked is owed for a caller that holds the ledger's lock.
func (w *world) owedLocked(i int, baseline int64) map[int64]int64 {
	stars := map[int64]bool{}
	for _, s := range w.stars[i] {
		stars[s.id] = true
	}
	owed := map[int64]int64{}
	for key, id := range w.led.posts {
		if a := w.led.authorOf[key]; stars[a] && id > baseline {
			owed[id] = a
		}
	}
	return owed
}

// missing are the ids of owed that log lacks.
func missing(owed map[int64]int64, log []delivery) []int64 {
	got := make(map[int64]bool, len(log))
	for _, d := range log {
		got[d.id] = true
	}
	var out []int64
	for id := range owed {
		if !got[id] {
			out = append(out, id)
		}
	}
	return out
}
