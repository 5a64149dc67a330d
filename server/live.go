package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"microblog/hub"
	"microblog/store/redisdb"
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
	lc := liveConfig{Queue: 256, ReplayMax: 200, Linger: 5 * time.Second, PongWait: 60 * time.Second, WriteWait: 10 * time.Second}
	ints := []struct {
		name string
		dst  *int
		min  int
	}{{"MICROBLOG_WS_QUEUE", &lc.Queue, 1}, {"MICROBLOG_WS_REPLAY_MAX", &lc.ReplayMax, 1}}
	for _, v := range ints {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < v.min || n > 1<<20 {
				return liveConfig{}, fmt.Errorf("invalid %s %q: want a whole number from %d to %d", v.name, s, v.min, 1<<20)
			}
			*v.dst = n
		}
	}
	durations := []struct {
		name string
		dst  *time.Duration
		min  time.Duration
	}{
		{"MICROBLOG_WS_LINGER", &lc.Linger, 0},
		{"MICROBLOG_WS_PONG_WAIT", &lc.PongWait, time.Second},
		{"MICROBLOG_WS_WRITE_WAIT", &lc.WriteWait, 100 * time.Millisecond},
	}
	for _, v := range durations {
		if s := getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d < v.min {
				return liveConfig{}, fmt.Errorf("invalid %s %q: want a duration of at least %s, such as 5s", v.name, s, v.min)
			}
			*v.dst = d
		}
	}
	return lc, nil
}

// live is the live feed of one run: the process's one Redis subscriber
// connection and the hub that fans out what it reads.
type live struct {
	hub  *hub.Hub
	sub  *redisdb.Subscriber
	stop context.CancelFunc
	done chan struct{} // closed when the subscriber's reader returns
}

// startLive starts the subscriber and the hub; shutdown stops them.
func startLive(lc liveConfig, st *redisdb.Store, logger *slog.Logger, reg prometheus.Registerer) *live {
	sub := st.NewSubscriber()
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
