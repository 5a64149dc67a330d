package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// publish sends one live event on a channel. A failed publish loses nothing
// that is stored: the message is already in Redis, and live clients catch up
// from the timelines when they reconnect or resubscribe. So it is logged, not
// returned. On a cluster the event goes out with SPUBLISH, to the one master
// that serves the channel's partition, from a script (Spublish.lua): a
// replica would take a plain SPUBLISH and lose it.
func (s *Store) publish(ctx context.Context, channel, event string, data any) {
	frame, err := store.EncodeFrame(event, data)
	if err == nil {
		ctx := context.WithoutCancel(ctx)
		if s.keys.Cluster() {
			err = schema.Spublish.Run(ctx, s.rdb, []string{channel}, frame).Err()
		} else {
			err = s.rdb.Publish(ctx, channel, frame).Err()
		}
	}
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "publish live event", "channel", channel, "event", event, "err", err)
	}
}

// queuePublish adds a live event to a pipeline, so that it is sent in the
// same round trip as, and after, the writes it announces.
//
// On a cluster the pipeline is split by master and the parts are sent at
// once, so the SPUBLISH is ordered only after the writes that go to the
// same master as its partition.
func (s *Store) queuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any) {
	frame, err := store.EncodeFrame(event, data)
	if err != nil {
		s.opt.Logger.ErrorContext(ctx, "encode live event", "event", event, "err", err)
		return
	}
	s.queuePublishFrame(ctx, pl, channel, frame)
}

// queuePublishFrame is queuePublish of a frame encoded beforehand.
func (s *Store) queuePublishFrame(ctx context.Context, pl redis.Pipeliner, channel string, frame []byte) {
	if s.keys.Cluster() {
		schema.Spublish.Eval(ctx, pl, []string{channel}, frame)
	} else {
		pl.Publish(ctx, channel, frame)
	}
}
