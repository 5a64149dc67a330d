package redisdb

import (
	"log/slog"
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
	// DefaultTrendsWindow is how far back trends count.
	DefaultTrendsWindow = 24 * time.Hour
	// DefaultTrendsRefresh is how long worked-out trends are reused, by
	// every process (trends:cache), so that they cost Redis little however
	// often they are read.
	DefaultTrendsRefresh = 5 * time.Second
)

// DefaultArchiveQueueMax is the cap of the archive queue: entries
// waiting for an archive that is away, at 1.2 KB of Redis each for
// short posts and their likes (TestArchiveOutageUnderLoad; the entry,
// and the message that cannot leave Redis before it is archived), up
// to about 2 KB for long ones: 1.2 to 2 GB at most.
const DefaultArchiveQueueMax = 1_000_000

// Options tune a Store. The zero value is usable.
type Options struct {
	// Federation queues the local events that go out to other servers
	// (fed:outbox, post_fed.go): off, nothing is queued.
	Federation bool
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
	// messages are refused with 503 archive_backlog (post_archive_cap.go).
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
	// its G again (timeline_pulls.go); clocks further apart than that may let such a
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
	// Writer is the writer version this process runs as (see store_version.go);
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

// orDefault is logger, or slog.Default() when it is nil.
func orDefault(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.Default()
	}
	return logger
}
