package social

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/livecache"
	"microblog/store/redisdb/schema"
)

// Social serves the social part of the store's interfaces: follows, likes,
// notifications, trends, search, blocks, mutes, moderation, protected
// accounts, bookmarks and pins. A redisdb.Store embeds it, so its methods
// are the Store's.
type Social struct {
	rdb  redis.UniversalClient
	keys schema.Keys
	opt  Options
	core Core
	// lenses is the process's cache of what each reader may see, which the
	// Store keeps live with its other caches (redisdb/store_caches.go).
	lenses *livecache.Cache[int64, *store.Lens]
	// likeVersions is the newest version likeVersion gave out (likes.go).
	likeVersions *atomic.Int64
}

// Options are the Store's options that this package uses, with the Store's
// defaults already applied.
type Options struct {
	Logger *slog.Logger
	// Archive is the SQL archive, nil without one.
	Archive       store.Archive
	HotWindow     int
	MaxBlocks     int
	MaxMutes      int
	TrendsWindow  time.Duration
	TrendsRefresh time.Duration
	Now           func() time.Time
}

// Card is what this package reads of an author's card.
type Card struct{ Protected, Suspended bool }

// Core is what this package asks of the rest of the request path: reading
// posts and users, the home timeline and the fan-out mode, the archive,
// live events.
type Core interface {
	// Wrap names a failed operation and tells an unreachable Redis apart.
	Wrap(op string, err error) error
	// Now is the time, in unix ms, as the store counts it.
	Now() int64
	// User and Users are users as viewer sees them; Username is uid's name.
	User(ctx context.Context, uid, viewer int64) (store.User, error)
	Users(ctx context.Context, uids []int64, viewer int64) ([]store.User, error)
	Username(ctx context.Context, uid int64) (string, error)
	// Cards are the authors' cards.
	Cards(ctx context.Context, uids []int64) (map[int64]Card, error)
	// ForgetAuthor drops uid's author card from the process's cache.
	ForgetAuthor(uid int64)
	// LogoutAll ends every session of uid.
	LogoutAll(ctx context.Context, uid int64) error
	// Post is message mid as viewer sees it; Delete deletes it as uid.
	Post(ctx context.Context, mid, viewer int64) (store.Post, error)
	Delete(ctx context.Context, uid, mid int64) error
	// Message reads mid (hot or archived) as stored; Lookup tells too
	// whether it is hot.
	Message(ctx context.Context, mid int64) (*store.Post, error)
	Lookup(ctx context.Context, mid int64) (m *store.Post, hot bool, err error)
	// Posts and LoadPosts read messages as viewer sees them (Posts sifted).
	Posts(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, error)
	LoadPosts(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, error)
	// Hydrate fills items with the posts of mids, read from keys, as viewer
	// sees them at.
	Hydrate(ctx context.Context, keys []string, mids []int64, viewer int64, at store.Place, items []store.Post) ([]store.Post, error)
	// TagPage is a page of the posts carrying the topic of index form key.
	TagPage(ctx context.Context, key string, q store.PageQuery) (store.Page[store.Post], error)
	// ArchiveTail reads the ids of q from the archive; nil without one.
	ArchiveTail(q store.ArchiveQuery) func(ctx context.Context, before, after int64, n int) ([]int64, error)
	// QueueArchiveLike queues a like or an unlike for the archive in pl.
	QueueArchiveLike(ctx context.Context, pl redis.Pipeliner, op string, l store.ArchivedLike)
	// FillHome adds zs to uid's home timeline, down to cut.
	FillHome(ctx context.Context, uid int64, zs []redis.Z, cut float64) error
	// Reconsider moves author to the fan-out mode its fans call for.
	Reconsider(ctx context.Context, author int64) error
	// Publish sends a live event; QueuePublish and QueuePublishFrame queue
	// one in pl.
	Publish(ctx context.Context, channel, event string, data any)
	QueuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any)
	QueuePublishFrame(ctx context.Context, pl redis.Pipeliner, channel string, frame []byte)
}

// New returns the social part of the store over rdb, with core for the rest
// of it and lenses for the lens cache.
func New(rdb redis.UniversalClient, keys schema.Keys, opt Options, core Core, lenses *livecache.Cache[int64, *store.Lens]) *Social {
	return &Social{rdb: rdb, keys: keys, opt: opt, core: core, lenses: lenses, likeVersions: &atomic.Int64{}}
}

// id and parseID write and read ids as the schema does.
func id(n int64) string      { return schema.ID(n) }
func parseID(s string) int64 { return schema.ParseID(s) }
