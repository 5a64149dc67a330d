package redisdb

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// publish sends one live event on a channel. A failed publish loses nothing
// that is stored: the message is already in Redis, and live clients catch up
// from the timelines when they reconnect or resubscribe. So it is logged, not
// returned.
func (s *Store) publish(ctx context.Context, channel, event string, data any) {
	frame, err := store.EncodeFrame(event, data)
	if err == nil {
		err = s.rdb.Publish(context.WithoutCancel(ctx), channel, frame).Err()
	}
	if err != nil {
		slog.WarnContext(ctx, "publish live event", "channel", channel, "event", event, "err", err)
	}
}

// queuePublish adds a live event to a pipeline, so that it is sent in the
// same round trip as, and after, the writes it announces.
func (s *Store) queuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any) {
	frame, err := store.EncodeFrame(event, data)
	if err != nil {
		slog.ErrorContext(ctx, "encode live event", "event", event, "err", err)
		return
	}
	pl.Publish(ctx, channel, frame)
}
