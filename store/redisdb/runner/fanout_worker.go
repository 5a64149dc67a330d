package runner

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"microblog/store/redisdb/internal/retry"
	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// FanOut is the fan-out workers of one process: they take the jobs of the
// fan-out queue (redisdb/post_queue.go) through the consumer group that every server
// process shares, many at a time (fanout_batch.go), and push posts into,
// or take them out of, the fans' home timelines. A job is acknowledged (and
// deleted) only once done, so the jobs of a process that died stay pending
// and another process takes them over after ClaimIdle; a process that stops
// gracefully finishes the jobs in hand or hands them back, and another
// takes them over at once (consumer_stop.go). Every step of a job
// is idempotent (ZADD and ZREM of its post's id), so a job done twice
// changes nothing.
type FanOut struct {
	base
	opt FanOutOptions
	c   *consumer // of fanout:queue
	// backlog reads fanout:queue for the helpers: without waiting.
	backlog *consumer
	// parts is the consumer of fanout:parts, the parts of split jobs
	// (fanout_parts.go), read one at a time and without waiting.
	parts *consumer
	// helperWarn logs the helpers' failures to read: while Redis is away
	// they all fail, each every readBlock.
	helperWarn quietWarn
}

// NewFanOut returns the fan-out workers of st's process; Run runs them.
func NewFanOut(st Ops, opt FanOutOptions) *FanOut {
	opt = opt.withDefaults()
	f := &FanOut{base: newBase(st), opt: opt,
		c:       newConsumer(st.Client(), st.Keys().FanOutQueue(), schema.FanOutGroup, "fan-out", ReadCount, opt.ClaimIdle, opt.Logger),
		backlog: newConsumer(st.Client(), st.Keys().FanOutQueue(), schema.FanOutGroup, "fan-out", ReadCount, opt.ClaimIdle, opt.Logger),
		parts:   newConsumer(st.Client(), st.Keys().FanOutParts(), schema.FanOutGroup, "fan-out parts", 1, opt.ClaimIdle, opt.Logger)}
	f.backlog.name, f.parts.name = f.c.name, f.c.name
	f.backlog.poll, f.parts.poll = true, true
	return f
}

// ReadCount is how many new jobs one read takes. The push jobs among them
// cost the same few round trips together as one alone (doBatch), so a
// worker that falls behind catches up in bigger batches.
const ReadCount = 64

// Run runs the workers until ctx ends: Workers readers of the queue,
// Helpers that join them while there is a backlog or a part of a split
// job, and beside them the take-over of the jobs and parts other
// processes left idle or handed back. When ctx ends they read no more, go
// on with the jobs in hand for FinishWithin at most, and Run then hands
// back the jobs they could not finish.
//
// The workers wait in Redis for the next job, so that a job is taken as
// soon as it is queued; while the queue keeps up they take a few jobs a
// read, and a batch costs its few round trips whatever it holds
// (fanout_batch.go). More of them would split the same jobs into more,
// smaller batches. The helpers look for work every readBlock and go on
// while they find it.
func (f *FanOut) Run(ctx context.Context) {
	work, done := graceful(ctx)
	defer done()
	var wg sync.WaitGroup
	for range f.opt.Workers {
		wg.Go(func() { f.c.run(ctx, work, f.doRead, nil) })
	}
	for range max(0, f.opt.Helpers) {
		wg.Go(func() { f.help(ctx, work) })
	}
	// Jobs a read's worth at a time, done together as a read's are: a
	// process that stopped hands back up to that many at once, and the
	// batch keeps its claim on those waiting behind a long one. Parts one
	// at a time, as the helpers read them: each is long.
	wg.Go(func() { f.c.reclaimEvery(ctx, ReadCount, f.takeOverBatch) })
	wg.Go(func() { f.parts.reclaimEvery(ctx, 1, f.takeOver) })
	wg.Wait()
	f.c.handBack(ctx)
	f.parts.handBack(ctx)
}

// help is one helper: every readBlock it takes a part of a split job if one
// waits, or else a read of the queue if it holds a backlog, and goes on at
// once while it finds either, until ctx ends; what it took goes on under
// work (graceful).
func (f *FanOut) help(ctx, work context.Context) {
	for ctx.Err() == nil {
		if !f.helpOnce(ctx, work) {
			retry.Sleep(ctx, readBlock)
		}
	}
}

// helpOnce does a part, or a read of the queue when it holds a backlog,
// and tells whether more work may wait. A missing group is made; other
// failures wait readBlock.
func (f *FanOut) helpOnce(ctx, work context.Context) bool {
	msgs, err := f.parts.read(ctx)
	if err == nil && len(msgs) > 0 {
		f.doParts(work, msgs)
		return true
	}
	if err == nil {
		var n int64
		if n, err = f.backlog.waiting(ctx); err == nil && n >= ReadCount {
			msgs, err = f.backlog.read(ctx)
		}
	}
	switch {
	case err != nil && strings.HasPrefix(err.Error(), "NOGROUP"):
		f.parts.createGroup(ctx)
		f.backlog.createGroup(ctx)
	case err != nil && ctx.Err() == nil:
		f.helperWarn.warn(f.opt.Logger, "fan-out: helper: read queue", "err", err, "helpers", f.opt.Helpers)
	case len(msgs) > 0:
		f.doRead(work, msgs)
		return true
	}
	return false
}

// doRead does the jobs one read took.
func (f *FanOut) doRead(ctx context.Context, msgs []redis.XMessage) {
	f.doBatch(ctx, schema.ParseJobs(msgs))
}

// takeOverBatch does together, as a read's jobs (doBatch), the jobs of the
// queue that other (dead or stuck) processes left without a sign of life
// for ClaimIdle, or handed back as they stopped.
func (f *FanOut) takeOverBatch(ctx context.Context, msgs []redis.XMessage) {
	f.opt.Logger.Info("fan-out: took over a job left idle or handed back, with those claimed with it", "jobs", len(msgs), "first", msgs[0].ID)
	f.doRead(ctx, msgs)
}

// takeOver does, one by one, the jobs (or parts) that other (dead or
// stuck) processes left without a sign of life for ClaimIdle, or handed
// back as they stopped.
func (f *FanOut) takeOver(ctx context.Context, msgs []redis.XMessage) {
	for _, m := range msgs {
		f.opt.Logger.Info("fan-out: took over a job left idle", "job", m.ID)
		f.do(ctx, schema.ParseJob(m))
	}
}

// do runs one job alone, and acknowledges it.
func (f *FanOut) do(ctx context.Context, j schema.Job) {
	f.doOne(ctx, j, f.hold(ctx, []schema.Job{j}))
}

// doOne runs one job (or part) of those h holds and acknowledges it. A job
// with more than PartFans fans is split (fanout_parts.go). A job that fails
// stays pending and is taken up again after ClaimIdle (or handed back, when
// it failed because the workers are stopping).
func (f *FanOut) doOne(ctx context.Context, j schema.Job, h *holding) {
	var err error
	switch {
	case j.Part != nil:
		err = f.doPart(ctx, &j, h.alive)
	case j.Op == schema.OpPush || j.Op == schema.OpUnpush:
		err = f.splitOrDo(ctx, &j, h.alive)
	case j.Op == schema.OpBackfill:
		err = f.backfill(ctx, j, h.alive)
	}
	h.release([]schema.Job{j})
	if err != nil {
		f.failed(ctx, j, err)
		return
	}
	f.ack(ctx, []schema.Job{j})
}

// splitOrDo splits a push or unpush job with more than PartFans fans into
// parts, or else does it whole.
func (f *FanOut) splitOrDo(ctx context.Context, j *schema.Job, alive func()) error {
	split, err := f.split(ctx, j)
	if err != nil || split {
		return err
	}
	if j.Op == schema.OpPush {
		return f.push(ctx, *j, alive)
	}
	return f.unpush(ctx, *j, alive)
}

// failed logs a job that failed and stays pending, unless the workers are
// stopping.
func (f *FanOut) failed(ctx context.Context, j schema.Job, err error) {
	if ctx.Err() == nil {
		f.opt.Logger.Warn("fan-out: job failed, will be retried", "job", j.ID, "op", j.Op, "mid", j.Mid, "err", err)
	}
}

// ack counts jobs done and acknowledges them (and the pending marks of the
// posts whose push they end), in one round trip. The jobs are all of the
// queue, or all parts.
func (f *FanOut) ack(ctx context.Context, jobs []schema.Job) {
	if len(jobs) == 0 {
		return
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
		f.opt.Metrics.Jobs.WithLabelValues(j.Kind()).Inc()
	}
	f.consumerOf(jobs).ack(ctx, ids, func(ctx context.Context, pl redis.Pipeliner) {
		f.s.UnmarkPending(ctx, pl, jobs)
	})
}

// consumerOf is the consumer jobs were read through: parts have their own.
func (f *FanOut) consumerOf(jobs []schema.Job) *consumer {
	if len(jobs) > 0 && jobs[0].Part != nil {
		return f.parts
	}
	return f.c
}

// holding is the jobs a worker has taken and neither acknowledged nor given
// up on yet. Its alive renews the claim on all of them while a long job
// runs, so that no other process takes over a job of the batch meanwhile.
type holding struct {
	f       *FanOut
	c       *consumer // the jobs were read through
	ctx     context.Context
	ids     []string
	renewed time.Time
}

// hold starts holding jobs just taken (all of the queue, or all parts).
func (f *FanOut) hold(ctx context.Context, jobs []schema.Job) *holding {
	h := &holding{f: f, c: f.consumerOf(jobs), ctx: ctx, ids: make([]string, len(jobs)), renewed: time.Now()}
	for i, j := range jobs {
		h.ids[i] = j.ID
	}
	return h
}

// alive is called between the batches of fans of a job: it sleeps
// BatchDelay, and renews the claim every ClaimIdle/3.
func (h *holding) alive() {
	if h.f.opt.BatchDelay > 0 {
		retry.Sleep(h.ctx, h.f.opt.BatchDelay)
	}
	if len(h.ids) > 0 && time.Since(h.renewed) >= h.f.opt.ClaimIdle/3 {
		h.c.renew(h.ctx, h.ids)
		h.renewed = time.Now()
	}
}

// release stops holding jobs: done, or failed and left for a retry.
func (h *holding) release(jobs []schema.Job) {
	for _, j := range jobs {
		if i := slices.Index(h.ids, j.ID); i >= 0 {
			h.ids = slices.Delete(h.ids, i, i+1)
		}
	}
}
