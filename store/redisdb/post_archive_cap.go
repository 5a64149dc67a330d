package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// While the archive is away, the archive queue grows by an entry per write,
// and no message leaves Redis: Redis's memory grows with every post. The
// queue's cap (Options.ArchiveQueueMax) bounds that growth. A post, comment,
// repost or private message asks the queue's length in its claim's pipeline
// (no round trip of its own) and, once the queue holds the cap, is refused
// with 503 archive_backlog before anything is written, while reads, likes,
// follows and deletes go on; the cap is checked before the write, so the
// queue may pass it by the writes in flight, a few per process. Redis's
// own maxmemory (noeviction) stays the last guard: past it every write is
// refused with 503 storage_full.

// queueArchiveRoom asks, in a claim's pipeline, how long the archive queue
// is; nil when nothing is archived.
func (s *Store) queueArchiveRoom(ctx context.Context, pl redis.Pipeliner) *redis.IntCmd {
	if s.opt.Archive == nil {
		return nil
	}
	return pl.XLen(ctx, s.keys.ArchiveQueue())
}

// archiveRoom is nil while the archive queue (as queueArchiveRoom read it)
// has room for a write, store.ErrArchiveBacklog once it holds
// ArchiveQueueMax entries.
func (s *Store) archiveRoom(queued *redis.IntCmd) error {
	if queued == nil || queued.Val() < int64(s.opt.ArchiveQueueMax) {
		return nil
	}
	s.opt.Metrics.archiveBacklog.Inc()
	return store.ErrArchiveBacklog
}
