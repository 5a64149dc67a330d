package redisdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The fan-out runs off the request path: a write queues a job on the stream
// fanout:queue in the same pipeline that indexes the message, and workers in
// every server process take jobs through one consumer group. A job is
// acknowledged (and deleted) only once done, so the jobs of a process that
// died stay pending and another process claims them after ClaimIdle. Every
// step of a job is idempotent (ZADD and ZREM of one id), so a job done twice
// changes nothing.

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
		pl.HSet(ctx, s.keys.fanOutPending(), mid, author)
	}
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.fanOutQueue(), Values: []any{
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

// WorkerOptions tune the fan-out workers of one process.
type WorkerOptions struct {
	// Workers is how many jobs this process works on at once (default 2).
	Workers int
	// ClaimIdle is how long a job may go without a sign of life from its
	// worker before another process takes it over (default 30s). A worker
	// busy with a long job renews its claim every ClaimIdle/3.
	ClaimIdle time.Duration
	// BatchDelay sleeps between the batches of a job: a hook for tests that
	// must catch a fan-out in flight. Zero in production.
	BatchDelay time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// RunFanOut runs this process's fan-out workers until ctx ends.
func (s *Store) RunFanOut(ctx context.Context, opt WorkerOptions) {
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	if opt.ClaimIdle <= 0 {
		opt.ClaimIdle = 30 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
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
	opt      WorkerOptions
	log      *slog.Logger
	consumer string
}

// readBlock is how long one read waits for a new job. go-redis cannot cut a
// blocked read short, so it also bounds how long stopping the workers takes.
const readBlock = 300 * time.Millisecond

// loop takes new jobs and does them, one at a time.
func (w *worker) loop(ctx context.Context) {
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		streams, err := w.s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: fanOutGroup, Consumer: w.consumer, Streams: []string{w.s.keys.fanOutQueue(), ">"},
			Count: 1, Block: readBlock,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if strings.HasPrefix(err.Error(), "NOGROUP") {
				w.s.createGroup(ctx, w.s.keys.fanOutQueue(), fanOutGroup, w.log)
				continue
			}
			w.log.Warn("fan-out: read queue", "err", err)
			sleep(ctx, backoff)
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		for _, st := range streams {
			for _, m := range st.Messages {
				w.do(ctx, parseJob(m))
			}
		}
	}
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
	tick := time.NewTicker(max(w.opt.ClaimIdle/2, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		start := "0-0"
		for ctx.Err() == nil {
			msgs, next, err := w.s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: w.s.keys.fanOutQueue(), Group: fanOutGroup, Consumer: w.consumer,
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
}

// do runs one job and acknowledges it. A job that fails stays pending and is
// taken up again after ClaimIdle.
func (w *worker) do(ctx context.Context, j job) {
	renewed := time.Now()
	alive := func() {
		if w.opt.BatchDelay > 0 {
			sleep(ctx, w.opt.BatchDelay)
		}
		if time.Since(renewed) >= w.opt.ClaimIdle/3 {
			// Resets the entry's idle time, so nobody takes over a long job.
			w.s.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: w.s.keys.fanOutQueue(), Group: fanOutGroup,
				Consumer: w.consumer, Messages: []string{j.id}})
			renewed = time.Now()
		}
	}
	var err error
	switch j.op {
	case opPush:
		err = w.s.push(ctx, j, alive)
	case opUnpush:
		err = w.s.unpush(ctx, j, alive)
	case opBackfill:
		err = w.s.backfill(ctx, j, alive)
	}
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("fan-out: job failed, will be retried", "job", j.id, "op", j.op, "mid", j.mid, "err", err)
		}
		return
	}
	w.s.opt.Metrics.jobs.WithLabelValues(j.op).Inc()
	actx := context.WithoutCancel(ctx) // done is done, even if we are stopping
	_, err = w.s.rdb.Pipelined(actx, func(pl redis.Pipeliner) error {
		pl.XAck(actx, w.s.keys.fanOutQueue(), fanOutGroup, j.id)
		pl.XDel(actx, w.s.keys.fanOutQueue(), j.id)
		if j.op == opPush {
			pl.HDel(actx, w.s.keys.fanOutPending(), id(j.mid))
		}
		return nil
	})
	if err != nil {
		w.log.Warn("fan-out: acknowledge job", "job", j.id, "err", err)
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
