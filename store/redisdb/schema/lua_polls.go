package schema

import _ "embed"

// The Lua script of polls (lua/poll_vote.lua), touching one poll's keys
// only, which share its post's hash tag.
var (
	//go:embed lua/poll_vote.lua
	pollVoteSrc string
	PollVote    = newScript(pollVoteSrc)
)
