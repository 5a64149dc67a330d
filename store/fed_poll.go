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
	// AddVote records one choice of a remote voter's vote in the poll of
	// local post mid, as its server sends them (one Note per choice): the
	// first makes it a voter, a later one is added to its vote in a poll of
	// several choices (ErrAlreadyVoted otherwise, or for a choice it made
	// already). Errors as Vote's.
	AddVote(ctx context.Context, voter, mid int64, choice int) (Poll, error)
}
