package runner

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the background runners' counters: the fan-out's Pushes and
// Jobs, the archiver's rows, errors and evictions, the checker's Repairs.
// One Metrics serves every runner of a process.
type Metrics struct {
	// Pushes counts the posts pushed into (or out of) home timelines,
	// Jobs the fan-out jobs done by kind, Repairs the checker's repairs by
	// kind; Archived, ArchiveErrors and Evicted the archiver's rows saved,
	// batches failed and messages moved out of Redis.
	Pushes                           prometheus.Counter
	Jobs, Repairs                    *prometheus.CounterVec
	Archived, ArchiveErrors, Evicted prometheus.Counter
}

// NewMetrics makes the counters and registers them with reg (nil: none).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Pushes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_fanout_pushes_total", Help: "Posts pushed into (or taken out of) a fan's home timeline.",
		}),
		Jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "microblog_fanout_jobs_total", Help: "Fan-out Jobs done, by kind.",
		}, []string{"op"}),
		Archived: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_archive_rows_total", Help: "Messages and deletes saved to the archive.",
		}),
		ArchiveErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_archive_save_errors_total", Help: "Archive batches that failed to save (and were retried).",
		}),
		Evicted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_archive_evicted_total", Help: "Messages moved out of Redis after leaving their hot window.",
		}),
		Repairs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "microblog_repairs_total", Help: "What stopped writes left that the checker mended, by kind.",
		}, []string{"kind"}),
	}
	if reg != nil {
		reg.MustRegister(m.Pushes, m.Jobs, m.Repairs, m.Archived, m.ArchiveErrors, m.Evicted)
	}
	return m
}

// noMetrics counts into nothing: the default of a runner given none.
var noMetrics = NewMetrics(nil)
