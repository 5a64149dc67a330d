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
