package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"microblog/server/federation"
	"microblog/store/redisdb"
	"microblog/store/redisdb/runner"
)

// fedOutConfig is the delivery queue's settings (docs/operations.md).
type fedOutConfig struct {
	// RetryBase is the wait before a failed delivery is tried again,
	// doubled each time up to 4 h (MICROBLOG_FEDERATION_RETRY_BASE, 30s):
	// short in tests.
	RetryBase time.Duration
	// GiveUp is how long after it was queued a delivery that keeps failing
	// is given up (MICROBLOG_FEDERATION_GIVE_UP, 26h; at most 48h).
	GiveUp time.Duration
}

// maxGiveUp bounds GiveUp below the life of a queued delivery's body
// (fed.BodyTTL).
const maxGiveUp = 48 * time.Hour

// readFedOutSettings reads cfg.FedOut; a bad value is an error naming it.
func readFedOutSettings(getenv func(string) string, cfg *config) error {
	fc := fedOutConfig{RetryBase: runner.DefaultDeliveryRetryBase, GiveUp: runner.DefaultDeliveryGiveUp}
	if err := readEnvDurations(getenv, []envDuration{
		{"MICROBLOG_FEDERATION_RETRY_BASE", &fc.RetryBase, time.Millisecond},
		{"MICROBLOG_FEDERATION_GIVE_UP", &fc.GiveUp, time.Millisecond},
	}); err != nil {
		return err
	}
	if fc.GiveUp > maxGiveUp {
		return fmt.Errorf("invalid MICROBLOG_FEDERATION_GIVE_UP %v: at most %v", fc.GiveUp, maxGiveUp)
	}
	cfg.FedOut = fc
	return nil
}

// startFedRunners runs the deliverer and the outbound runner of this
// process while federation is on, until the returned stop is called.
func startFedRunners(st *redisdb.Store, fed *federation.Service, cfg config, reg prometheus.Registerer, logger *slog.Logger) (stop func()) {
	if fed == nil {
		return func() {}
	}
	tc := cfg.Timelines
	ctx, cancel := context.WithCancel(context.Background())
	d := runner.NewDeliverer(st, runner.DelivererOptions{Deliver: fed.DeliverJob, // which refuses blocked domains
		RetryBase: cfg.FedOut.RetryBase, GiveUpAfter: cfg.FedOut.GiveUp, ClaimIdle: tc.ClaimIdle,
		Metrics: runner.NewDeliveryMetrics(reg), Logger: logger})
	o := runner.NewOutbox(st, runner.OutboxOptions{Handle: fed.HandleEvent, ClaimIdle: tc.ClaimIdle, Logger: logger})
	done := make(chan struct{}, 2)
	go func() { d.Run(ctx); done <- struct{}{} }()
	go func() { o.Run(ctx); done <- struct{}{} }()
	return func() {
		cancel()
		<-done
		<-done
	}
}
