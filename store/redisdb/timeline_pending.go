package redisdb

import (
	"context"
	"errors"
	"strconv"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// A post whose push job is queued but not done is in flight: its fans' G
// sets do not hold it yet, so home reads pull its author's F set meanwhile.
// The marks are kept per author's shard (Keys.PullShard): fanout:pending
// holds each post's mark (mid → author), fanout:pushing how many each
// author has, so that a reader asks about its own stars only (timeline_pulls.go),
// however long the queue. Both change together in one script, so that a
// mark made or taken twice counts once.

// markPending adds to pl the in-flight mark of author's post mid, in the
// pipeline that queues its push job.
func (s *Store) markPending(ctx context.Context, pl redis.Pipeliner, author, mid int64) {
	n := s.keys.PullShard(author)
	schema.PendingAdd.Eval(ctx, pl, []string{s.keys.FanOutPendingShard(n), s.keys.FanOutPushingShard(n)}, mid, author)
}

// UnmarkPending adds to pl the removal of the in-flight marks of the push
// jobs done that settle their post (a whole push, or the last part of a
// split one: job.settles), in the pipeline that acknowledges them: one
// script call per shard they touch.
func (s *Store) UnmarkPending(ctx context.Context, pl redis.Pipeliner, done []schema.Job) {
	byShard := make(map[int][]any)
	for _, j := range done {
		if j.Settles {
			n := s.keys.PullShard(j.Author)
			if byShard[n] == nil {
				byShard[n] = []any{0}
			}
			byShard[n] = append(byShard[n], j.Mid, j.Author)
		}
	}
	for n, args := range byShard {
		keys := []string{s.keys.FanOutPendingShard(n), s.keys.FanOutPushingShard(n)}
		if s.keys.PullShards() > 1 {
			keys = append(keys, s.keys.FanOutSettledShard(n))
			args[0] = s.settledKeep().Milliseconds()
		}
		schema.PendingDone.Eval(ctx, pl, keys, args...)
	}
}

// migratePulls builds, for schema 6, the readers' record of pulled authors
// from what schema 5 kept: on a single Redis, the counts of fanout:pushing
// from the marks of fanout:pending (its one shard); on a cluster, the marks
// of fanout:pending moved into their authors' shards, and
// global:celebrities copied into its shards. Processes of an older version
// still running meanwhile mark and unmark in fanout:pending alone: a mark
// they make is seen only once their post is pushed, one they take leaves its
// author pulled by its fans until migrated again, which costs reads but
// loses nothing.
func (s *Store) migratePulls(ctx context.Context) error {
	if s.keys.PullShards() == 1 {
		err := schema.PendingRecount.Run(ctx, s.rdb, []string{s.keys.FanOutPendingShard(0), s.keys.FanOutPushingShard(0)}).Err()
		return s.Wrap("migrate in-flight marks", err)
	}
	celebs, err := s.rdb.SMembers(ctx, s.keys.Celebrities()).Result()
	if err != nil {
		return s.Wrap("migrate celebrities", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, c := range celebs {
			pl.SAdd(ctx, s.keys.CelebritiesShard(s.keys.PullShard(parseID(c))), c)
		}
		return nil
	})
	if err != nil {
		return s.Wrap("migrate celebrities", err)
	}
	var cursor uint64
	for {
		kv, next, err := s.rdb.HScan(ctx, s.keys.FanOutPending(), cursor, "", 1000).Result()
		if err != nil {
			return s.Wrap("migrate in-flight marks", err)
		}
		if err := s.moveMarks(ctx, kv); err != nil {
			return err
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// moveMarks moves marks of the whole fanout:pending (field, value pairs
// as HSCAN gives them) into their shards.
func (s *Store) moveMarks(ctx context.Context, kv []string) error {
	var mids []string
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i := 0; i+1 < len(kv); i += 2 {
			mid, err1 := strconv.ParseInt(kv[i], 10, 64)
			author, err2 := strconv.ParseInt(kv[i+1], 10, 64)
			if errors.Join(err1, err2) == nil {
				s.markPending(ctx, pl, author, mid)
			}
			mids = append(mids, kv[i])
		}
		return nil
	})
	if err == nil && len(mids) > 0 {
		err = s.rdb.HDel(ctx, s.keys.FanOutPending(), mids...).Err()
	}
	return s.Wrap("migrate in-flight marks", err)
}
