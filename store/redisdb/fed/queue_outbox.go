package fed

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// QueueFedEvent queues a local event for the outbound runner
// (fed:outbox).
func (q *Queue) QueueFedEvent(ctx context.Context, e store.FedEvent) error {
	if e.At == 0 {
		e.At = q.now()
	}
	err := q.rdb.XAdd(ctx, &redis.XAddArgs{Stream: q.keys.FedOutbox(), Values: schema.FedEventEntry(e)}).Err()
	if err != nil {
		return fmt.Errorf("store: queue federation event: %w", err)
	}
	return nil
}

// MarkFedFans sets uid's fed_fans field.
func (q *Queue) MarkFedFans(ctx context.Context, uid int64) error {
	if err := q.rdb.HSet(ctx, q.keys.User(uid), schema.FieldFedFans, "1").Err(); err != nil {
		return fmt.Errorf("store: mark remote followers: %w", err)
	}
	return nil
}

// FanIDs are the uids of uid's followers from rank offset on, n at most,
// oldest first: the outbound runner walks them for the remote ones.
func (q *Queue) FanIDs(ctx context.Context, uid, offset, n int64) ([]int64, error) {
	ids, err := q.rdb.ZRange(ctx, q.keys.Fans(uid), offset, offset+n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("store: read followers: %w", err)
	}
	out := make([]int64, 0, len(ids))
	for _, s := range ids {
		out = append(out, schema.ParseID(s))
	}
	return out, nil
}

// HasFedFans tells whether uid's fed_fans field is set.
func (q *Queue) HasFedFans(ctx context.Context, uid int64) (bool, error) {
	v, err := q.rdb.HGet(ctx, q.keys.User(uid), schema.FieldFedFans).Result()
	if err != nil && err != redis.Nil {
		return false, fmt.Errorf("store: read remote followers mark: %w", err)
	}
	return v == "1", nil
}
