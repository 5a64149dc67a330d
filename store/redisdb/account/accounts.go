package account

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/internal/livecache"
	"microblog/store/redisdb/schema"
)

// Accounts serve the accounts' part of the store's interfaces. A
// redisdb.Store embeds them, so their methods are the Store's.
type Accounts struct {
	rdb  redis.UniversalClient
	keys schema.Keys
	opt  Options
	core Core
	// dummyHash is compared against when a login names no user, so that a
	// wrong name and a wrong password take the same time.
	// It is made on first use: making it takes as long as a login, and
	// most stores (each test makes one, often several) never need it.
	dummyHash func() []byte
	// sessions is the process's cache of session tokens, which the Store
	// keeps live with its other caches (redisdb/store_caches.go).
	sessions *livecache.Cache[string, Session]
}

// Options are the Store's options that the accounts use, with the Store's
// defaults already applied.
type Options struct {
	Logger     *slog.Logger
	BcryptCost int
	SessionTTL time.Duration
	// Archive is the SQL archive, nil without one.
	Archive store.Archive
}

// Core is what the accounts ask of the rest of the request path.
type Core interface {
	// Wrap names a failed operation and tells an unreachable Redis apart.
	Wrap(op string, err error) error
	// Now is the time, in unix ms, as the store counts it.
	Now() int64
	// User is uid as viewer sees it.
	User(ctx context.Context, uid, viewer int64) (store.User, error)
	// Username is uid's name as written.
	Username(ctx context.Context, uid int64) (string, error)
	// IndexUser queues uid's name in the user search index.
	IndexUser(ctx context.Context, pl redis.Pipeliner, uid int64, lowerName string)
	// Touch marks uid as seen now, so that pushes reach it.
	Touch(ctx context.Context, uid int64) error
	// KeysMatching is every key matching pattern, on every master.
	KeysMatching(ctx context.Context, pattern string) ([]string, error)
	// Publish sends a live event; QueuePublish queues one in pl.
	Publish(ctx context.Context, channel, event string, data any)
	QueuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any)
	// ForgetAuthor drops uid's author card from the process's cache.
	ForgetAuthor(uid int64)
}

// Session is what a session token's hash stands for, as the session cache
// keeps it.
type Session struct {
	uid  int64
	kind SessionKind
}

// New returns the accounts over rdb, with core for the rest of the store
// and sessions for the session cache.
func New(rdb redis.UniversalClient, keys schema.Keys, opt Options, core Core, sessions *livecache.Cache[string, Session]) *Accounts {
	dummy := sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte("not a real password"), opt.BcryptCost)
		return h
	})
	return &Accounts{rdb: rdb, keys: keys, opt: opt, core: core, dummyHash: dummy, sessions: sessions}
}

// migrateChunk is how many keys (or members) one round of a migration reads.
const migrateChunk = 200

// id and parseID write and read ids as the schema does.
func id(n int64) string      { return schema.ID(n) }
func parseID(s string) int64 { return schema.ParseID(s) }
