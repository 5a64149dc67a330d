package dm

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// DMs serve the private messages' part of the store's interfaces. A
// redisdb.Store embeds them, so their methods are the Store's.
type DMs struct {
	rdb  redis.UniversalClient
	keys schema.Keys
	opt  Options
	core Core
}

// Options are the Store's options that the private messages use.
type Options struct {
	// Archive is the SQL archive, nil without one.
	Archive store.Archive
}

// Core is what the private messages ask of the rest of the request path:
// the steps they share with posts (a rate limit, the archive queue's room,
// an Idempotency-Key's claim, images) and the users they show.
type Core interface {
	// Wrap names a failed operation and tells an unreachable Redis apart.
	Wrap(op string, err error) error
	// Now is the time, in unix ms, as the store counts it.
	Now() int64
	// Users are uids as viewer sees them; Username is uid's name.
	Users(ctx context.Context, uids []int64, viewer int64) ([]store.User, error)
	Username(ctx context.Context, uid int64) (string, error)
	// Publish sends a live event; QueuePublish and QueuePublishFrame queue
	// one in pl.
	Publish(ctx context.Context, channel, event string, data any)
	QueuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any)
	QueuePublishFrame(ctx context.Context, pl redis.Pipeliner, channel string, frame []byte)
	// QueueAllow counts a write against l in pl; the func it returns tells
	// whether the limit let it through.
	QueueAllow(ctx context.Context, pl redis.Pipeliner, bucket, subject string, l store.Limit) func() error
	// QueueArchiveRoom reads the archive queue's length in pl; ArchiveRoom
	// tells from it whether a new message may be written.
	QueueArchiveRoom(ctx context.Context, pl redis.Pipeliner) *redis.IntCmd
	ArchiveRoom(queued *redis.IntCmd) error
	// QueueArchiveRow queues a row for the archive in pl.
	QueueArchiveRow(ctx context.Context, pl redis.Pipeliner, op string, row any, isDelete bool)
	// QueueIdemClaim claims an Idempotency-Key in pl; DropClaim gives a
	// claim back.
	QueueIdemClaim(ctx context.Context, pl redis.Pipeliner, uid int64, key, reqHash string) (idemKey, claim string, held *redis.Cmd)
	DropClaim(ctx context.Context, key string, values ...any)
	// UntilAnswered runs do until Redis answers it, for a bounded time.
	UntilAnswered(ctx context.Context, do func(context.Context) error) bool
	// QueueMediaRead reads uploads in pl, OwnMedia checks them, QueueAttach
	// marks them taken, DropMedia removes them.
	QueueMediaRead(ctx context.Context, pl redis.Pipeliner, ids []int64) []*redis.MapStringStringCmd
	OwnMedia(owner int64, ids []int64, cmds []*redis.MapStringStringCmd) ([]store.Media, error)
	QueueAttach(ctx context.Context, pl redis.Pipeliner, media []store.Media, mid int64)
	DropMedia(ctx context.Context, media []store.Media)
}

// New returns the private messages over rdb, with core for the rest of the
// store.
func New(rdb redis.UniversalClient, keys schema.Keys, opt Options, core Core) *DMs {
	return &DMs{rdb: rdb, keys: keys, opt: opt, core: core}
}

// id and parseID write and read ids as the schema does.
func id(n int64) string      { return schema.ID(n) }
func parseID(s string) int64 { return schema.ParseID(s) }
