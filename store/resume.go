package store

import (
	"slices"
	"time"
)

// Resuming without gaps when ids are not the order posts appear in.
//
// A post's id is drawn when its request claims it, and the post becomes
// visible (is read, and its event goes out) once its write is done. Most
// posts appear within milliseconds of their id; one whose write waits on a
// failing Redis master appears seconds later, after newer ids of other
// partitions were delivered. A client that resumed with ?after=<the newest
// id it has> would pass such a post by, had its event gone out while the
// client was away (issue 27; TestClusterFailover found it).
//
// So a resume looks back ResumeWindow: the client resumes with ?after= the
// newest post it holds that was written ResumeWindow before its newest, and
// ?seen= the posts it holds above that (ResumePoint here, for clients in Go;
// web/js/core/live.js); the server replays what is above ?after= and not
// seen. The hub's own catch-up after a broker gap starts at the same floor
// (hub/resume.go).

// ResumeWindow is how much later than its created_at a post may become
// visible and still reach a resuming client: past a failover (seconds),
// well short of what a client holds.
const ResumeWindow = 30 * time.Second

// MaxSeen is the most ids ?seen= may list.
const MaxSeen = 100

// Held is a post a client holds: its id and created_at.
type Held struct {
	ID int64
	At Time
}

// ResumePoint is where a client resumes its live feed (?after= and
// ?seen=): after is the newest post of held written ResumeWindow or more
// before the newest of held, or floor when none is (floor: the newest id
// the client holds by other means, the page it loaded or the last_id of
// its first ready); seen lists the posts of held above after, at most
// MaxSeen (the newest, after rising to the one below them).
func ResumePoint(floor int64, held []Held) (after int64, seen []int64) {
	after = floor
	var newest Time
	for _, h := range held {
		newest = max(newest, h.At)
	}
	for _, h := range held {
		if h.At <= newest-Time(ResumeWindow.Milliseconds()) {
			after = max(after, h.ID)
		}
	}
	for _, h := range held {
		if h.ID > after {
			seen = append(seen, h.ID)
		}
	}
	slices.Sort(seen)
	seen = slices.Compact(seen)
	if len(seen) > MaxSeen {
		after = seen[len(seen)-MaxSeen-1]
		seen = seen[len(seen)-MaxSeen:]
	}
	return after, seen
}
