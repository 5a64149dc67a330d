package schema

// The keys of polls. A poll's id is its post's, and its keys carry the
// post's hash tag on a cluster (poll:{12}), beside B:{12}: the vote script
// touches one slot. They are not the message's own keys (B, D, E): they stay
// in Redis when the message leaves the hot window for the archive, so that
// an archived post's poll still counts its votes (docs/redis-keys.md,
// "Polls").

// PollVotes is the HASH poll:<mid> of a poll's counts and the rules its
// vote script checks: n (how many options), multiple ("1" or absent),
// expires (unix ms), c0 … c3 (the votes of each option) and voters.
func (k Keys) PollVotes(mid int64) string { return k.prefix + "poll:" + k.tag(mid) }

// PollVoters is the HASH poll:<mid>:voters of who voted: uid → the
// indexes chosen, comma-separated ("0,2").
func (k Keys) PollVoters(mid int64) string { return k.prefix + "poll:" + k.tag(mid) + ":voters" }

// PollLive is the STRING poll:<mid>:live, set with a short TTL by the vote
// that opens a window of the poll's live updates: the process whose vote
// set it publishes the counts once the window is over, and the votes that
// find it set publish nothing (redisdb/polls_live.go).
func (k Keys) PollLive(mid int64) string { return k.prefix + "poll:" + k.tag(mid) + ":live" }

// Fields of PollVotes.
const (
	FieldPollOptions  = "n"
	FieldPollMultiple = "multiple"
	FieldPollExpires  = "expires"
	FieldPollVoters   = "voters"
)

// FieldPollCount is the field of PollVotes counting option i's votes.
func FieldPollCount(i int) string { return "c" + string(rune('0'+i)) }

// FieldPoll of a message hash (B:<mid>) is its poll's definition, JSON
// store.PollDefinition; absent when it has none.
const FieldPoll = "poll"
