package redisdb

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// FanOut is the fan-out workers of one process: they take the jobs of the
// fan-out queue (queue.go) through the consumer group that every server
// process shares, many at a time (fanout_batch.go), and push posts into,
// or take them out of, the fans' home timelines. A job is acknowledged (and
// deleted) only once done, so the jobs of a process that died stay pending
// and another process takes them over after ClaimIdle. Every step of a job
// is idempotent (ZADD and ZREM of its post's id), so a job done twice
// changes nothing.
type FanOut struct {
	s   *Store
	opt FanOutOptions
	c   *consumer
}

// NewFanOut returns the fan-out workers of st's process; Run runs them.
func NewFanOut(st *Store, opt FanOutOptions) *FanOut {
	opt = opt.withDefaults()
	return &FanOut{s: st, opt: opt,
		c: newConsumer(st.rdb, st.keys.FanOutQueue(), fanOutGroup, "fan-out", readCount, opt.ClaimIdle, opt.Logger)}
}

// fanOutGroup is the consumer group of every server process's workers.
const fanOutGroup = "fanout"

// readCount is how many new jobs one read takes. The push jobs among them
// cost the same few round trips together as one alone (doBatch), so a
// worker that falls behind catches up in bigger batches.
const readCount = 64

// Run runs the workers until ctx ends, and beside them the take-over of
// the jobs other processes left idle.
func (f *FanOut) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range f.opt.Workers {
		wg.Go(func() { f.c.run(ctx, f.doRead, nil) })
	}
	// One at a time: a claimed job's idle time is renewed only while it
	// runs, so jobs claimed together but run later could be taken over
	// again meanwhile.
	wg.Go(func() { f.c.reclaimEvery(ctx, 1, f.takeOver) })
	wg.Wait()
}

// doRead does the jobs one read took.
func (f *FanOut) doRead(ctx context.Context, msgs []redis.XMessage) { f.doBatch(ctx, parseJobs(msgs)) }

// takeOver does, one by one, the jobs that other (dead or stuck) processes
// left without a sign of life for ClaimIdle.
func (f *FanOut) takeOver(ctx context.Context, msgs []redis.XMessage) {
	for _, m := range msgs {
		f.opt.Logger.Info("fan-out: took over a job left idle", "job", m.ID)
		f.do(ctx, parseJob(m))
	}
}

// do runs one job alone, and acknowledges it.
func (f *FanOut) do(ctx context.Context, j job) {
	f.doOne(ctx, j, f.hold(ctx, []job{j}))
}

// doOne runs one job of those h holds and acknowledges it. A job that fails
// stays pending and is taken up again after ClaimIdle.
func (f *FanOut) doOne(ctx context.Context, j job, h *holding) {
	var err error
	switch j.op {
	case opPush:
		err = f.push(ctx, j, h.alive)
	case opUnpush:
		err = f.unpush(ctx, j, h.alive)
	case opBackfill:
		err = f.backfill(ctx, j, h.alive)
	}
	h.release([]job{j})
	if err != nil {
		f.failed(ctx, j, err)
		return
	}
	f.ack(ctx, []job{j})
}

// failed logs a job that failed and stays pending, unless the workers are
// stopping.
func (f *FanOut) failed(ctx context.Context, j job, err error) {
	if ctx.Err() == nil {
		f.opt.Logger.Warn("fan-out: job failed, will be retried", "job", j.id, "op", j.op, "mid", j.mid, "err", err)
	}
}

// ack counts jobs done and acknowledges them (and their pending marks), in
// one round trip.
func (f *FanOut) ack(ctx context.Context, jobs []job) {
	if len(jobs) == 0 {
		return
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.id
		f.s.opt.Metrics.jobs.WithLabelValues(j.op).Inc()
	}
	f.c.ack(ctx, ids, func(ctx context.Context, pl redis.Pipeliner) {
		f.s.unmarkPending(ctx, pl, jobs)
	})
}

// holding is the jobs a worker has taken and neither acknowledged nor given
// up on yet. Its alive renews the claim on all of them while a long job
// runs, so that no other process takes over a job of the batch meanwhile.
type holding struct {
	f       *FanOut
	ctx     context.Context
	ids     []string
	renewed time.Time
}

// hold starts holding jobs just taken.
func (f *FanOut) hold(ctx context.Context, jobs []job) *holding {
	h := &holding{f: f, ctx: ctx, ids: make([]string, len(jobs)), renewed: time.Now()}
	for i, j := range jobs {
		h.ids[i] = j.id
	}
	return h
}

// alive is called between the batches of fans of a job: it sleeps
// BatchDelay, and renews the claim every ClaimIdle/3.
func (h *holding) alive() {
	if h.f.opt.BatchDelay > 0 {
		sleep(h.ctx, h.f.opt.BatchDelay)
	}
	if len(h.ids) > 0 && time.Since(h.renewed) >= h.f.opt.ClaimIdle/3 {
		h.f.c.renew(h.ctx, h.ids)
		h.renewed = time.Now()
	}
}

// release stops holding jobs: done, or failed and left for a retry.
func (h *holding) release(jobs []job) {
	for _, j := range jobs {
		if i := slices.Index(h.ids, j.id); i >= 0 {
			h.ids = slices.Delete(h.ids, i, i+1)
		}
	}
}
