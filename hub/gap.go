package hub

import (
	"context"
	"sync"
	"time"

	"microblog/store"
)

// resyncParallel bounds the users caught up at once after a gap, so that a
// Redis restart with thousands of connected users does not flood Redis.
const resyncParallel = 16

// Interrupted is told by the broker that its connection just broke. Each
// live connection remembers where it stood then: the catch-up starts there
// (for posts store.ResumeWindow before the newest it had, since a post written
// late may stand below it: resume.go), not at posts that arrive after the
// reconnection but before the catch-up, which would hide older ones lost
// in the gap.
func (h *Hub) Interrupted() {
	h.interruptions.Add(1)
	h.mu.RLock()
	defer h.mu.RUnlock()
	for c := range h.conns {
		c.mu.Lock()
		if c.live && !c.gapMarked {
			c.gapMarked, c.gapFrom = true, c.resumeFloorLocked()
		}
		if c.live && !c.msgGapMarked {
			c.msgGapMarked, c.msgGapFrom = true, c.msgHigh
		}
		c.mu.Unlock()
	}
}

// Resubscribed is told by the broker that its connection broke and is
// back: every local connection catches up on the posts it missed.
func (h *Hub) Resubscribed() {
	h.resubscribes.Add(1)
	h.m.gaps.Inc()
	h.resyncMu.Lock()
	if h.resyncing {
		h.resyncAgain = true
		h.resyncMu.Unlock()
		return
	}
	h.resyncing = true
	h.resyncMu.Unlock()

	h.mu.Lock()
	closed := h.closed
	if !closed {
		h.wg.Add(1)
	}
	h.mu.Unlock()
	if closed {
		return
	}
	go func() {
		defer h.wg.Done()
		for {
			h.resyncAll()
			h.resyncMu.Lock()
			again := h.resyncAgain
			h.resyncAgain, h.resyncing = false, again
			h.resyncMu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// resyncAll brings every ready user's lens and stars up to date (changes
// made during the gap were not heard) and replays each connection's missed
// posts.
// A user still loading is left out: load reads its stars again, and its
// connections catch up on their own once they are live.
func (h *Hub) resyncAll() {
	h.mu.RLock()
	users := make([]*user, 0, len(h.users))
	for _, u := range h.users {
		if u.state == userReady {
			users = append(users, u)
		}
	}
	h.mu.RUnlock()
	start := time.Now()
	sem := make(chan struct{}, resyncParallel)
	var wg sync.WaitGroup
	for _, u := range users {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			h.resyncUser(u)
		}()
	}
	wg.Wait()
	h.log.Info("live: caught up after subscriber gap", "users", len(users), "took", time.Since(start))
}

// resyncUser reads u's lens and stars again (lens_changed and stars events
// lost in the gap were not heard), subscribes and unsubscribes to match
// (stars events heard during the read win over it), and catches up each of
// its connections once that is in force. If that fails, u fails: its
// connections are asked to reconnect, and none joins it with a lens or
// stars out of date.
func (h *Hub) resyncUser(u *user) {
	if u.id == 0 {
		return // no user: nothing to read, no timeline to catch up on
	}
	ctx, cancel := context.WithTimeout(h.ctx, 2*h.opt.WriteWait)
	defer cancel()
	resubscribes := h.resubscribes.Load()
	n, lens, err := h.readLens(ctx, u)
	var stars []int64
	if err == nil {
		stars, err = h.readStars(ctx, u)
	}
	var tn uint64
	var tags []string
	if err == nil {
		tn, tags, err = h.readTags(ctx, u)
	}
	if err == nil {
		err = h.changeTopics(ctx, u, func() (add, remove []store.Topic) {
			want := u.endStarsReadLocked(stars)
			// A newer read of the lens that failed has failed u already.
			if h.users[u.id] != u || u.setLensLocked(n, lens, nil) != nil {
				return nil, nil
			}
			add, remove = h.diffStarsLocked(u, want)
			tagAdd, tagRemove := u.diffTagsLocked(tn, tags)
			return append(add, tagAdd...), append(remove, tagRemove...)
		})
	}
	if err == nil {
		err = h.sync(ctx)
	}
	if err != nil && h.resubscribes.Load() != resubscribes {
		return // the broker broke again: the next round catches up
	}
	if err != nil {
		h.mu.Lock()
		if h.users[u.id] == u && u.state == userReady {
			h.failLocked(u, err)
		}
		h.mu.Unlock()
		return
	}
	for _, c := range h.connsOf(u) {
		h.catchUp(ctx, c)
	}
}

// catchUp queues the home-timeline posts and the private messages newer
// than the last ones c has, dropping those it already got. If more were
// missed than the queue can take, c is asked to reconnect with ?after
// (and ?messages_after) instead.
func (h *Hub) catchUp(ctx context.Context, c *Conn) {
	h.catchUpAfter(ctx, c, 0)
	h.catchUpDMs(ctx, c)
}

// catchUpAfter is catchUp that never goes back to floor or before.
func (h *Hub) catchUpAfter(ctx context.Context, c *Conn, floor int64) {
	c.mu.Lock()
	after, live := max(c.high, floor), c.live
	if c.gapMarked {
		after = max(c.gapFrom, floor)
	}
	var sent []int64 // posts above after that c was sent: not read again
	for _, id := range c.seen.ring {
		if id > after {
			sent = append(sent, id)
		}
	}
	c.mu.Unlock()
	if !live {
		return
	}
	limit := max(1, min(h.opt.ReplayMax, h.opt.SendQueue/2))
	resubscribes, interruptions := h.resubscribes.Load(), h.interruptions.Load()
	posts, err := h.tl.HomeSince(ctx, c.uid, after, limit, sent)
	if err != nil && h.resubscribes.Load() != resubscribes {
		return // the broker broke again: the next round catches up
	}
	if err != nil || len(posts) >= limit {
		c.closeWith(CloseResume, "live feed interrupted, reconnect with ?after")
		return
	}
	evs := make([]event, 0, len(posts))
	for _, p := range posts {
		if p.Filtered {
			continue // the live feed withholds what the reader's words filter
		}
		if ev, err := ownEvent(store.AuthorTopic(p.Author.ID), store.EventPost, p); err == nil {
			evs = append(evs, event{postID: p.ID, postAt: p.CreatedAt, f: ev.f, src: ev.src})
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Only a catch-up that read the timeline after the last interruption
	// closes the gap. Otherwise posts lost in a newer one may be older than
	// live ones delivered before the next catch-up, which must therefore
	// start at gapFrom.
	if h.interruptions.Load() == interruptions {
		c.gapMarked = false
	}
	for _, ev := range evs {
		c.pushLocked(ev)
	}
	h.m.replayed.Add(float64(len(evs)))
	c.releaseHeldLocked()
}

// inGapLocked tells whether c has a gap to catch up on: a live event is
// then held back until the catch-up has gone out, so that the client never
// has a post newer than one lost in the gap. Were it sent, a catch-up that
// fails (closing c with CloseResume) would have the client resume with
// ?after=<that newer post> and skip the lost ones for good (issue 27: fans
// missed every post of a failed-over partition published before their
// process resubscribed there). A client that is no user has no timeline
// and no catch-up. The caller holds c.mu.
func (c *Conn) inGapLocked() bool {
	return c.uid != 0 && (c.gapMarked || c.msgGapMarked)
}

// holdForGapLocked holds ev until c has caught up. Past half SendQueue
// events (the catch-up takes less than the other half) c is closed with
// CloseResume: its client resumes from the newest post it has, which is
// older than every one held. The caller holds c.mu.
func (c *Conn) holdForGapLocked(ev event) {
	if len(c.gapHeld) >= max(1, c.h.opt.SendQueue/2) {
		c.gapHeld = nil
		c.closeWith(CloseResume, "live feed interrupted, reconnect with ?after")
		return
	}
	c.gapHeld = append(c.gapHeld, ev)
}

// releaseHeldLocked queues the events held during c's gap once it has
// caught up on posts and messages, after the catch-up: those it brought are
// dropped as repeats. The caller holds c.mu.
func (c *Conn) releaseHeldLocked() {
	if c.inGapLocked() {
		return
	}
	held := c.gapHeld
	c.gapHeld = nil
	for _, ev := range held {
		c.pushLocked(ev)
	}
}
