package redisdb

import (
	"log/slog"
	"runtime"
	"time"

	"golang.org/x/crypto/bcrypt"

	"microblog/store"
)

// Every option of the package and every default lives here: a zero field of
// an options struct takes its default in that struct's withDefaults, and the
// server's configuration starts from the same constants.

// Defaults of the Store's Options.
const (
	// DefaultBcryptCost is the work factor of password hashes.
	DefaultBcryptCost = bcrypt.DefaultCost
	// DefaultSessionTTL is how long an unused session lives.
	DefaultSessionTTL = 30 * 24 * time.Hour
	// DefaultHotWindow is how many message ids each F and G set and the
	// public timeline keep.
	DefaultHotWindow = 1000
	// DefaultConversationWindow is how many message ids each side of a
	// conversation keeps in Redis, at most HotWindow: conversations are many
	// more than authors, so their window is smaller.
	DefaultConversationWindow = 200
	// DefaultCelebrityFans is the fan count from which an author is pulled
	// (docs/architecture.md).
	DefaultCelebrityFans = 50000
	// DefaultInactiveAfter is how long a user may be away and still get
	// pushes.
	DefaultInactiveAfter = 7 * 24 * time.Hour
	// DefaultReplicaWait is how long Replicated waits for the replicas.
	DefaultReplicaWait = time.Second
	// DefaultClockSkew is how far apart the clocks of the server processes
	// and of the Redis masters are taken to be at most.
	DefaultClockSkew = 500 * time.Millisecond
	// DefaultModeLockTTL bounds how long a process that died holding an
	// author's fan-out mode lock holds back the author's changes of mode.
	DefaultModeLockTTL = 30 * time.Second
	// DefaultMaxBlocks and DefaultMaxMutes are how many users one user may
	// block, and mute (docs/performance.md measures a reader at the limit).
	DefaultMaxBlocks = 10000
	DefaultMaxMutes  = 10000
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
	// DefaultArchiveQueueMax is the cap of the archive queue: entries
	// waiting for an archive that is away, at 1.2 KB of Redis each for
	// short posts and their likes (TestArchiveOutageUnderLoad; the entry,
	// and the message that cannot leave Redis before it is archived), up
	// to about 2 KB for long ones: 1.2 to 2 GB at most.
	DefaultArchiveQueueMax = 1_000_000
	// ArchiveRetryMax bounds the wait of the archiver while the archive
	// keeps refusing a batch.
	ArchiveRetryMax = 5 * time.Second
)

// Options tune a Store. The zero value is usable.
type Options struct {
	// Logger receives the warnings of the request path (a live event that
	// could not be published, a notification that could not be written);
	// it defaults to slog.Default().
	Logger *slog.Logger
	// Prefix is put in front of every key and channel (empty by default).
	Prefix string
	// BcryptCost is the work factor of password hashes (DefaultBcryptCost).
	BcryptCost int
	// SessionTTL is how long an unused session lives; each use slides it
	// (DefaultSessionTTL).
	SessionTTL time.Duration
	// HotWindow is how many message ids each F and G set and the public
	// timeline keep (DefaultHotWindow): with an archive, a message older
	// than its author's newest HotWindow lives only there.
	HotWindow int
	// Archive is the SQL archive, the complete record of every message; nil
	// keeps every message in Redis for ever.
	Archive store.Archive
	// ArchiveQueueMax caps the archive queue (DefaultArchiveQueueMax): once
	// it holds this many entries (the archive has been away long), new
	// messages are refused with 503 archive_backlog (archive_cap.go).
	ArchiveQueueMax int
	// ConversationWindow is how many message ids each side of a
	// conversation of private messages keeps (DefaultConversationWindow, at
	// most HotWindow): with an archive, older ones live only there.
	ConversationWindow int
	// CelebrityFans is the number of fans from which an author's posts are
	// pulled by its fans' home timelines instead of pushed into them
	// (DefaultCelebrityFans).
	CelebrityFans int
	// InactiveAfter is how long a user may stay away and still get pushes;
	// after that its home timeline is rebuilt by pulling when it comes back
	// (DefaultInactiveAfter).
	InactiveAfter time.Duration
	// ModeLockTTL is how long an author's fan-out mode lock lasts at most
	// (DefaultModeLockTTL): a change of mode takes a few round trips, and a
	// process that dies holding the lock holds back the author's changes
	// that long.
	ModeLockTTL time.Duration
	// ReplicaAcks is how many replicas of each master must have a write
	// before it is acknowledged (Replicated); 0, the default, acknowledges
	// what the master has. ReplicaWait bounds the wait
	// (DefaultReplicaWait; under the client's read timeout).
	ReplicaAcks int
	ReplicaWait time.Duration
	// ClockSkew is how far apart the clocks of the server processes and of
	// the Redis masters may be (DefaultClockSkew). On a cluster a home read
	// that began up to this much before a star stopped being pulled reads
	// its G again (pulls.go); clocks further apart than that may let such a
	// read miss the star's newest post for that one read.
	ClockSkew time.Duration
	// MaxBlocks and MaxMutes bound how many users one user may block, and
	// mute (DefaultMaxBlocks, DefaultMaxMutes): past them 409.
	MaxBlocks, MaxMutes int
	// Metrics receives the store's counters; nil counts into nothing.
	Metrics *Metrics
	// Files removes media files that nothing refers to any more (a deleted
	// post's images, an old avatar, uploads never attached); nil keeps them.
	Files interface{ Remove(names ...string) }
	// Now returns the current time; tests may replace it.
	Now func() time.Time
	// TrendsWindow is how far back Trends counts topics
	// (DefaultTrendsWindow); TrendsRefresh how long its answer is reused
	// (DefaultTrendsRefresh; negative: never).
	TrendsWindow, TrendsRefresh time.Duration
	// Writer is the writer version this process runs as (see version.go);
	// zero: this code's. Tests set it to act as another version.
	Writer WriterVersions
}

func (o Options) withDefaults() Options {
	if o.BcryptCost <= 0 {
		o.BcryptCost = DefaultBcryptCost
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.HotWindow <= 0 {
		o.HotWindow = DefaultHotWindow
	}
	if o.ArchiveQueueMax <= 0 {
		o.ArchiveQueueMax = DefaultArchiveQueueMax
	}
	if o.ConversationWindow <= 0 {
		o.ConversationWindow = min(o.HotWindow, DefaultConversationWindow)
	}
	if o.CelebrityFans <= 0 {
		o.CelebrityFans = DefaultCelebrityFans
	}
	if o.InactiveAfter <= 0 {
		o.InactiveAfter = DefaultInactiveAfter
	}
	if o.ReplicaWait <= 0 {
		o.ReplicaWait = DefaultReplicaWait
	}
	if o.ClockSkew <= 0 {
		o.ClockSkew = DefaultClockSkew
	}
	if o.ModeLockTTL <= 0 {
		o.ModeLockTTL = DefaultModeLockTTL
	}
	if o.MaxBlocks <= 0 {
		o.MaxBlocks = DefaultMaxBlocks
	}
	if o.MaxMutes <= 0 {
		o.MaxMutes = DefaultMaxMutes
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics(nil)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TrendsWindow <= 0 {
		o.TrendsWindow = DefaultTrendsWindow
	}
	if o.TrendsRefresh == 0 {
		o.TrendsRefresh = DefaultTrendsRefresh
	}
	o.Logger = orDefault(o.Logger)
	return o
}

// FanOutOptions tune the fan-out workers of one process (NewFanOut).
type FanOutOptions struct {
	// Workers is how many batches of jobs this process works on at once
	// (DefaultFanOutWorkers): each waits in Redis for the next job, holding
	// a connection of the pool.
	Workers int
	// Helpers is how many more workers join them while the queue holds a
	// backlog (a read takes a whole readCount), and take the parts of split
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
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o FanOutOptions) withDefaults() FanOutOptions {
	if o.Workers <= 0 {
		o.Workers = DefaultFanOutWorkers
	}
	if o.Helpers == 0 {
		o.Helpers = DefaultFanOutHelpers
	}
	if o.ClaimIdle <= 0 {
		o.ClaimIdle = DefaultClaimIdle
	}
	o.Logger = orDefault(o.Logger)
	return o
}

// ArchiverOptions tune the archiver of one process (NewArchiver).
type ArchiverOptions struct {
	// Batch is how many queued messages one transaction saves
	// (DefaultArchiveBatch).
	Batch int
	// ClaimIdle is how long a batch may stay unsaved before another process
	// takes it over (DefaultClaimIdle).
	ClaimIdle time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o ArchiverOptions) withDefaults() ArchiverOptions {
	if o.Batch <= 0 {
		o.Batch = DefaultArchiveBatch
	}
	if o.ClaimIdle <= 0 {
		o.ClaimIdle = DefaultClaimIdle
	}
	o.Logger = orDefault(o.Logger)
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
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o CheckerOptions) withDefaults() CheckerOptions {
	if o.Interval <= 0 {
		o.Interval = DefaultRepairInterval
	}
	if o.Batch <= 0 {
		o.Batch = DefaultRepairBatch
	}
	if o.Grace <= 0 {
		o.Grace = DefaultRepairGrace
	}
	o.Logger = orDefault(o.Logger)
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
	o.Logger = orDefault(o.Logger)
	return o
}

// CacheListenerOptions tune the listener that keeps a process's session and
// avatar caches (NewCacheListener).
type CacheListenerOptions struct {
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o CacheListenerOptions) withDefaults() CacheListenerOptions {
	o.Logger = orDefault(o.Logger)
	return o
}

// orDefault is logger, or slog.Default() when it is nil.
func orDefault(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.Default()
	}
	return logger
}
