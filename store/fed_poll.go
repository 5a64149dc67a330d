package store

import "context"

// RemotePolls keeps the counts of remote polls (federation): a Question's
// counts are its server's, sent with it and with its Updates, and replace
// what is counted here.
type RemotePolls interface {
	// SetPollCounts sets the votes of each option of post mid's poll
	// (counts[i] for option i) and its voters; nothing when the post has
	// no poll (or no longer has one).
	SetPollCounts(ctx context.Context, mid int64, counts []int64, voters int64) error
}
