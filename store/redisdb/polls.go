package redisdb

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Where polls live. A post's poll is two things: its definition (options,
// closing time, multiple choice), a field of the message's hash that goes
// to the archive with the message's row; and its votes, in keys of its own
// (poll:<mid> counts them, poll:<mid>:voters says who chose what), under
// the post's hash tag. The votes' keys are not the message's: the archiver
// leaves them when it moves the message out of Redis, so a poll on an
// archived post takes votes and shows its counts as a hot one does (a
// reader finds the definition in the archive row and the counts in Redis).
// They go when the post is deleted. A vote is one script on them
// (poll_vote.lua), one round trip; its live update is coalesced
// (polls_live.go).

// newPollOf is the poll of a new post mid written at now (unix ms), as its
// author sees it: no votes, not voted; nil without one.
func newPollOf(np *store.NewPoll, mid, now int64) *store.Poll {
	if np == nil {
		return nil
	}
	d := store.PollDefinition{Options: np.Options, ExpiresAt: now + np.ExpiresIn*1000, Multiple: np.Multiple}
	p := d.Poll(mid, now)
	no := false
	p.Voted, p.OwnVotes = &no, []int{}
	return p
}

// pollDefinition is what the message's hash keeps of poll p.
func pollDefinition(p *store.Poll) store.PollDefinition {
	d := store.PollDefinition{ExpiresAt: int64(p.ExpiresAt), Multiple: p.Multiple}
	for _, o := range p.Options {
		d.Options = append(d.Options, o.Title)
	}
	return d
}

// queuePollKeys queues the writes of a new poll's counting hash, beside
// its message's hash (the same slot).
func (s *Store) queuePollKeys(ctx context.Context, pl redis.Pipeliner, p *store.Poll) {
	args := []any{schema.FieldPollOptions, len(p.Options), schema.FieldPollExpires, int64(p.ExpiresAt),
		schema.FieldPollVoters, 0}
	if p.Multiple {
		args = append(args, schema.FieldPollMultiple, "1")
	}
	for i := range p.Options {
		args = append(args, schema.FieldPollCount(i), 0)
	}
	pl.HSet(ctx, s.keys.PollVotes(p.ID), args...)
}

// queuePollDelete queues the removal of the votes of post mid's poll.
func (s *Store) queuePollDelete(ctx context.Context, pl redis.Pipeliner, mid int64) {
	pl.Del(ctx, s.keys.PollVotes(mid), s.keys.PollVoters(mid))
}

// pollFields are the fields of PollVotes a reader asks for, in order.
var pollFields = []string{schema.FieldPollVoters, schema.FieldPollCount(0), schema.FieldPollCount(1),
	schema.FieldPollCount(2), schema.FieldPollCount(3)}

// fillPolls sets the counts of the polls of posts (and of the originals of
// reposts among them), whether each has closed, and, for a viewer who is
// not anonymous, whether and how it voted: one round trip, only when the
// page has a poll.
func (s *Store) fillPolls(ctx context.Context, posts []*store.Post, viewer int64) error {
	now := s.Now()
	var polls []*store.Poll
	for _, p := range posts {
		if p == nil {
			continue
		}
		if p.Poll != nil {
			polls = append(polls, p.Poll)
		}
		if o := p.RepostOf; o != nil && o.Poll != nil {
			polls = append(polls, o.Poll)
		}
	}
	for _, p := range polls {
		p.Expired = now >= int64(p.ExpiresAt)
	}
	if len(polls) == 0 || ctx.Value(noPollCountsKey{}) != nil {
		return nil
	}
	counts := make([]*redis.SliceCmd, len(polls))
	votes := make([]*redis.StringCmd, len(polls))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, p := range polls {
			counts[i] = pl.HMGet(ctx, s.keys.PollVotes(p.ID), pollFields...)
			if viewer > 0 {
				votes[i] = pl.HGet(ctx, s.keys.PollVoters(p.ID), id(viewer))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.Wrap("load polls", err)
	}
	for i, p := range polls {
		v := counts[i].Val()
		if len(v) == len(pollFields) {
			n := make([]int64, len(v)-1)
			for j := range n {
				n[j] = parseInt(v[j+1])
			}
			p.SetCounts(n, parseInt(v[0]))
		}
		if viewer > 0 {
			chose, _ := votes[i].Result()
			own := parseChoices(chose)
			voted := chose != ""
			p.Voted, p.OwnVotes = &voted, own
		}
	}
	return nil
}

// noPollCountsKey marks a context whose reads leave polls' counts and the
// reader's votes unread: a vote's read of its post, whose script answers
// them.
type noPollCountsKey struct{}

// parseChoices reads a voter's entry of PollVoters ("0,2").
func parseChoices(s string) []int {
	out := []int{}
	if s == "" {
		return out
	}
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// Poll returns the poll of post mid as viewer sees it.
func (s *Store) Poll(ctx context.Context, viewer, mid int64) (store.Poll, error) {
	p, err := s.Post(ctx, mid, viewer)
	if err != nil {
		return store.Poll{}, err
	}
	if p.Poll == nil {
		return store.Poll{}, store.ErrPollNotFound
	}
	return *p.Poll, nil
}

// Vote records viewer's vote in the poll of post mid (store.Polls): the
// post is read as viewer sees it (404 when it may not), then the vote is
// one script (poll_vote.lua), whose answer carries the new counts, so the
// read leaves them (and whether viewer voted: the script knows) unread: a
// vote costs the round trips of reading a post without a poll, one of
// them the script's. The
// vote that opens a window of live updates has its process publish the
// counts when the window closes (polls_live.go).
func (s *Store) Vote(ctx context.Context, viewer, mid int64, choices []int) (store.Poll, error) {
	post, err := s.Post(context.WithValue(ctx, noPollCountsKey{}, true), mid, viewer)
	if err != nil {
		return store.Poll{}, err
	}
	p := post.Poll
	if p == nil {
		return store.Poll{}, store.ErrPollNotFound
	}
	if err := p.CheckChoices(choices); err != nil {
		return store.Poll{}, err
	}
	if p.Expired {
		return store.Poll{}, store.ErrPollExpired
	}
	args := []any{s.Now(), viewer, pollWindow.Milliseconds()}
	for _, c := range choices {
		args = append(args, c)
	}
	keys := []string{s.keys.PollVotes(mid), s.keys.PollVoters(mid), s.keys.PollLive(mid)}
	res, err := schema.PollVote.Run(ctx, s.rdb, keys, args...).Int64Slice()
	if err != nil {
		return store.Poll{}, s.Wrap("vote", err)
	}
	switch res[0] {
	case -1:
		return store.Poll{}, store.ErrPollExpired
	case -2:
		return store.Poll{}, store.ErrAlreadyVoted
	case -3:
		return store.Poll{}, store.ErrPollNotFound
	case -4:
		return store.Poll{}, store.NewError(store.ErrUnprocessable, store.CodeInvalidChoices, "those choices are not the poll's options")
	}
	p.SetCounts(res[3:], res[2])
	yes := true
	p.Voted, p.OwnVotes = &yes, append([]int{}, choices...)
	if res[1] == 1 {
		s.livePoll(&post)
	}
	return *p, nil
}
