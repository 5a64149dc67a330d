package redisdb

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"microblog/store"
)

// Metrics are the request path's counters: the hybrid timelines' reads,
// and the writes refused. The runners count their own (runner.Metrics).
type Metrics struct {
	pulls    prometheus.Histogram
	rebuilds prometheus.Counter
	// rereads counts the home reads on a cluster that read G again, a
	// star's last push done while they ran (timeline_pulls.go).
	rereads prometheus.Counter
	// storageFull counts the operations Redis refused for lack of memory.
	storageFull prometheus.Counter
	// archiveBacklog counts the writes refused for a full archive queue.
	archiveBacklog prometheus.Counter
	// replicasBehind counts the writes whose replicas did not confirm them
	// in time (store_replicas.go).
	replicasBehind prometheus.Counter
	// pollEvents counts the poll events published (polls_live.go).
	pollEvents prometheus.Counter
}

// NewMetrics makes the counters and registers them with reg (nil: none).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		pulls: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "microblog_timeline_pulls", Help: "Celebrities' F sets merged into each home-timeline read.",
			Buckets: []float64{0, 1, 2, 5, 10, 20, 50},
		}),
		rebuilds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_timeline_rebuilds_total", Help: "Home timelines rebuilt by pulling when their user came back.",
		}),
		rereads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_timeline_rereads_total", Help: "Home-timeline reads on a cluster that read their G again: a star stopped being pulled while they ran.",
		}),
		archiveBacklog: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_archive_backlog_refusals_total", Help: "Messages refused (503 archive_backlog) because the archive queue was full.",
		}),
		replicasBehind: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_redis_replicas_behind_total", Help: "Write requests answered 503 because the masters' replicas did not confirm them in time (MICROBLOG_REDIS_REPLICA_ACKS).",
		}),
		pollEvents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_poll_events_total", Help: "Live poll events published: at most a few a second per poll, however fast its votes come.",
		}),
		storageFull: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_redis_storage_full_errors_total", Help: "Operations Redis refused for lack of memory (maxmemory reached).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.pulls, m.rebuilds, m.rereads, m.storageFull, m.archiveBacklog, m.replicasBehind, m.pollEvents)
	}
	return m
}

// scrapeTimeout bounds the Redis reads of one scrape of a gauge.
const scrapeTimeout = time.Second

// RegisterQueueMetrics adds the length and lag of the fan-out and archive
// queues, read from Redis when scraped.
func (s *Store) RegisterQueueMetrics(reg prometheus.Registerer) {
	for _, q := range []struct{ name, what, key string }{
		{"fanout", "Fan-out jobs", s.keys.FanOutQueue()},
		{"fanout_parts", "Parts of split fan-out jobs", s.keys.FanOutParts()},
		{"archive", "Messages and deletes on their way to the archive", s.keys.ArchiveQueue()},
	} {
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "microblog_" + q.name + "_queue_length", Help: q.what + " waiting or in progress, and those done behind the oldest in progress.",
			}, func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
				defer cancel()
				n, _ := s.rdb.XLen(ctx, q.key).Result()
				return float64(n)
			}),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "microblog_" + q.name + "_lag_seconds", Help: "Age of the oldest entry of the " + q.name + " queue not done yet.",
			}, func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
				defer cancel()
				msgs, err := s.rdb.XRangeN(ctx, q.key, "-", "+", 1).Result()
				if err != nil || len(msgs) == 0 {
					return 0
				}
				ms, _ := strconv.ParseInt(strings.SplitN(msgs[0].ID, "-", 2)[0], 10, 64)
				return max(0, float64(s.Now()-ms)/1000)
			}),
		)
	}
}

// RegisterArchiveMetrics adds microblog_archive_up: 1 while the archive
// answers a ping within scrapeTimeout, 0 while it does not (archiving waits
// and reads past the hot window answer 503); nothing without an archive.
func (s *Store) RegisterArchiveMetrics(reg prometheus.Registerer) {
	if s.opt.Archive == nil {
		return
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "microblog_archive_up", Help: "1 while the archive database answers, else 0.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		if _, err := s.PingArchive(ctx); err != nil {
			return 0
		}
		return 1
	}))
}

// RegisterStorageMetrics adds microblog_redis_storage_full: 1 while Redis
// refuses writes for lack of memory, probed when scraped.
func (s *Store) RegisterStorageMetrics(reg prometheus.Registerer) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "microblog_redis_storage_full", Help: "1 while Redis refuses writes for lack of memory (maxmemory reached), else 0.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		if errors.Is(s.Writable(ctx), store.ErrStorageFull) {
			return 1
		}
		return 0
	}))
}
