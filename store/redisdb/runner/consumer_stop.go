package runner

import (
	"context"
	_ "embed"
	"strings"
	"time"

	"microblog/store/redisdb/schema"
)

// How a consumer stops (a graceful stop: SIGTERM, or the end of a test's
// context): it reads no more, goes on with the entries it holds for
// FinishWithin at most, and then hands back those it could not finish
// (handBack), so that another process takes them over within reclaimTick
// instead of after claimIdle. A hand-back that fails (Redis away) leaves
// them pending as a process that died does: taken over after claimIdle.

// FinishWithin bounds how long a stopping runner goes on with the entries
// it holds: a batch of pushes takes milliseconds, a part of a split job or
// an archive batch while the archive is away may take longer, and those are
// handed back unfinished.
const FinishWithin = time.Second

// handBackIdle is the idle time an entry handed back is given: past any
// claimIdle a deployment would set, so that every other process's next
// look takes it, and far below the unix time in ms, which Redis would take
// for a time in the future (and count as no idle time at all).
const handBackIdle = 24 * time.Hour

// handBackWait bounds the hand-back's round trip at shutdown.
const handBackWait = 2 * time.Second

// graceful returns the context that a runner stopped with ctx does its
// entries in hand under: it ends FinishWithin after ctx does. Its cancel
// ends it at once, for a runner that is done.
func graceful(ctx context.Context) (context.Context, context.CancelFunc) {
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(FinishWithin, cancel) })
	return work, func() {
		stop()
		cancel()
	}
}

// handBack gives back every entry this consumer still holds, once its
// runners have stopped (none works on them any more), and takes the
// consumer out of the group if it holds none; it returns how many it gave
// back. Another consumer's reclaim takes them within reclaimTick. Should it
// fail, they stay pending as they were, and are taken over after claimIdle:
// no entry is acknowledged or dropped here.
func (c *consumer) handBack(ctx context.Context) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handBackWait)
	defer cancel()
	n, err := schema.HandBack.Run(ctx, c.rdb, []string{c.stream}, c.group, c.name, handBackIdle.Milliseconds()).Int()
	switch {
	case err != nil && strings.HasPrefix(err.Error(), "NOGROUP"):
		return 0 // never read: holds nothing
	case err != nil:
		c.log.Warn(c.what+": could not hand back the entries this process holds; others take them over after the claim idle time",
			"claim_idle", c.claimIdle, "err", err)
		return 0
	case n > 0:
		c.log.Info(c.what+": handed back the entries this process holds", "entries", n)
	}
	return n
}

// forget takes the consumers that other consumers' entries were taken from
// out of the group, those that hold none any more (a process that stopped
// or died). A failure keeps them: the next take-over from them tries again.
func (c *consumer) forget(ctx context.Context, names map[string]bool) {
	for name := range names {
		if name != c.name {
			schema.ForgetConsumer.Run(ctx, c.rdb, []string{c.stream}, c.group, name)
		}
	}
}
