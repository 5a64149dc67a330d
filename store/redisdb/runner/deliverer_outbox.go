package runner

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// OutboxOptions tune the outbound runner of one process (NewOutbox).
type OutboxOptions struct {
	// Handle turns one local event into deliveries (and queues them). An
	// error leaves the event pending, to be handled again after ClaimIdle;
	// an error wrapping store.ErrNotFound, store.ErrUserNotFound or
	// store.ErrPostNotFound drops it (what it was about is gone). Required.
	Handle func(ctx context.Context, e store.FedEvent) error
	// Batch is how many events one read takes, handled side by side (16).
	Batch     int
	ClaimIdle time.Duration
	Logger    *slog.Logger
}

// Outbox is the outbound runner of one process: it reads fed:outbox (the
// local events the request path queued) through the consumer group every
// process shares and hands each to Handle, acknowledging it once handled.
type Outbox struct {
	opt OutboxOptions
	c   *consumer
}

// NewOutbox returns the outbound runner of st's process; Run runs it.
func NewOutbox(st Ops, opt OutboxOptions) *Outbox {
	opt.Batch = cmp.Or(opt.Batch, 16)
	opt.ClaimIdle = cmp.Or(opt.ClaimIdle, DefaultClaimIdle)
	opt.Logger = cmp.Or(opt.Logger, slog.Default())
	return &Outbox{opt: opt,
		c: newConsumer(st.Client(), st.Keys().FedOutbox(), schema.OutboxGroup, "federation outbox", opt.Batch, opt.ClaimIdle, opt.Logger)}
}

// Run handles events until ctx ends; what is in hand goes on for
// FinishWithin, and what is left is handed back.
func (o *Outbox) Run(ctx context.Context) {
	if o.opt.Handle == nil {
		return
	}
	work, done := graceful(ctx)
	defer done()
	o.c.run(ctx, work, o.do, o.do)
	o.c.handBack(ctx)
}

// do handles a batch side by side and acknowledges what was handled.
func (o *Outbox) do(ctx context.Context, msgs []redis.XMessage) {
	var mu sync.Mutex
	var handled []string
	var wg sync.WaitGroup
	for _, m := range msgs {
		wg.Go(func() {
			e, ok := schema.ParseFedEvent(m)
			var err error
			if ok {
				err = o.opt.Handle(ctx, e)
			}
			if err != nil && !gone(err) {
				if ctx.Err() == nil {
					o.opt.Logger.Warn("federation outbox: will try again", "kind", e.Kind, "err", err)
				}
				return
			}
			mu.Lock()
			handled = append(handled, m.ID)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(handled) > 0 {
		o.c.ack(ctx, handled, nil)
	}
}

// gone tells an error of something that no longer exists.
func gone(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrUserNotFound) || errors.Is(err, store.ErrPostNotFound)
}
