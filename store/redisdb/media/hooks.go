package media

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// What the rest of the request path (package redisdb) does with the
// uploads beyond the store's interfaces, besides the pure Own, JSON and
// AvatarURL. These are functions, not methods, so that they do not join the
// method set of the Store that embeds Uploads.

// QueueRead reads the uploads ids in a pipeline, for Own.
func QueueRead(ctx context.Context, u *Uploads, pl redis.Pipeliner, ids []int64) []*redis.MapStringStringCmd {
	return u.queueRead(ctx, pl, ids)
}

// QueueAttach marks a post's images taken by it.
func QueueAttach(ctx context.Context, u *Uploads, pl redis.Pipeliner, media []store.Media, mid int64) {
	u.queueAttach(ctx, pl, media, mid)
}
