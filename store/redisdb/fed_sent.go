package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// RememberActivity keeps an activity id of uid's (store.SentActivities).
func (s *Store) RememberActivity(ctx context.Context, uid int64, what, id string) error {
	if err := s.rdb.HSet(ctx, s.keys.FedActivities(uid), what, id).Err(); err != nil {
		return s.Wrap("remember activity", err)
	}
	return nil
}

// TakeActivity returns an activity id of uid's and forgets it, in one
// transaction.
func (s *Store) TakeActivity(ctx context.Context, uid int64, what string) (string, error) {
	var get *redis.StringCmd
	_, err := s.rdb.TxPipelined(ctx, func(pl redis.Pipeliner) error {
		get = pl.HGet(ctx, s.keys.FedActivities(uid), what)
		pl.HDel(ctx, s.keys.FedActivities(uid), what)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.Wrap("take activity", err)
	}
	id, _ := get.Result()
	return id, nil
}

var _ store.SentActivities = (*Store)(nil)
