package hub

import (
	"slices"

	"microblog/store"
)

// A connection's catch-up after a broker gap looks back
// store.ResumeWindow, as a resuming client does (store/resume.go): a post
// written late may stand below the newest one the connection was sent.

// resumeFloorLocked is where c's catch-up after a broker gap starts: the
// newest post sent to c written store.ResumeWindow before the newest it was
// sent, or, when none was, where c opened (its ?after=, or the newest id
// at its start), and never below an id that left c's window of sent ids:
// posts above the floor that c was sent are dropped by id, so each must
// still be in the window. (The window keeps the last ids sent, not the
// highest: a late post sent last, with an id below posts that left, once
// set the floor below them, and the catch-up sent them again.) The caller
// holds c.mu.
func (c *Conn) resumeFloorLocked() int64 {
	w := &c.seen
	floor := max(c.openFloor, w.evicted)
	if len(w.at) > 0 && len(w.at) == len(w.ring) {
		newest := slices.Max(w.at)
		for i, at := range w.at {
			if at != 0 && int64(at) < int64(newest)-int64(store.ResumeWindow.Seconds()) { // whole seconds: 30 s or more
				floor = max(floor, w.ring[i])
			}
		}
	}
	return min(floor, c.high)
}
