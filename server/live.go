package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"microblog/hub"
	"microblog/store/redisdb"
	"microblog/store/redisdb/pubsub"
)

// live is the live feed of one run: the process's one Redis subscriber
// connection and the hub that fans out what it reads.
type live struct {
	hub  *hub.Hub
	sub  *pubsub.Subscriber
	stop context.CancelFunc
	done chan struct{} // closed when the subscriber's reader returns
}

// startLive starts the subscriber and the hub; shutdown stops them.
func startLive(lc liveConfig, st *redisdb.Store, logger *slog.Logger, reg prometheus.Registerer) *live {
	sub := pubsub.New(st.Client(), st.Keys())
	sub.Logger = logger
	h := hub.New(sub, st, hub.Options{
		SendQueue:  lc.Queue,
		ReplayMax:  lc.ReplayMax,
		Linger:     max(lc.Linger, time.Millisecond),
		PongWait:   lc.PongWait,
		WriteWait:  lc.WriteWait,
		Registerer: reg,
		Logger:     logger,
	})
	ctx, stop := context.WithCancel(context.Background())
	lv := &live{hub: h, sub: sub, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(lv.done)
		sub.Run(ctx, h)
	}()
	return lv
}

// shutdown closes every live connection cleanly (1001), then the
// subscriber connection.
func (lv *live) shutdown(ctx context.Context) error {
	err := lv.hub.Shutdown(ctx)
	lv.stop()
	<-lv.done
	if err != nil {
		return fmt.Errorf("live feed shutdown: %w", err)
	}
	return nil
}
