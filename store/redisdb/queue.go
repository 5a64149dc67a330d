package redisdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
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
	w := &worker{s: s, opt: opt, log: opt.Logger, consumer: consumerName()}
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.loop(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); w.reclaimLoop(ctx) }()
	wg.Wait()
}

// consumerName names this process in the consumer group, uniquely.
func consumerName() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

type worker struct {
	s        *Store
	opt      FanOutOptions
	log      *slog.Logger
	consumer string
}

// readBlock is how long one read waits for a new job. go-redis cannot cut a
// blocked read short, so it also bounds how long stopping the workers takes.
const readBlock = 300 * time.Millisecond

// readCount is how many new jobs one read takes. The push jobs among them
// cost the same few round trips together as one alone (doBatch), so a
// worker that falls behind catches up in bigger batches.
const readCount = 64

// loop takes new jobs, readCount at most at a time, and does them.
func (w *worker) loop(ctx context.Context) {
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		jobs, err := w.read(ctx)
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if strings.HasPrefix(err.Error(), "NOGROUP") {
				w.s.createGroup(ctx, w.s.keys.FanOutQueue(), fanOutGroup, w.log)
				continue
			}
			w.log.Warn("fan-out: read queue", "err", err)
			sleep(ctx, backoff)
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		w.doBatch(ctx, jobs)
	}
}

// read takes up to readCount new jobs, waiting readBlock at most for the
// first; redis.Nil when none came.
func (w *worker) read(ctx context.Context) ([]job, error) {
	streams, err := w.s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: fanOutGroup, Consumer: w.consumer, Streams: []string{w.s.keys.FanOutQueue(), ">"},
		Count: readCount, Block: readBlock,
	}).Result()
	if err != nil {
		return nil, err
	}
	var jobs []job
	for _, st := range streams {
		for _, m := range st.Messages {
			jobs = append(jobs, parseJob(m))
		}
	}
	if len(jobs) == 0 {
		return nil, redis.Nil
	}
	return jobs, nil
}

// createGroup makes a consumer group (and its stream) if they are missing;
// from the stream's start, so no entry queued before is skipped.
func (s *Store) createGroup(ctx context.Context, stream, group string, log *slog.Logger) {
	err := s.rdb.XGroupCreateMkStream(ctx, stream, group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		log.Warn("create consumer group", "stream", stream, "err", err)
	}
}

// reclaimLoop takes over the jobs that other (dead or stuck) processes left
// without a sign of life for ClaimIdle.
func (w *worker) reclaimLoop(ctx context.Context) {
	every(ctx, max(w.opt.ClaimIdle/2, 10*time.Millisecond), func() { w.reclaim(ctx) })
}

// reclaim takes over, one at a time, every job left idle for ClaimIdle.
func (w *worker) reclaim(ctx context.Context) {
	start := "0-0"
	for ctx.Err() == nil {
		msgs, next, err := w.s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: w.s.keys.FanOutQueue(), Group: fanOutGroup, Consumer: w.consumer,
			// One at a time: a claimed job's idle time is renewed only
			// while it runs, so jobs claimed together but run later
			// could be taken over again meanwhile.
			MinIdle: w.opt.ClaimIdle, Start: start, Count: 1,
		}).Result()
		if err != nil {
			break // NOGROUP before the first job, or Redis away: next tick
		}
		for _, m := range msgs {
			w.log.Info("fan-out: took over a job left idle", "job", m.ID)
			w.do(ctx, parseJob(m))
		}
		if next == "0-0" || len(msgs) == 0 {
			break
		}
		start = next
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
	actx := context.WithoutCancel(ctx) // done is done, even if we are stopping
	_, err := w.s.rdb.Pipelined(actx, func(pl redis.Pipeliner) error {
		pl.XAck(actx, w.s.keys.FanOutQueue(), fanOutGroup, ids...)
		pl.XDel(actx, w.s.keys.FanOutQueue(), ids...)
		if len(mids) > 0 {
			pl.HDel(actx, w.s.keys.FanOutPending(), mids...)
		}
		return nil
	})
	if err != nil {
		w.log.Warn("fan-out: acknowledge jobs", "jobs", ids, "err", err)
	}
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
		// Resets the entries' idle time, so nobody takes over a long job.
		h.w.s.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: h.w.s.keys.FanOutQueue(), Group: fanOutGroup,
			Consumer: h.w.consumer, Messages: h.ids})
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

// every calls fn every d until ctx ends; the first call is d from now.
func every(ctx context.Context, d time.Duration, fn func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			fn()
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
