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

var _ store.RemotePolls = (*Store)(nil)
