package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of a poll (CONTRACT.md §15), which the Mastodon instance
// configuration announces too.
const (
	MinPollOptions   = 2
	MaxPollOptions   = 4
	MaxPollOptionLen = 50     // characters of one option
	MinPollExpiry    = 300    // seconds a poll stays open, at least
	MaxPollExpiry    = 604800 // and at most (a week)
)

// Codes of polls.
const (
	CodeInvalidPoll    Code = "invalid_poll"    // ErrUnprocessable
	CodeInvalidChoices Code = "invalid_choices" // ErrUnprocessable
	CodePollExpired    Code = "poll_expired"    // ErrUnprocessable
	CodeAlreadyVoted   Code = "already_voted"   // ErrConflict
	CodePollNotFound   Code = "poll_not_found"  // ErrNotFound
)

// Errors of votes.
var (
	ErrPollExpired  = NewError(ErrUnprocessable, CodePollExpired, "the poll has closed")
	ErrAlreadyVoted = NewError(ErrConflict, CodeAlreadyVoted, "you have voted in this poll already")
	ErrPollNotFound = NewError(ErrNotFound, CodePollNotFound, "no such poll")
)

// NewPoll is the poll a new post carries, as POST /posts takes it.
type NewPoll struct {
	Options   []string `json:"options"`
	ExpiresIn int64    `json:"expires_in"` // seconds
	Multiple  bool     `json:"multiple"`
}

// Check applies the contract's rules to a new poll: 2 to 4 options of 1 to
// 50 characters (trimmed, distinct), open 300 to 604800 seconds. The
// options come back trimmed.
func (np *NewPoll) Check() error {
	bad := func(msg string) error { return NewError(ErrUnprocessable, CodeInvalidPoll, msg) }
	if n := len(np.Options); n < MinPollOptions || n > MaxPollOptions {
		return bad(fmt.Sprintf("a poll has %d to %d options", MinPollOptions, MaxPollOptions))
	}
	seen := make(map[string]bool, len(np.Options))
	for i, o := range np.Options {
		if !utf8.ValidString(o) || strings.ContainsRune(o, 0) {
			return bad("a poll option is not valid UTF-8 text")
		}
		o = strings.TrimSpace(o)
		if n := utf8.RuneCountInString(o); n == 0 || n > MaxPollOptionLen {
			return bad(fmt.Sprintf("each poll option is 1 to %d characters", MaxPollOptionLen))
		}
		if seen[o] {
			return bad("the options of a poll must differ")
		}
		seen[o] = true
		np.Options[i] = o
	}
	if np.ExpiresIn < MinPollExpiry || np.ExpiresIn > MaxPollExpiry {
		return bad(fmt.Sprintf("a poll stays open %d to %d seconds (expires_in)", MinPollExpiry, MaxPollExpiry))
	}
	return nil
}

// Poll is the contract's Poll object, a post's poll as one reader sees it.
// Its id is its post's. Voted and OwnVotes are nil for anonymous readers
// (and in live events, which everyone gets alike).
type Poll struct {
	ID          int64        `json:"id"`
	Options     []PollOption `json:"options"`
	ExpiresAt   Time         `json:"expires_at"`
	Expired     bool         `json:"expired"`
	Multiple    bool         `json:"multiple"`
	VotesCount  int64        `json:"votes_count"`
	VotersCount int64        `json:"voters_count"`
	Voted       *bool        `json:"voted"`
	OwnVotes    []int        `json:"own_votes"`
}

// PollOption is one option of a poll and its votes.
type PollOption struct {
	Title      string `json:"title"`
	VotesCount int64  `json:"votes_count"`
}

// PollDefinition is what a post keeps of its poll with its text (in its
// Redis hash and its archive row, as JSON): the options and when it closes.
// The votes are kept apart (docs/redis-keys.md, "Polls").
type PollDefinition struct {
	Options   []string `json:"options"`
	ExpiresAt int64    `json:"expires_at"` // unix ms
	Multiple  bool     `json:"multiple,omitempty"`
}

// JSON is d as a post keeps it.
func (d PollDefinition) JSON() string {
	raw, _ := json.Marshal(d)
	return string(raw)
}

// ParsePollDefinition reads a post's poll field; nil when it has none.
func ParsePollDefinition(field string) *PollDefinition {
	if field == "" {
		return nil
	}
	var d PollDefinition
	if json.Unmarshal([]byte(field), &d) != nil || len(d.Options) == 0 {
		return nil
	}
	return &d
}

// Poll is the poll of post mid with no votes counted yet, as of now (unix ms).
func (d PollDefinition) Poll(mid, now int64) *Poll {
	p := &Poll{ID: mid, ExpiresAt: Time(d.ExpiresAt), Multiple: d.Multiple,
		Options: make([]PollOption, len(d.Options))}
	for i, o := range d.Options {
		p.Options[i].Title = o
	}
	p.Expired = now >= d.ExpiresAt
	return p
}

// SetCounts sets the votes of each option (counts[i] for option i) and the
// voters, and the totals.
func (p *Poll) SetCounts(counts []int64, voters int64) {
	p.VotesCount = 0
	for i := range p.Options {
		if i < len(counts) {
			p.Options[i].VotesCount = counts[i]
		}
		p.VotesCount += p.Options[i].VotesCount
	}
	p.VotersCount = voters
}

// CheckChoices checks a vote's choices against the poll: at least one, each
// an option's index, once; exactly one unless the poll is multiple-choice.
func (p *Poll) CheckChoices(choices []int) error {
	bad := func(msg string) error { return NewError(ErrUnprocessable, CodeInvalidChoices, msg) }
	if len(choices) == 0 {
		return bad("choose at least one option (choices)")
	}
	if !p.Multiple && len(choices) > 1 {
		return bad("this poll takes one choice")
	}
	seen := make(map[int]bool, len(choices))
	for _, c := range choices {
		if c < 0 || c >= len(p.Options) {
			return bad(fmt.Sprintf("a choice is the index of an option, 0 to %d", len(p.Options)-1))
		}
		if seen[c] {
			return bad("each option can be chosen once")
		}
		seen[c] = true
	}
	return nil
}

// PollData is the data of the live event poll: a post's poll's counts now
// (Voted and OwnVotes null), and whose post it is (PostRef), so that it
// reaches only whom may see the post.
type PollData struct {
	PostID int64 `json:"post_id"`
	Poll   *Poll `json:"poll"`
	PostRef
}

// EventPoll is the live event of a poll's new counts, on author:<uid>: at
// most a few a second per poll, however fast votes come.
const EventPoll = "poll"

// Polls are the votes in posts' polls.
type Polls interface {
	// Vote records viewer's vote in the poll of post id (its poll's id):
	// once (409 already_voted), while it is open (422 poll_expired), the
	// choices as the poll takes them (422 invalid_choices); a post viewer
	// may not see is 404 post_not_found. It returns the poll as viewer now
	// sees it.
	Vote(ctx context.Context, viewer, id int64, choices []int) (Poll, error)
	// Poll returns the poll of post id as viewer sees it (404
	// post_not_found, or poll_not_found when the post has none).
	Poll(ctx context.Context, viewer, id int64) (Poll, error)
}
