package runner

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Ops is the one written list of what the background runners ask of the
// request path (package redisdb's Store has every method). A runner reads
// and writes the queues and keys of its own job through the client and the
// key schema it gets here; whatever the request path also does (indexing a
// message, a change of fan-out mode, the caches) it asks for by name below,
// so the two never share a private step.
type Ops interface {
	// Client is the Redis client, and Keys the key schema, of the store.
	Client() redis.UniversalClient
	Keys() schema.Keys
	// Wrap names a failed operation and marks Redis being away
	// (store.ErrUnavailable) or full (store.ErrStorageFull).
	Wrap(op string, err error) error
	// Now is the time in unix ms.
	Now() int64

	// The settings the runners share with the request path.
	HotWindow() int
	ConversationWindow() int
	InactiveAfter() time.Duration
	Archive() store.Archive // nil without one

	// The fan-out: a push into a home timeline, trimmed to the hot window;
	// the end of the pending marks of the push jobs done; and an author's
	// fan-out mode, reconsidered (after a job) or its drain ended (after
	// its backfill).
	QueueHomeAdd(ctx context.Context, pl redis.Pipeliner, uid int64, zs ...redis.Z)
	UnmarkPending(ctx context.Context, pl redis.Pipeliner, done []schema.Job)
	Reconsider(ctx context.Context, author int64) error
	Reconsidered(ctx context.Context, author int64) (made []string, err error)
	EndDrain(ctx context.Context, author int64, token string) error

	// The checker's repairs of what a stopped request left: each returns
	// whether there was anything to repair, or the kind of repair made
	// (schema.Repair*; "" for none).
	IndexUnfinished(ctx context.Context, mid int64, idem string) (kind string, err error)
	RemoveUnfinished(ctx context.Context, mid int64) (bool, error)
	ShowUnfinished(ctx context.Context, mid int64) (bool, error)
	FinishDM(ctx context.Context, pmid int64, hash map[string]string) (kind string, err error)

	// The media janitor's removal of uploads no post took.
	DropMedia(ctx context.Context, media []store.Media)

	// The cache listener's: the caches on while it hears every change, and
	// what a change drops.
	SetCachesLive(on bool)
	ForgetSession(tokenHash string)
	ForgetAuthor(uid int64)
	ForgetLens(uid int64)
}

// base is what every runner holds: the request path's operations, and the
// client and key schema of its own work.
type base struct {
	s    Ops
	rdb  redis.UniversalClient
	keys schema.Keys
}

func newBase(ops Ops) base { return base{s: ops, rdb: ops.Client(), keys: ops.Keys()} }
