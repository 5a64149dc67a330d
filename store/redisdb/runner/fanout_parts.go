package runner

import (
	"context"
	"strconv"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// A push (or unpush) to more than PartFans fans is split, so that every
// worker of every process takes a part of it instead of one worker walking
// them all. The worker that takes the job cuts the author's fans into spans
// of about PartFans by follow time (the scores at every PartFans-th rank),
// records the part numbers in fanout:left:<mid> (a push's only), queues
// one entry a part on fanout:parts, and only then acknowledges the job,
// without its pending mark. Any worker then takes a part (one at a time:
// a part is long enough to pay for its read), pushes the post to the fans
// of its span, checks the post still exists as a whole push does, removes
// its number from fanout:left:<mid>, and acknowledges it. The part that
// finds the set empty ends the post's push: its acknowledgement takes the
// post out of fanout:pending. Every step is idempotent (SADD and SREM of a
// part number, ZADD and ZREM of the post), so a part done twice, or a job
// split again after its process died, changes nothing; a part whose
// process died is taken over after ClaimIdle, as any job is.
//
// Spans are of follow times, not ranks: a follow or an unfollow while the
// parts run moves no fan from one part to another, so none is skipped.
// Fans who followed in the same millisecond are in the same part, which may
// then be bigger than PartFans.

// PartFans is about how many fans one part of a split job walks: ten
// script calls (or pipelines) of FanOutBatch.
const PartFans = 10 * FanOutBatch

// split queues the parts of job j when its author has more than PartFans
// fans, and tells whether it did. The job is then done, but its push is not
// (j.settles goes false).
func (f *FanOut) split(ctx context.Context, j *schema.Job) (bool, error) {
	n, err := f.rdb.ZCard(ctx, f.keys.Fans(j.Author)).Result()
	if err != nil {
		return false, f.s.Wrap("fan out: split: count fans", err)
	}
	if n <= PartFans {
		return false, nil
	}
	spans, err := f.spans(ctx, j.Author, n)
	if err != nil || len(spans) < 2 {
		return false, err
	}
	if j.Op == schema.OpPush {
		// Before any part is queued: on a cluster the set and the stream
		// are on different masters, and a part must not find the set empty
		// before it was filled.
		nums := make([]any, len(spans))
		for i := range spans {
			nums[i] = i
		}
		if err := f.rdb.SAdd(ctx, f.keys.FanOutPartsLeft(j.Mid), nums...).Err(); err != nil {
			return false, f.s.Wrap("fan out: split", err)
		}
	}
	_, err = f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, sp := range spans {
			pl.XAdd(ctx, &redis.XAddArgs{Stream: f.keys.FanOutParts(), Values: schema.Job{Op: j.Op, Author: j.Author, Mid: j.Mid, At: j.At, Part: &schema.JobPart{N: i, Fans: sp}}.Values()})
		}
		return nil
	})
	if err != nil {
		return false, f.s.Wrap("fan out: split", err)
	}
	j.Settles = false
	return true, nil
}

// spans cuts the n fans of author into spans of about PartFans by follow
// time, in one round trip: each span ends at the follow time of every
// PartFans-th fan. A follow time shared past a cut joins one span.
func (f *FanOut) spans(ctx context.Context, author, n int64) ([]schema.Span, error) {
	var cuts []*redis.ZSliceCmd
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for r := int64(PartFans); r < n; r += PartFans {
			cuts = append(cuts, pl.ZRangeWithScores(ctx, f.keys.Fans(author), r, r))
		}
		return nil
	})
	if err != nil {
		return nil, f.s.Wrap("fan out: split: read fans", err)
	}
	var spans []schema.Span
	lo := schema.AllFans.Lo
	for _, c := range cuts {
		zs := c.Val()
		if len(zs) == 0 {
			break // fewer fans by now
		}
		hi := strconv.FormatFloat(zs[0].Score, 'f', -1, 64)
		if hi == lo {
			continue
		}
		spans = append(spans, schema.Span{Lo: lo, Hi: hi})
		lo = hi
	}
	return append(spans, schema.Span{Lo: lo, Hi: schema.AllFans.Hi}), nil
}

// doPart does the part of a split job that j is: the push or unpush of its
// post to the fans of its span. The part of a push that leaves none of its
// job's parts to do ends the post's push (j.settles).
func (f *FanOut) doPart(ctx context.Context, j *schema.Job, alive func()) error {
	if j.Op != schema.OpPush {
		return f.unpush(ctx, *j, alive)
	}
	if err := f.push(ctx, *j, alive); err != nil {
		return err
	}
	var left *redis.IntCmd
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.SRem(ctx, f.keys.FanOutPartsLeft(j.Mid), j.Part.N)
		left = pl.SCard(ctx, f.keys.FanOutPartsLeft(j.Mid))
		return nil
	})
	if err != nil {
		return f.s.Wrap("fan out: part done", err)
	}
	j.Settles = left.Val() == 0
	return nil
}

// doParts does the parts one read of fanout:parts took (one).
func (f *FanOut) doParts(ctx context.Context, msgs []redis.XMessage) {
	for _, m := range msgs {
		if ctx.Err() != nil {
			return // left pending, taken up again after ClaimIdle
		}
		f.do(ctx, schema.ParseJob(m))
	}
}
