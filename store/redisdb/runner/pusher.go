package runner

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// DefaultPushBatch is how many pushes one process sends at once.
const DefaultPushBatch = 16

// PusherOptions tune the pusher of one process (NewPusher).
type PusherOptions struct {
	// Deliver sends one job to the user's devices; it retries a push
	// service that fails for a while itself, and returns an error only
	// when the job should be tried again later (Redis away): the job then
	// stays pending and is taken over after ClaimIdle. Required.
	Deliver func(ctx context.Context, job store.PushJob) error
	// Batch is how many jobs one read takes and are sent side by side
	// (DefaultPushBatch).
	Batch int
	// ClaimIdle is how long a job may go without a sign of life before
	// another process takes it over (DefaultClaimIdle); a batch in hand is
	// renewed every ClaimIdle/3.
	ClaimIdle time.Duration
	Logger    *slog.Logger
}

// Pusher is the pusher of one process: it reads the push queue
// (push:queue, filled when a notification or a private message is made for
// a user with a push subscription) through the consumer group that every
// process shares, and hands each job to Deliver. A job is acknowledged only
// once delivered, so a process that dies leaves it pending and another
// takes it over: every push is sent at least once.
type Pusher struct {
	opt PusherOptions
	c   *consumer
}

// NewPusher returns the pusher of st's process; Run runs it.
func NewPusher(st Ops, opt PusherOptions) *Pusher {
	opt.Batch = cmp.Or(opt.Batch, DefaultPushBatch)
	opt.ClaimIdle = cmp.Or(opt.ClaimIdle, DefaultClaimIdle)
	opt.Logger = cmp.Or(opt.Logger, slog.Default())
	return &Pusher{opt: opt,
		c: newConsumer(st.Client(), st.Keys().PushQueue(), schema.PushGroup, "push", opt.Batch, opt.ClaimIdle, opt.Logger)}
}

// Run sends pushes until ctx ends; the batch in hand goes on for
// FinishWithin, and what is left is handed back to the other processes.
func (p *Pusher) Run(ctx context.Context) {
	if p.opt.Deliver == nil {
		return
	}
	work, done := graceful(ctx)
	defer done()
	p.c.run(ctx, work, p.do, p.do)
	p.c.handBack(ctx)
}

// do sends a batch side by side, renewing the claim on it while it runs,
// and acknowledges each job delivered.
func (p *Pusher) do(ctx context.Context, msgs []redis.XMessage) {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(max(p.opt.ClaimIdle/3, minReclaimTick))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.c.renew(ctx, ids)
			}
		}
	}()
	var mu sync.Mutex
	var delivered []string
	var wg sync.WaitGroup
	for _, m := range msgs {
		wg.Go(func() {
			job := schema.ParsePushEntry(m.Values)
			if job.UID == 0 {
				mu.Lock()
				delivered = append(delivered, m.ID) // not a job: drop it
				mu.Unlock()
				return
			}
			if err := p.opt.Deliver(ctx, job); err != nil {
				if ctx.Err() == nil {
					p.opt.Logger.Warn("push: will try again", "uid", job.UID, "err", err)
				}
				return
			}
			mu.Lock()
			delivered = append(delivered, m.ID)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(stop)
	if len(delivered) > 0 {
		p.c.ack(ctx, delivered, nil)
	}
}
