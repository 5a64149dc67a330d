package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// setPollCounts sets fields of a poll's counting hash when it still
// exists (a deleted post's poll is not made again).
var setPollCounts = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`)

// SetPollCounts sets the counts of a remote post's poll (store.RemotePolls),
// as its server reports them.
func (s *Store) SetPollCounts(ctx context.Context, mid int64, counts []int64, voters int64) error {
	args := []any{schema.FieldPollVoters, max(voters, 0)}
	for i, n := range counts {
		if i == store.MaxPollOptions {
			break
		}
		args = append(args, schema.FieldPollCount(i), max(n, 0))
	}
	if err := setPollCounts.Run(ctx, s.rdb, []string{s.keys.PollVotes(mid)}, args...).Err(); err != nil {
		return s.Wrap("set poll counts", err)
	}
	return nil
}

// AddVote records one choice of voter's vote in the poll of local post
// mid (store.RemotePolls): a remote voter's, which its server sends one
// choice at a time. The post is read as voter sees it (404 when it may
// not); then one script (poll_vote_add.lua).
func (s *Store) AddVote(ctx context.Context, voter, mid int64, choice int) (store.Poll, error) {
	post, err := s.Post(context.WithValue(ctx, noPollCountsKey{}, true), mid, voter)
	if err != nil {
		return store.Poll{}, err
	}
	p := post.Poll
	if p == nil {
		return store.Poll{}, store.ErrPollNotFound
	}
	if p.Expired {
		return store.Poll{}, store.ErrPollExpired
	}
	keys := []string{s.keys.PollVotes(mid), s.keys.PollVoters(mid), s.keys.PollLive(mid)}
	res, err := schema.PollVoteAdd.Run(ctx, s.rdb, keys, s.Now(), voter, pollWindow.Milliseconds(), choice).Int64Slice()
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
		return store.Poll{}, store.NewError(store.ErrUnprocessable, store.CodeInvalidChoices, "that choice is not one of the poll's options")
	}
	p.SetCounts(res[3:], res[2])
	if res[1] == 1 {
		s.livePoll(&post)
	}
	return *p, nil
}

var _ store.RemotePolls = (*Store)(nil)
