package runner

import (
	"cmp"
	"log/slog"
	"runtime"
	"time"
)

// Defaults of the background runners' options.
const (
	// DefaultFanOutWorkers is how many batches of fan-out jobs one process
	// works on at once when there is no backlog.
	DefaultFanOutWorkers = 2
	// DefaultClaimIdle is how long a queued job (a fan-out job, a batch of
	// the archive queue) may go without a sign of life from the process
	// that took it before another process takes it over.
	DefaultClaimIdle = 30 * time.Second
	// DefaultArchiveBatch is how many queued messages one transaction of the
	// archiver saves.
	DefaultArchiveBatch = 500
	// DefaultRepairInterval is the time between two runs of the checker of
	// half-written messages.
	DefaultRepairInterval = 30 * time.Second
	// DefaultRepairBatch is the most message ids one run of the checker
	// looks at.
	DefaultRepairBatch = 1000
	// DefaultRepairGrace is how old a message must be before the checker
	// touches it.
	DefaultRepairGrace = time.Minute
	// DefaultMediaExpiryInterval is the time between two looks of the media
	// janitor for uploads no post took.
	DefaultMediaExpiryInterval = time.Minute
)

// DefaultFanOutHelpers is how many more fan-out workers one process runs
// besides DefaultFanOutWorkers, that work only while there is a backlog or
// a part of a split job: three per CPU the process may use (GOMAXPROCS). A
// worker spends most of its time waiting for Redis, so a few per CPU keep
// Redis busy (docs/performance.md measures 2, 4 and 8 workers on 2 CPUs).
var DefaultFanOutHelpers = 3 * runtime.GOMAXPROCS(0)

// FanOutOptions tune the fan-out workers of one process (NewFanOut).
type FanOutOptions struct {
	// Workers is how many batches of jobs this process works on at once
	// (DefaultFanOutWorkers): each waits in Redis for the next job, holding
	// a connection of the pool.
	Workers int
	// Helpers is how many more workers join them while the queue holds a
	// backlog (a read takes a whole ReadCount), and take the parts of split
	// jobs (DefaultFanOutHelpers; negative: none). A helper holds no
	// connection while idle: it looks for work every readBlock.
	Helpers int
	// ClaimIdle is how long a job may go without a sign of life from its
	// worker before another process takes it over (DefaultClaimIdle). A
	// worker busy with a long job renews its claim every ClaimIdle/3.
	ClaimIdle time.Duration
	// BatchDelay sleeps between the batches of a job: a hook for tests that
	// must catch a fan-out in flight. Zero in production.
	BatchDelay time.Duration
	// Batch is how many fans one read of a walk takes and one script call
	// (or pipeline) writes: FanOutBatch when zero. Tests make it small to
	// walk many batches through the store's own sign-ups and follows.
	Batch int
	// Metrics receives the counters (runner.NewMetrics); nil counts into
	// nothing.
	Metrics *Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o FanOutOptions) withDefaults() FanOutOptions {
	o.Metrics = cmp.Or(o.Metrics, noMetrics)
	if o.Workers <= 0 {
		o.Workers = DefaultFanOutWorkers
	}
	if o.Helpers == 0 {
		o.Helpers = DefaultFanOutHelpers
	}
	if o.ClaimIdle <= 0 {
		o.ClaimIdle = DefaultClaimIdle
	}
	if o.Batch <= 0 {
		o.Batch = FanOutBatch
	}
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o
}

// ArchiverOptions tune the archiver of one process (NewArchiver).
type ArchiverOptions struct {
	// KeepLikesAndTopics leaves the likes sets, topic entries and likers'
	// entries of the messages that leave Redis where they are, as the
	// archiver did before they left with them: the archive benchmark's
	// "before" run, beside the one that moves them.
	KeepLikesAndTopics bool
	// Batch is how many queued messages one transaction saves
	// (DefaultArchiveBatch).
	Batch int
	// ClaimIdle is how long a batch may stay unsaved before another process
	// takes it over (DefaultClaimIdle).
	ClaimIdle time.Duration
	// Metrics receives the counters (runner.NewMetrics); nil counts into
	// nothing.
	Metrics *Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o ArchiverOptions) withDefaults() ArchiverOptions {
	o.Metrics = cmp.Or(o.Metrics, noMetrics)
	if o.Batch <= 0 {
		o.Batch = DefaultArchiveBatch
	}
	if o.ClaimIdle <= 0 {
		o.ClaimIdle = DefaultClaimIdle
	}
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o
}

// CheckerOptions tune the checker of half-written messages (NewChecker).
type CheckerOptions struct {
	// Interval is the time between runs (DefaultRepairInterval).
	Interval time.Duration
	// Batch is the most message ids one run looks at (DefaultRepairBatch).
	Batch int
	// Grace is how old a message must be before the checker touches it
	// (DefaultRepairGrace): a younger one may still be being written, so it
	// must be longer than a write may take (writeTimeout).
	Grace time.Duration
	// Metrics receives the counters (runner.NewMetrics); nil counts into
	// nothing.
	Metrics *Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o CheckerOptions) withDefaults() CheckerOptions {
	o.Metrics = cmp.Or(o.Metrics, noMetrics)
	if o.Interval <= 0 {
		o.Interval = DefaultRepairInterval
	}
	if o.Batch <= 0 {
		o.Batch = DefaultRepairBatch
	}
	if o.Grace <= 0 {
		o.Grace = DefaultRepairGrace
	}
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o
}

// MediaJanitorOptions tune the media janitor (NewMediaJanitor).
type MediaJanitorOptions struct {
	// Interval is the time between two looks for uploads no post took
	// (DefaultMediaExpiryInterval).
	Interval time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o MediaJanitorOptions) withDefaults() MediaJanitorOptions {
	if o.Interval <= 0 {
		o.Interval = DefaultMediaExpiryInterval
	}
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o
}

// CacheListenerOptions tune the listener that keeps a process's session and
// avatar caches (NewCacheListener).
type CacheListenerOptions struct {
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o CacheListenerOptions) withDefaults() CacheListenerOptions {
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o
}

// Back-off of the background runners' retries: the first wait after a
// failure is the minimum, each further failure in a row doubles it up to
// the maximum, and a success starts over.
const (
	// BackoffMin is the first wait of a runner whose read of Redis failed
	// (the fan-out workers, the archiver, the cache listener).
	BackoffMin = 50 * time.Millisecond
	// BackoffMax bounds the wait of a runner whose reads of Redis keep
	// failing.
	BackoffMax = 2 * time.Second
	// ArchiveRetryMin is the first wait of the archiver after the archive
	// refused a batch.
	ArchiveRetryMin = 100 * time.Millisecond
	// ArchiveRetryMax bounds the wait of the archiver while the archive
	// keeps refusing a batch.
	ArchiveRetryMax = 5 * time.Second
)
