package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// Federation's part of the store lives in package fed; the Store embeds it.

// fedCore is what federation asks of the Store (fed.Core).
type fedCore struct{ *Store }

func (c fedCore) IndexUser(ctx context.Context, pl redis.Pipeliner, uid int64, lowerName string) {
	c.indexUser(ctx, pl, uid, lowerName)
}

func (c fedCore) RemoveAccount(ctx context.Context, uid int64) error {
	return c.removeAccount(ctx, uid)
}

func (c fedCore) ProfileChanged(ctx context.Context, uid int64) {
	if err := c.rdb.Publish(context.WithoutCancel(ctx), c.keys.AvatarsChannel(), uid).Err(); err != nil {
		c.opt.Logger.WarnContext(ctx, "publish author change", "uid", uid, "err", err)
	}
	c.ForgetAuthor(uid)
}

// The Store keeps federation's state.
var _ store.Fed = (*Store)(nil)
