package redisdb

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// queueHomeAdd adds a post to a home timeline and trims it to the hot window.
func (s *Store) queueHomeAdd(ctx context.Context, pl redis.Pipeliner, uid int64, z redis.Z) {
	pl.ZAdd(ctx, s.keys.home(uid), z)
	pl.ZRemRangeByRank(ctx, s.keys.home(uid), 0, int64(-s.opt.HotWindow-1))
}

// fanOutBatch is how many fans' home timelines one pipeline writes.
const fanOutBatch = 500

// unFanOut takes a deleted post out of the fans' home timelines, then
// publishes the delete.
func (s *Store) unFanOut(ctx context.Context, author, mid int64) error {
	return s.eachFanBatch(ctx, "delete post: fans", author, nil, func(pl redis.Pipeliner, fan int64) {
		pl.ZRem(ctx, s.keys.home(fan), mid)
	}, func(pl redis.Pipeliner) {
		s.queuePublish(ctx, pl, s.keys.AuthorChannel(author), store.EventDelete, store.DeleteData{ID: mid})
	})
}

// eachFanBatch walks the author's fans fanOutBatch at a time, starting with
// first when the caller has already read the first batch, and sends one
// pipeline per batch of the commands write queues for each fan. last, if
// set, queues commands at the end of the final pipeline.
func (s *Store) eachFanBatch(ctx context.Context, op string, author int64, first []string,
	write func(redis.Pipeliner, int64), last func(redis.Pipeliner)) error {
	fans := first
	for start := int64(0); ; start += fanOutBatch {
		if start > 0 || fans == nil {
			var err error
			if fans, err = s.rdb.ZRange(ctx, s.keys.fans(author), start, start+fanOutBatch-1).Result(); err != nil {
				return s.wrap(op, err)
			}
		}
		final := len(fans) < fanOutBatch
		if len(fans) == 0 && last == nil {
			return nil
		}
		_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, f := range fans {
				if fan, err := strconv.ParseInt(f, 10, 64); err == nil {
					write(pl, fan)
				}
			}
			if final && last != nil {
				last(pl)
			}
			return nil
		})
		if err != nil {
			return s.wrap(op, err)
		}
		if final {
			return nil
		}
	}
}
