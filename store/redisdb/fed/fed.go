package fed

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/schema"
)

// Fed serves the store's federation (store.Fed). A redisdb.Store embeds
// it, so its methods are the Store's.
type Fed struct {
	rdb  redis.UniversalClient
	keys schema.Keys
	opt  Options
	core Core
}

// Options are the Store's options that federation uses.
type Options struct {
	Logger *slog.Logger
}

// Core is what federation asks of the rest of the store.
type Core interface {
	// Wrap names a failed operation and tells an unreachable Redis apart.
	Wrap(op string, err error) error
	// Now is the time, in unix ms, as the store counts it.
	Now() int64
	// IndexUser queues, in pl, what makes a new user found by search.
	IndexUser(ctx context.Context, pl redis.Pipeliner, uid int64, lowerName string)
	// RemoveAccount removes a user with everything it has (as a deletion
	// of the account does), without asking for its password.
	RemoveAccount(ctx context.Context, uid int64) error
	// ProfileChanged tells every process that uid's name, avatar or
	// profile changed (their caches of author cards).
	ProfileChanged(ctx context.Context, uid int64)
}

// New returns federation's store over rdb, with core for the rest of it.
func New(rdb redis.UniversalClient, keys schema.Keys, opt Options, core Core) *Fed {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Fed{rdb: rdb, keys: keys, opt: opt, core: core}
}

// id and parseID write and read ids as the schema does.
func id(n int64) string      { return schema.ID(n) }
func parseID(s string) int64 { return schema.ParseID(s) }
