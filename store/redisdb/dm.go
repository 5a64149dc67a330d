package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/media"
)

// The private messages live in package dm; the Store embeds them.

// dmCore is what the private messages ask of the Store (dm.Core).
type dmCore struct{ *Store }

func (c dmCore) Users(ctx context.Context, uids []int64, viewer int64) ([]store.User, error) {
	return c.users(ctx, uids, viewer)
}

func (c dmCore) Username(ctx context.Context, uid int64) (string, error) {
	return c.username(ctx, uid)
}

func (c dmCore) Publish(ctx context.Context, channel, event string, data any) {
	c.publish(ctx, channel, event, data)
}

func (c dmCore) QueuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any) {
	c.queuePublish(ctx, pl, channel, event, data)
}

func (c dmCore) QueuePublishFrame(ctx context.Context, pl redis.Pipeliner, channel string, frame []byte) {
	c.queuePublishFrame(ctx, pl, channel, frame)
}

func (c dmCore) QueueAllow(ctx context.Context, pl redis.Pipeliner, bucket, subject string, l store.Limit) func() error {
	return c.queueAllow(ctx, pl, bucket, subject, l)
}

func (c dmCore) QueueArchiveRoom(ctx context.Context, pl redis.Pipeliner) *redis.IntCmd {
	return c.queueArchiveRoom(ctx, pl)
}

func (c dmCore) ArchiveRoom(queued *redis.IntCmd) error { return c.archiveRoom(queued) }

func (c dmCore) QueueArchiveRow(ctx context.Context, pl redis.Pipeliner, op string, row any, isDelete bool) {
	c.queueArchiveRow(ctx, pl, op, row, isDelete)
}

func (c dmCore) QueueIdemClaim(ctx context.Context, pl redis.Pipeliner, uid int64, key, reqHash string) (idemKey, claim string, held *redis.Cmd) {
	return c.queueIdemClaim(ctx, pl, uid, key, reqHash)
}

func (c dmCore) DropClaim(ctx context.Context, key string, values ...any) {
	c.dropClaim(ctx, key, values...)
}

func (c dmCore) UntilAnswered(ctx context.Context, do func(context.Context) error) bool {
	return c.untilAnswered(ctx, do)
}

func (c dmCore) QueueMediaRead(ctx context.Context, pl redis.Pipeliner, ids []int64) []*redis.MapStringStringCmd {
	return c.queueMediaRead(ctx, pl, ids)
}

func (dmCore) OwnMedia(owner int64, ids []int64, cmds []*redis.MapStringStringCmd) ([]store.Media, error) {
	return media.Own(owner, ids, cmds)
}

func (c dmCore) QueueAttach(ctx context.Context, pl redis.Pipeliner, media []store.Media, mid int64) {
	c.queueAttach(ctx, pl, media, mid)
}
