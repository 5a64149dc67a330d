package redisdb

import (
	"context"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// queueJob adds a job to a pipeline (the one that indexes its message). A
// push is also recorded as pending until done.
func (s *Store) queueJob(ctx context.Context, pl redis.Pipeliner, op string, author, mid int64) {
	if op == schema.OpPush {
		s.markPending(ctx, pl, author, mid)
	}
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.FanOutQueue(), Values: schema.Job{Op: op, Author: author, Mid: mid, At: s.Now()}.Values()})
}
