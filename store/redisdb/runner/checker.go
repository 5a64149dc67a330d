package runner

import (
	"context"
	"crypto/rand"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/internal/retry"
	"microblog/store/redisdb/schema"
)

// The checker of half-written messages: the write path's safety net.
//
// Create writes a message's own keys (B, D, E), then its indexes and
// counters in one pipeline, and takes the message out again when that fails
// (unwrite). What a process that stopped, or a Redis that stopped answering,
// leaves behind all the same, the checker mends. Every server process runs
// one (Checker), one at a time under a lock; each run walks the message ids
// issued since the last run's checkpoint up to global:postid, at most Batch
// of them, and leaves the ones younger than Grace, which a request may still
// be writing, to the next run:
//
//   - a message no index points at is indexed as Create would have (a post
//     into F, its author's G, the public timeline, with its fan-out job and
//     live event; a comment into its parent's C set), unless another request
//     holds its Idempotency-Key by now (its retry made the post that
//     stands): then it is removed entirely;
//   - so is an indexed message whose Idempotency-Key another request holds
//     (a write that landed after its request gave up and gave its claim
//     back, see settle); an indexed one whose key holds nothing else gets
//     its result recorded, should its request have stopped before;
//   - a message's comments_count and reposts_count are set to the sizes of
//     the sets they count (C:<mid>:commentID, reposts:<mid>);
//   - D and E keys without their B (a delete that stopped half way) go.
//
// Then it walks the private messages the same way, from a checkpoint of
// their own (checker_dm.go), and reconsiders the fan-out mode of every
// author in global:celebrities (checker_modes.go). Every step is
// idempotent, so a run cut short, or two at once, do no harm.

// repairLockTTL bounds how long a process that died mid-run keeps the others
// from checking.
const repairLockTTL = 2 * time.Minute

// repairChunk is how many ids one round trip reads.
const repairChunk = 100

// Checker is one process's checker of half-written messages.
type Checker struct {
	base
	opt CheckerOptions
}

// NewChecker returns the checker of st's process; Run runs it every
// Interval, Check once.
func NewChecker(st Ops, opt CheckerOptions) *Checker {
	return &Checker{base: newBase(st), opt: opt.withDefaults()}
}

// Run runs the checker every Interval until ctx ends.
func (c *Checker) Run(ctx context.Context) {
	retry.Every(ctx, c.opt.Interval, func() {
		n, err := c.Check(ctx)
		if err != nil && ctx.Err() == nil {
			c.opt.Logger.Warn("repair: run failed, the next one goes on from its checkpoint", "err", err)
		}
		if n > 0 {
			c.opt.Logger.Warn("repair: mended what stopped writes left", "repairs", n)
		}
	})
}

// Check runs the checker once, unless another process is running it, and
// returns how many repairs it made.
func (c *Checker) Check(ctx context.Context) (int, error) {
	s := c.s
	token := rand.Text()
	ok, err := c.rdb.SetNX(ctx, c.keys.RepairLock(), token, repairLockTTL).Result()
	if err != nil {
		return 0, s.Wrap("repair: lock", err)
	}
	if !ok {
		return 0, nil
	}
	defer schema.DelIfEquals.Run(context.WithoutCancel(ctx), c.rdb, []string{c.keys.RepairLock()}, token)

	posts, err := c.pass(ctx, c.keys.RepairCheckpoint(), c.keys.LastPostID(), c.checkRange)
	if err != nil {
		return posts, err
	}
	messages, err := c.pass(ctx, c.keys.RepairPostsCheckpoint(), c.keys.LastDMID(), c.checkDMRange)
	if err != nil {
		return posts + messages, err
	}
	modes, err := c.checkModes(ctx)
	return posts + messages + modes, err
}

// pass walks, in chunks, the ids issued since the checkpoint (the STRING
// checkpointKey) up to the newest (lastKey), at most Batch of them, with
// check; the checkpoint follows what was settled.
//
// An id with no message may be one a request has claimed and not written
// yet (the claim and the write are two round trips): it is settled only once
// a message after it is old enough to judge (its id was claimed later, so
// the missing one's request is long over), or once it is Batch ids below the
// newest. So a message written a moment after a run passed its id is still
// checked, and a pass goes on over such ids to the next chunk.
func (c *Checker) pass(ctx context.Context, checkpointKey, lastKey string, check chunkCheck) (int, error) {
	s := c.s
	var cp, last *redis.StringCmd
	cmds, err := c.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		cp = pl.Get(ctx, checkpointKey)
		last = pl.Get(ctx, lastKey)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return 0, s.Wrap("repair: checkpoint", err)
	}
	top := parseID(last.Val())
	from := parseID(cp.Val())
	if cp.Err() != nil { // the first run ever: from the newest ids on
		from = max(0, top-int64(c.opt.Batch))
	}
	to := min(top, from+int64(c.opt.Batch))
	floor := top - int64(c.opt.Batch)
	mended, done := 0, from
	for lo := from + 1; lo <= to; lo += repairChunk {
		hi := min(to, lo+repairChunk-1)
		r, err := check(ctx, lo, hi, floor)
		mended += r.mended
		done = max(done, r.settled)
		if err != nil || r.stop {
			if err == nil || done > from {
				c.rdb.Set(ctx, checkpointKey, done, 0)
			}
			return mended, err
		}
	}
	if done > from {
		if err := c.rdb.Set(ctx, checkpointKey, done, 0).Err(); err != nil {
			return mended, s.Wrap("repair: checkpoint", err)
		}
	}
	return mended, nil
}

// chunkCheck checks the ids lo to hi of one chunk; ids up to floor are
// settled even when they hold no message (see pass).
type chunkCheck func(ctx context.Context, lo, hi, floor int64) (chunkResult, error)

// chunkResult is what a chunkCheck did: how many repairs it made, the last
// id it settled (every id up to it is done), and whether the pass stops
// there (a message too young to judge, or a failure) rather than going on.
type chunkResult struct {
	mended  int
	settled int64
	stop    bool
}

// checkRange checks the messages lo to hi, in order (see chunkCheck).
func (c *Checker) checkRange(ctx context.Context, lo, hi, floor int64) (chunkResult, error) {
	s := c.s
	n := int(hi - lo + 1)
	msgs := make([]*redis.MapStringStringCmd, n)
	own := make([]*redis.IntCmd, n)
	_, err := c.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i := range n {
			mid := lo + int64(i)
			msgs[i] = pl.HGetAll(ctx, c.keys.Post(mid))
			own[i] = pl.Exists(ctx, c.keys.PublicTime(mid), c.keys.Author(mid))
		}
		return nil
	})
	r := chunkResult{settled: lo - 1}
	if err != nil {
		r.stop = true
		return r, s.Wrap("repair: read messages", err)
	}
	young := s.Now() - c.opt.Grace.Milliseconds()
	for i := range n {
		mid := lo + int64(i)
		var h schema.PostHash
		if len(msgs[i].Val()) == 0 || msgs[i].Scan(&h) != nil || h.Kind == "" {
			if len(msgs[i].Val()) == 0 && own[i].Val() > 0 {
				if err := c.rdb.Del(ctx, c.keys.PublicTime(mid), c.keys.Author(mid)).Err(); err != nil {
					r.stop = true
					return r, s.Wrap("repair: orphan keys", err)
				}
				c.repaired(schema.RepairOrphanKeys)
				r.mended++
			}
			if mid <= floor {
				r.settled = mid
			}
			continue // never written (or not yet), deleted or archived away
		}
		if h.Time > young {
			r.stop = true
			return r, nil
		}
		m, err := c.checkPost(ctx, mid, &h, msgs[i].Val()[schema.FieldIdem])
		r.mended += m
		if err != nil {
			r.stop = true
			return r, err
		}
		r.settled = mid
	}
	return r, nil
}

// checkPost checks one message that exists: that its index points at it
// and its counters equal their sets.
func (c *Checker) checkPost(ctx context.Context, mid int64, h *schema.PostHash, idem string) (int, error) {
	s := c.s
	author, parent := h.Author, parseID(h.Parent)
	var indexed *redis.FloatCmd
	var comments, reposts, fLen *redis.IntCmd
	var fFirst *redis.ZSliceCmd
	var won *redis.Cmd
	_, err := c.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if keys, args, ok := c.keys.IdemResult(author, mid, idem); ok {
			won = schema.IdemFinish.Eval(ctx, pl, keys, args...)
		}
		if parent != 0 {
			indexed = pl.ZScore(ctx, c.keys.Comments(parent), id(mid))
		} else {
			indexed = pl.ZScore(ctx, c.keys.UserPosts(author), id(mid))
			fLen = pl.ZCard(ctx, c.keys.UserPosts(author))
			fFirst = pl.ZRangeWithScores(ctx, c.keys.UserPosts(author), 0, 0)
		}
		comments = pl.ZCard(ctx, c.keys.Comments(mid))
		reposts = pl.ZCard(ctx, c.keys.Reposts(mid))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, s.Wrap("repair: read indexes", err)
	}
	if indexed.Err() == nil && won != nil && won.Val() == int64(0) {
		done, err := s.RemoveUnfinished(ctx, mid)
		return c.counted(schema.RepairRemoved, done, err)
	}
	if indexed.Err() == nil && h.Unfinished == "1" {
		done, err := s.ShowUnfinished(ctx, mid)
		return c.counted(schema.RepairShown, done, err)
	}
	if indexed.Err() == nil {
		return c.syncCounters(ctx, mid, h, comments.Val(), reposts.Val())
	}
	if parent == 0 && fLen.Val() >= int64(s.HotWindow()) &&
		len(fFirst.Val()) == 1 && float64(mid) < fFirst.Val()[0].Score {
		return 0, nil // trimmed out of the hot window, not missing
	}
	kind, err := s.IndexUnfinished(ctx, mid, idem)
	if err != nil || kind == "" {
		return 0, err
	}
	c.repaired(kind)
	return 1, nil
}

// syncCounters sets a message's comments_count and reposts_count to the
// sizes of the sets they count (comments and reposts), where they differ.
func (c *Checker) syncCounters(ctx context.Context, mid int64, h *schema.PostHash, comments, reposts int64) (int, error) {
	s := c.s
	mended := 0
	for _, n := range []struct {
		field, set string
		stored     int64
		size       int64
	}{
		{schema.FieldComments, c.keys.Comments(mid), h.Comments, comments},
		{schema.FieldReposts, c.keys.Reposts(mid), h.Reposts, reposts},
	} {
		if n.stored == n.size {
			continue
		}
		err := schema.CountSync.Run(ctx, c.rdb, []string{c.keys.Post(mid), n.set}, n.field).Err()
		if err != nil && !errors.Is(err, redis.Nil) {
			return mended, s.Wrap("repair: counter", err)
		}
		c.repaired(schema.RepairCounter)
		mended++
	}
	return mended, nil
}

func (c *Checker) repaired(kind string) { c.opt.Metrics.Repairs.WithLabelValues(kind).Inc() }

// counted is the count of repairs of one act: 1, counted under kind, when
// it repaired; 0 when it had nothing to do or failed.
func (c *Checker) counted(kind string, done bool, err error) (int, error) {
	if err != nil || !done {
		return 0, err
	}
	c.repaired(kind)
	return 1, nil
}
