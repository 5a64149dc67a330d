package redisdb

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The fan-out runs off the request path: a write queues a job on the stream
// fanout:queue in the same pipeline that indexes the message, and workers in
// every server process take jobs through one consumer group, many at a time
// (fanout_batch.go). A job is acknowledged (and deleted) only once done, so
// the jobs of a process that died stay pending and another process claims
// them after ClaimIdle. Every step of a job is idempotent (ZADD and ZREM of
// its post's id), so a job done twice changes nothing.

// fanOutGroup is the consumer group of every server process's workers.
const fanOutGroup = "fanout"

// Kinds of fan-out job.
const (
	opPush     = "push"     // push post mid into the home timeline of each (active) fan of author
	opUnpush   = "unpush"   // take deleted post mid out of each fan's home timeline
	opBackfill = "backfill" // push the author's posts after pull_from, then end its pull mode
)

// job is one entry of the fan-out queue.
type job struct {
	id     string // the stream entry id
	op     string
	mid    int64
	author int64
	at     int64 // unix ms the message was written: fans away longer before it are skipped
}

// queueJob adds a job to a pipeline (the one that indexes its message). A
// push is also recorded as pending until done.
func (s *Store) queueJob(ctx context.Context, pl redis.Pipeliner, op string, author, mid int64) {
	if op == opPush {
		pl.HSet(ctx, s.keys.FanOutPending(), mid, author)
	}
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.FanOutQueue(), Values: []any{
		"op", op, "author", author, "mid", mid, "at", s.now()}})
}

// parseJobs reads the jobs of entries of the queue.
func parseJobs(msgs []redis.XMessage) []job {
	jobs := make([]job, len(msgs))
	for i, m := range msgs {
		jobs[i] = parseJob(m)
	}
	return jobs
}

// parseJob reads the job of one entry of the queue.
func parseJob(m redis.XMessage) job {
	j := job{id: m.ID}
	j.op, _ = m.Values["op"].(string)
	for name, dst := range map[string]*int64{"author": &j.author, "mid": &j.mid, "at": &j.at} {
		v, _ := m.Values[name].(string)
		*dst, _ = strconv.ParseInt(v, 10, 64)
	}
	return j
}

// RunFanOut runs this process's fan-out workers until ctx ends.
func (s *Store) RunFanOut(ctx context.Context, opt FanOutOptions) {
	opt = opt.withDefaults()
	w := &worker{s: s, opt: opt, log: opt.Logger,
		c: newConsumer(s.rdb, s.keys.FanOutQueue(), fanOutGroup, "fan-out", readCount, opt.ClaimIdle, opt.Logger)}
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Go(func() { w.c.run(ctx, w.doRead, nil) })
	}
	// One at a time: a claimed job's idle time is renewed only while it
	// runs, so jobs claimed together but run later could be taken over
	// again meanwhile.
	wg.Go(func() { w.c.reclaimEvery(ctx, 1, w.takeOver) })
	wg.Wait()
}

type worker struct {
	s   *Store
	opt FanOutOptions
	log *slog.Logger
	c   *consumer
}

// readCount is how many new jobs one read takes. The push jobs among them
// cost the same few round trips together as one alone (doBatch), so a
// worker that falls behind catches up in bigger batches.
const readCount = 64

// doRead does the jobs one read took.
func (w *worker) doRead(ctx context.Context, msgs []redis.XMessage) { w.doBatch(ctx, parseJobs(msgs)) }

// takeOver does, one by one, the jobs taken over from other (dead or
// stuck) processes that left them without a sign of life for ClaimIdle.
func (w *worker) takeOver(ctx context.Context, msgs []redis.XMessage) {
	for _, m := range msgs {
		w.log.Info("fan-out: took over a job left idle", "job", m.ID)
		w.do(ctx, parseJob(m))
	}
}

// do runs one job taken over from another process, and acknowledges it.
func (w *worker) do(ctx context.Context, j job) {
	w.doOne(ctx, j, w.hold(ctx, []job{j}))
}

// doOne runs one job of those h holds and acknowledges it. A job that fails
// stays pending and is taken up again after ClaimIdle.
func (w *worker) doOne(ctx context.Context, j job, h *holding) {
	var err error
	switch j.op {
	case opPush:
		err = w.s.push(ctx, j, h.alive)
	case opUnpush:
		err = w.s.unpush(ctx, j, h.alive)
	case opBackfill:
		err = w.s.backfill(ctx, j, h.alive)
	}
	h.release([]job{j})
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("fan-out: job failed, will be retried", "job", j.id, "op", j.op, "mid", j.mid, "err", err)
		}
		return
	}
	w.ack(ctx, []job{j})
}

// ack counts jobs done and acknowledges them (and their pending marks), in
// one round trip.
func (w *worker) ack(ctx context.Context, jobs []job) {
	if len(jobs) == 0 {
		return
	}
	ids := make([]string, len(jobs))
	var mids []string
	for i, j := range jobs {
		ids[i] = j.id
		w.s.opt.Metrics.jobs.WithLabelValues(j.op).Inc()
		if j.op == opPush {
			mids = append(mids, id(j.mid))
		}
	}
	w.c.ack(ctx, ids, func(ctx context.Context, pl redis.Pipeliner) {
		if len(mids) > 0 {
			pl.HDel(ctx, w.s.keys.FanOutPending(), mids...)
		}
	})
}

// holding is the jobs a worker has taken and neither acknowledged nor given
// up on yet. Its alive renews the claim on all of them while a long job
// runs, so that no other process takes over a job of the batch meanwhile.
type holding struct {
	w       *worker
	ctx     context.Context
	ids     []string
	renewed time.Time
}

// hold starts holding jobs just taken.
func (w *worker) hold(ctx context.Context, jobs []job) *holding {
	h := &holding{w: w, ctx: ctx, ids: make([]string, len(jobs)), renewed: time.Now()}
	for i, j := range jobs {
		h.ids[i] = j.id
	}
	return h
}

// alive is called between the batches of fans of a job: it sleeps
// BatchDelay, and renews the claim every ClaimIdle/3.
func (h *holding) alive() {
	ctx := h.ctx
	if h.w.opt.BatchDelay > 0 {
		sleep(ctx, h.w.opt.BatchDelay)
	}
	if len(h.ids) > 0 && time.Since(h.renewed) >= h.w.opt.ClaimIdle/3 {
		h.w.c.renew(ctx, h.ids)
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
