package media

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Uploads serve the images' part of the store's interfaces: uploads, their
// descriptions, avatars, and dropping images nothing holds. A
// redisdb.Store embeds them, so their methods are the Store's.
type Uploads struct {
	rdb  redis.UniversalClient
	keys schema.Keys
	opt  Options
	core Core
}

// Options are the Store's options that the uploads use.
type Options struct {
	// Files removes media files that nothing refers to any more (a deleted
	// post's images, an old avatar, uploads never attached); nil keeps them.
	Files interface{ Remove(names ...string) }
}

// Core is what the uploads ask of the rest of the request path.
type Core interface {
	// Wrap names a failed operation and tells an unreachable Redis apart.
	Wrap(op string, err error) error
	// Now is the time, in unix ms, as the store counts it.
	Now() int64
	// User is uid as viewer sees it; Username is uid's name.
	User(ctx context.Context, uid, viewer int64) (store.User, error)
	Username(ctx context.Context, uid int64) (string, error)
	// ForgetAuthor drops uid's author card from the process's cache.
	ForgetAuthor(uid int64)
}

// New returns the uploads over rdb, with core for the rest of the store.
func New(rdb redis.UniversalClient, keys schema.Keys, opt Options, core Core) *Uploads {
	return &Uploads{rdb: rdb, keys: keys, opt: opt, core: core}
}
