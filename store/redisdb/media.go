package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/media"
)

// Uploads, their descriptions and avatars live in package media; the Store
// embeds them. The steps of it that the rest of the request path takes
// are below, by the names they had here.

func (s *Store) queueMediaRead(ctx context.Context, pl redis.Pipeliner, ids []int64) []*redis.MapStringStringCmd {
	return media.QueueRead(ctx, s.Uploads, pl, ids)
}

func (s *Store) queueAttach(ctx context.Context, pl redis.Pipeliner, m []store.Media, mid int64) {
	media.QueueAttach(ctx, s.Uploads, pl, m, mid)
}

// mediaCore is what the uploads ask of the Store (media.Core).
type mediaCore struct{ *Store }

func (c mediaCore) Username(ctx context.Context, uid int64) (string, error) {
	return c.username(ctx, uid)
}
