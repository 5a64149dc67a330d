package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/internal/retry"
	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// consumer is one process's reader of a queue (a stream) through the
// consumer group that the processes share, as the fan-out workers and the
// archiver read theirs: it reads new entries, takes over those another
// consumer left idle, renews its claim on those it holds, and acknowledges
// (and trims away) those done. An entry is acknowledged only once done, so the
// entries of a process that died stay pending, and another takes them over
// after claimIdle; a process that stops gracefully hands back those it
// could not finish, and another takes them over at once (consumer_stop.go).
type consumer struct {
	rdb    redis.UniversalClient
	stream string
	group  string
	// name is this process's in the group, unique (consumerName).
	name string
	// count is the most entries one read takes.
	count int64
	// claimIdle is how long an entry may go without a sign of life before
	// another consumer takes it over.
	claimIdle time.Duration
	log       *slog.Logger
	// what names the queue in logs: "fan-out", "archive".
	what string
	// poll makes a read that finds nothing come back at once instead of
	// waiting in Redis: for a reader that holds no connection while idle.
	poll bool
	// readWarn logs the failures to read of the runners that share c.
	readWarn *quietWarn
}

// quietWarnEvery is how often a quietWarn logs at most.
const quietWarnEvery = 5 * time.Second

// quietWarn logs a warning at most once every quietWarnEvery, with how
// many it left out since the last: for a failure that goroutines meet
// together, at every retry, while Redis is away (a chaos run's logs held
// hundreds of lines for one failover).
type quietWarn struct {
	last, left atomic.Int64 // unix ns of the last line; warnings not logged since
}

func (q *quietWarn) warn(log *slog.Logger, msg string, args ...any) {
	now := time.Now().UnixNano()
	last := q.last.Load()
	if now-last < int64(quietWarnEvery) || !q.last.CompareAndSwap(last, now) {
		q.left.Add(1)
		return
	}
	log.Warn(msg, append(args, "unlogged_since_last", q.left.Swap(0))...)
}

// newConsumer returns this process's consumer of stream in group.
func newConsumer(rdb redis.UniversalClient, stream, group, what string, count int, claimIdle time.Duration, log *slog.Logger) *consumer {
	return &consumer{rdb: rdb, stream: stream, group: group, name: consumerName(), count: int64(count),
		claimIdle: claimIdle, log: log, what: what, readWarn: &quietWarn{}}
}

// consumerName names this process in a consumer group, uniquely.
func consumerName() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// readBlock is how long one read waits for a new entry. go-redis cannot cut
// a blocked read short, so it also bounds how long stopping a runner takes.
const readBlock = 300 * time.Millisecond

// reclaimTick is how often a consumer looks for entries to take over: one
// XPENDING that finds none when there are none, so that entries handed back
// by a process that stops are taken over within it. Every claimIdle/2 when
// that is shorter (tests), but no more often than minReclaimTick.
const reclaimTick = 250 * time.Millisecond

// minReclaimTick bounds how often a consumer looks for idle entries, for
// the tests' short claimIdle.
const minReclaimTick = 10 * time.Millisecond

// tick is how often c looks for entries to take over.
func (c *consumer) tick() time.Duration {
	return max(min(c.claimIdle/2, reclaimTick), minReclaimTick)
}

// run hands handle each batch of new entries it reads, until ctx ends; the
// batch in hand goes on under work (graceful). A missing group (the queue's
// first use, or a Redis that lost its data) is made; other failures are
// retried after a back-off.
//
// With takeOver, every tick it first hands takeOver the entries other
// consumers left idle (reclaim, count at a time): for a runner that does
// one batch at a time, as the archiver does. Runners whose readers run side
// by side (the fan-out) call reclaimEvery beside them instead.
func (c *consumer) run(ctx, work context.Context, handle, takeOver func(context.Context, []redis.XMessage)) {
	wait := retry.Backoff{Min: BackoffMin, Max: BackoffMax}
	claimed := time.Now()
	for ctx.Err() == nil {
		var err error
		if takeOver != nil && time.Since(claimed) >= c.tick() {
			claimed = time.Now()
			err = c.reclaim(ctx, c.count, takeOver)
		}
		var msgs []redis.XMessage
		if err == nil {
			msgs, err = c.read(ctx)
		}
		switch {
		case err == nil:
			wait.Reset()
			if len(msgs) > 0 {
				handle(work, msgs)
			}
		case ctx.Err() != nil:
			return
		case strings.HasPrefix(err.Error(), "NOGROUP"):
			c.createGroup(ctx)
		default:
			c.readWarn.warn(c.log, c.what+": read queue", "err", err)
			wait.Sleep(ctx)
		}
	}
}

// read takes up to count new entries, waiting readBlock at most for the
// first (unless c.poll); none when none came.
func (c *consumer) read(ctx context.Context) ([]redis.XMessage, error) {
	block := readBlock
	if c.poll {
		block = -1 // no BLOCK argument
	}
	streams, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: c.group, Consumer: c.name, Streams: []string{c.stream, ">"}, Count: c.count, Block: block,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var msgs []redis.XMessage
	for _, st := range streams {
		msgs = append(msgs, st.Messages...)
	}
	return msgs, nil
}

// waiting is about how many entries of the queue no consumer has taken yet:
// its length less those taken and not acknowledged, in one round trip. The
// stream keeps the entries done behind an older one still in hand until
// that one is done (ack), so while one is, this may count them too.
func (c *consumer) waiting(ctx context.Context) (int64, error) {
	var n *redis.IntCmd
	var taken *redis.XPendingCmd
	_, err := c.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		n = pl.XLen(ctx, c.stream)
		taken = pl.XPending(ctx, c.stream, c.group)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n.Val() - taken.Val().Count, nil
}

// createGroup makes the consumer group (and its stream) if they are
// missing; from the stream's start, so no entry queued before is skipped.
func (c *consumer) createGroup(ctx context.Context) {
	err := c.rdb.XGroupCreateMkStream(ctx, c.stream, c.group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		c.log.Warn("create consumer group", "stream", c.stream, "err", err)
	}
}

// reclaimEvery runs reclaim every tick until ctx ends. A failure (no group
// before the first entry, Redis away) waits for the next tick.
func (c *consumer) reclaimEvery(ctx context.Context, count int64, takeOver func(context.Context, []redis.XMessage)) {
	retry.Every(ctx, c.tick(), func() { c.reclaim(ctx, count, takeOver) })
}

// reclaim takes over the entries left idle for claimIdle (or handed back),
// count at a time, and hands each batch to takeOver, until it finds none;
// then it takes the consumers it took them from out of the group if they
// hold no more (forget). Each batch is found by an XPENDING with IDLE,
// which walks the whole list of pending entries in Redis, and claimed by an
// XCLAIM with the same least idle time, which takes only those that no
// other consumer took meanwhile.
func (c *consumer) reclaim(ctx context.Context, count int64, takeOver func(context.Context, []redis.XMessage)) error {
	from := map[string]bool{}
	defer c.forget(ctx, from)
	last := ""
	for ctx.Err() == nil {
		idle, err := c.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{
			Stream: c.stream, Group: c.group, Idle: c.claimIdle, Start: "-", End: "+", Count: count,
		}).Result()
		if err != nil {
			return err
		}
		// The first entry found again: the XCLAIM took nothing of it (a
		// Redis before 7.0 keeps a deleted entry pending). Leave it to the
		// next tick rather than spin.
		if len(idle) == 0 || idle[0].ID == last {
			return nil
		}
		last = idle[0].ID
		ids := make([]string, len(idle))
		for i, e := range idle {
			ids[i] = e.ID
			from[e.Consumer] = true
		}
		msgs, err := c.rdb.XClaim(ctx, &redis.XClaimArgs{
			Stream: c.stream, Group: c.group, Consumer: c.name, MinIdle: c.claimIdle, Messages: ids,
		}).Result()
		if err != nil {
			return err
		}
		if len(msgs) > 0 {
			takeOver(ctx, msgs)
		}
	}
	return nil
}

// renew resets the idle time of entries this consumer holds, so that no
// other consumer takes them over while a long job runs.
func (c *consumer) renew(ctx context.Context, ids []string) {
	c.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: c.stream, Group: c.group, Consumer: c.name, Messages: ids})
}

// ack acknowledges entries done, and takes out of the stream every entry
// older than the oldest not done (queue_ack.lua: one XTRIM, where XDEL of
// each entry cost Redis a walk of its node), with also's commands (nil:
// none) in the same round trip. It goes on when ctx has ended: done is done,
// even if the runner is stopping.
//
// On a cluster also's commands may go to another master than the stream's,
// and fail while the entries are deleted: nothing would ever do them then
// (a fan-out's in-flight mark stayed, and its author's fans pulled its F
// set for good). So they are sent again, alone, until they succeed or
// ackRetries have failed; they are idempotent.
func (c *consumer) ack(ctx context.Context, ids []string, also func(context.Context, redis.Pipeliner)) {
	actx := context.WithoutCancel(ctx)
	cmds, err := c.rdb.Pipelined(actx, func(pl redis.Pipeliner) error {
		args := make([]any, 1, 1+len(ids))
		args[0] = c.group
		for _, id := range ids {
			args = append(args, id)
		}
		schema.QueueAck.Eval(actx, pl, []string{c.stream}, args...)
		if also != nil {
			also(actx, pl)
		}
		return nil
	})
	if err == nil {
		return
	}
	c.log.Warn(c.what+": acknowledge", "entries", ids, "err", err)
	if also == nil || len(cmds) < 1 || cmds[0].Err() != nil || reqpath.PipeErr(cmds[1:], err) == nil {
		return // the entries stay, and are done again; or also's part went through
	}
	wait := 50 * time.Millisecond
	for try := 0; try < ackRetries; try++ {
		time.Sleep(wait)
		wait *= 2
		cmds, err = c.rdb.Pipelined(actx, func(pl redis.Pipeliner) error {
			also(actx, pl)
			return nil
		})
		if err = reqpath.PipeErr(cmds, err); err == nil {
			return
		}
	}
	c.log.Error(c.what+": acknowledged, but what goes with it failed", "entries", ids, "err", err)
}

// ackRetries is how many times ack sends again what goes with an
// acknowledgement (50 ms, then twice as long each time: 1.55 s in all).
const ackRetries = 5
