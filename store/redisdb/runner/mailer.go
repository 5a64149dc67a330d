package runner

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// DefaultMailBatch is how many mails one read of the mail queue takes.
const DefaultMailBatch = 4

// MailerOptions tune the mailer of one process (NewMailer).
type MailerOptions struct {
	// Deliver sends one job's mail (it makes the link's token first, and
	// sends nothing when there is nothing to send); it returns an error
	// only when the job should be tried again later (the SMTP server or
	// Redis away): the job then stays pending and is taken over after
	// ClaimIdle. Required.
	Deliver func(ctx context.Context, job store.MailJob) error
	// Batch is how many jobs one read takes (DefaultMailBatch); they are
	// sent one after the other.
	Batch int
	// ClaimIdle is how long a job may go without a sign of life before
	// another process takes it over (DefaultClaimIdle).
	ClaimIdle time.Duration
	Logger    *slog.Logger
}

// Mailer is the mailer of one process: it reads the mail queue (mail:queue,
// filled when a user sets an address or asks for a password reset) through
// the consumer group every process shares, and hands each job to Deliver,
// off the request path, so that a request's answer and timing are the same
// whatever the mail it queued becomes. A job is acknowledged only once
// delivered (or found to need no mail), so a process that dies leaves it
// pending and another takes it over: a mail is sent at least once.
type Mailer struct {
	opt MailerOptions
	c   *consumer
}

// NewMailer returns the mailer of st's process; Run runs it.
func NewMailer(st Ops, opt MailerOptions) *Mailer {
	opt.Batch = cmp.Or(opt.Batch, DefaultMailBatch)
	opt.ClaimIdle = cmp.Or(opt.ClaimIdle, DefaultClaimIdle)
	opt.Logger = cmp.Or(opt.Logger, slog.Default())
	return &Mailer{opt: opt,
		c: newConsumer(st.Client(), st.Keys().MailQueue(), schema.MailGroup, "mail", opt.Batch, opt.ClaimIdle, opt.Logger)}
}

// Run sends mail until ctx ends; the batch in hand goes on for
// FinishWithin, and what is left is handed back to the other processes.
func (m *Mailer) Run(ctx context.Context) {
	if m.opt.Deliver == nil {
		return
	}
	work, done := graceful(ctx)
	defer done()
	m.c.run(ctx, work, m.do, m.do)
	m.c.handBack(ctx)
}

// do sends a batch, renewing the claim on the jobs left while it runs,
// and acknowledges each job done.
func (m *Mailer) do(ctx context.Context, msgs []redis.XMessage) {
	var sent []string
	renewed := time.Now()
	for i, msg := range msgs {
		if time.Since(renewed) > m.opt.ClaimIdle/3 {
			ids := make([]string, 0, len(msgs)-i)
			for _, rest := range msgs[i:] {
				ids = append(ids, rest.ID)
			}
			m.c.renew(ctx, ids)
			renewed = time.Now()
		}
		job := schema.ParseMailEntry(msg.Values)
		if job.Kind != "" {
			if err := m.opt.Deliver(ctx, job); err != nil {
				if ctx.Err() == nil {
					m.opt.Logger.Warn("mail: will try again", "kind", job.Kind, "err", err)
				}
				continue
			}
		}
		sent = append(sent, msg.ID)
	}
	if len(sent) > 0 {
		m.c.ack(ctx, sent, nil)
	}
}
