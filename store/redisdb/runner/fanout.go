package runner

import (
	"context"
	"math"
	"strconv"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// FanOutBatch is how many fans one read of a walk takes, and how many home
// timelines one script call (or pipeline, on a cluster) writes, unless
// FanOutOptions.Batch says otherwise: a script of FanOutBatch fans keeps
// Redis busy a millisecond or two.
const FanOutBatch = 1000

// walkFans calls batch with the author's fans, a Batch at a time, in
// follow order; an error stops the walk.
func (f *FanOut) walkFans(ctx context.Context, author int64, batch func(fans []int64) error) error {
	return f.walkSpan(ctx, author, schema.AllFans, batch)
}

// walkSpan calls batch with the author's fans within sp, a Batch at a
// time, in follow order; an error stops the walk. It goes on from the last
// follow time seen (skipping the fans of that same millisecond already
// seen), not from a rank, so that unfollows during a long walk skip no one.
func (f *FanOut) walkSpan(ctx context.Context, author int64, sp schema.Span, batch func(fans []int64) error) error {
	from, skip := sp.Lo, int64(0)
	for {
		zs, err := f.rdb.ZRangeByScoreWithScores(ctx, f.keys.Fans(author), &redis.ZRangeBy{
			Min: from, Max: sp.Max(), Offset: skip, Count: int64(f.opt.Batch)}).Result()
		if err != nil {
			return f.s.Wrap("read fans", err)
		}
		fans := make([]int64, 0, len(zs))
		for _, z := range zs {
			if m, ok := z.Member.(string); ok {
				fans = append(fans, parseID(m))
			}
		}
		if len(fans) > 0 {
			if err := batch(fans); err != nil {
				return err
			}
		}
		if len(zs) < f.opt.Batch {
			return nil
		}
		last := zs[len(zs)-1].Score
		tied := int64(0)
		for i := len(zs) - 1; i >= 0 && zs[i].Score == last; i-- {
			tied++
		}
		if next := strconv.FormatFloat(last, 'f', -1, 64); next == from {
			skip += tied // a whole batch of one millisecond
		} else {
			from, skip = next, tied
		}
	}
}

// push delivers post j.mid into the home timelines of j.author's fans that
// were active when it was written (a fan never seen counts as active). Only
// posts whose author was pushed when they were claimed get a push job, and
// the job pushes even if the author has since become a celebrity: promote's
// pull_from counts on it.
//
// A post deleted while its push ran has its unpush job, which may have run
// before some of these pushes: so a push that finds its post gone at the end
// takes it out again itself.
func (f *FanOut) push(ctx context.Context, j schema.Job, alive func()) error {
	if err := f.pushSpan(ctx, j.Author, []int64{j.Mid}, j.At, j.Fans(), alive); err != nil {
		return err
	}
	gone, err := f.gone(ctx, []int64{j.Mid}) // an archived post is not gone
	if err != nil {
		return err
	}
	if gone[0] {
		return f.unpush(ctx, j, alive)
	}
	return nil
}

// pushIDs pushes mids into the home timelines of author's fans seen since
// at−InactiveAfter (or never seen); with at 0, into every fan's. Each batch
// of fans is pushed as pushToFans pushes a batch of jobs.
func (f *FanOut) pushIDs(ctx context.Context, author int64, mids []int64, at int64, alive func()) error {
	return f.pushSpan(ctx, author, mids, at, schema.AllFans, alive)
}

// pushSpan is pushIDs to the fans within sp only.
func (f *FanOut) pushSpan(ctx context.Context, author int64, mids []int64, at int64, sp schema.Span, alive func()) error {
	jobs := make([]schema.Job, len(mids))
	for i, m := range mids {
		jobs[i] = schema.Job{Op: schema.OpPush, Author: author, Mid: m, At: at}
	}
	return f.walkSpan(ctx, author, sp, func(fans []int64) error {
		if err := f.pushToFans(ctx, jobs, map[int64][]int64{author: fans}); err != nil {
			return err
		}
		alive()
		return nil
	})
}

// activeSince is the last-seen time (unix ms) before which a fan counts as
// away for a post written at at: InactiveAfter before it. With at 0, no fan
// is away.
func (f *FanOut) activeSince(at int64) float64 {
	if at == 0 {
		return math.Inf(-1)
	}
	return float64(at - f.s.InactiveAfter().Milliseconds())
}

// unpush takes deleted post j.mid out of the home timeline of every fan (of
// j's span, for a part of a split job).
func (f *FanOut) unpush(ctx context.Context, j schema.Job, alive func()) error {
	return f.walkSpan(ctx, j.Author, j.Fans(), func(fans []int64) error {
		_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, fan := range fans {
				pl.ZRem(ctx, f.keys.Home(fan), j.Mid)
			}
			return nil
		})
		if err != nil {
			return f.s.Wrap("delete post: fans", err)
		}
		f.opt.Metrics.Pushes.Add(float64(len(fans)))
		alive()
		return nil
	})
}
