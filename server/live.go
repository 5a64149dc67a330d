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

// liveConfig is the live feed's settings, read from MICROBLOG_WS_* variables.
type liveConfig struct {
	Queue     int           // MICROBLOG_WS_QUEUE: frames a connection may have waiting before it is closed with 4008
	ReplayMax int           // MICROBLOG_WS_REPLAY_MAX: most posts replayed on connect with ?after or after a Redis outage
	Linger    time.Duration // MICROBLOG_WS_LINGER: how long a topic stays subscribed after its last listener leaves
	PongWait  time.Duration // MICROBLOG_WS_PONG_WAIT: a client silent this long (no pong) is dropped
	WriteWait time.Duration // MICROBLOG_WS_WRITE_WAIT: a frame not taken by the client this soon closes it with 4008
}

// loadLiveConfig reads the live feed's settings; a bad value is an error
// naming the variable.
func loadLiveConfig(getenv func(string) string) (liveConfig, error) {
	lc := liveConfig{Queue: hub.DefaultSendQueue, ReplayMax: hub.DefaultReplayMax, Linger: hub.DefaultLinger,
		PongWait: hub.DefaultPongWait, WriteWait: hub.DefaultWriteWait}
	err := readEnvInts(getenv, []envInt{
		{"MICROBLOG_WS_QUEUE", &lc.Queue, 1, 1 << 20},
		{"MICROBLOG_WS_REPLAY_MAX", &lc.ReplayMax, 1, 1 << 20},
	})
	if err == nil {
		err = readEnvDurations(getenv, []envDuration{
			{"MICROBLOG_WS_LINGER", &lc.Linger, 0},
			{"MICROBLOG_WS_PONG_WAIT", &lc.PongWait, time.Second},
			{"MICROBLOG_WS_WRITE_WAIT", &lc.WriteWait, 100 * time.Millisecond},
		})
	}
	if err != nil {
		return liveConfig{}, err
	}
	return lc, nil
}

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
