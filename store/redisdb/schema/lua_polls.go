package schema

import _ "embed"

// The Lua scripts of polls (lua/poll_vote.lua, lua/poll_vote_add.lua),
// touching one poll's keys only, which share its post's hash tag.
var (
	//go:embed lua/poll_vote.lua
	pollVoteSrc string
	PollVote    = newScript(pollVoteSrc)

	//go:embed lua/poll_vote_add.lua
	pollVoteAddSrc string
	PollVoteAdd    = newScript(pollVoteAddSrc)
)
