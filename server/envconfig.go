package main

import (
	"fmt"
	"strconv"
	"time"

	"microblog/hub"
	"microblog/store/archive"
	"microblog/store/redisdb"
	"microblog/store/redisdb/runner"
)

// The settings that come from the environment only, without a flag: the
// live feed's, the hybrid timelines' and the background runners', and the
// profiler's address. Each starts from the default of the package that
// uses it.

// liveConfig is the live feed's settings, read from MICROBLOG_WS_* variables.
type liveConfig struct {
	Queue     int           // MICROBLOG_WS_QUEUE: frames a connection may have waiting before it is closed with 4008
	ReplayMax int           // MICROBLOG_WS_REPLAY_MAX: most posts replayed on connect with ?after or after a Redis outage
	Linger    time.Duration // MICROBLOG_WS_LINGER: how long a topic stays subscribed after its last listener leaves
	PongWait  time.Duration // MICROBLOG_WS_PONG_WAIT: a client silent this long (no pong) is dropped
	WriteWait time.Duration // MICROBLOG_WS_WRITE_WAIT: a frame not taken by the client this soon closes it with 4008
}

// timelineConfig is the hybrid timelines' settings (docs/architecture.md) and those of the fan-out and the archive behind them.
type timelineConfig struct {
	CelebrityFans int           // MICROBLOG_CELEBRITY_FANS: from this many fans an author is pulled, not pushed
	InactiveAfter time.Duration // MICROBLOG_INACTIVE_AFTER: a user away this long gets no pushes
	Workers       int           // MICROBLOG_FANOUT_WORKERS: batches of fan-out jobs this process works on at once
	ClaimIdle     time.Duration // MICROBLOG_FANOUT_CLAIM_IDLE: a job silent this long is taken over
	BatchDelay    time.Duration // MICROBLOG_FANOUT_BATCH_DELAY: a pause between batches, for tests
	HotWindow     int           // MICROBLOG_HOT_WINDOW: ids each F and G set and the public timeline keep
	Archive       string        // MICROBLOG_ARCHIVE: sqlite:<path>, mysql://user:pass@host:port/db or off
	ArchiveQueue  int           // MICROBLOG_ARCHIVE_QUEUE_MAX: entries the archive queue may hold before new messages are refused
	TrendsWindow  time.Duration // MICROBLOG_TRENDS_WINDOW: how far back trends count topics
	ClockSkew     time.Duration // MICROBLOG_CLOCK_SKEW: how far apart the clocks of the server processes and Redis masters may be
}

// repairConfig is the checker of half-written messages' settings.
type repairConfig struct {
	Interval time.Duration // MICROBLOG_REPAIR_INTERVAL: the time between two runs
}

// bundleSetting reads MICROBLOG_BUNDLE: whether the front ends' pages load
// their code bundled (on, the default) or module by module (off).
func bundleSetting(getenv func(string) string) (bool, error) {
	switch v := getenv("MICROBLOG_BUNDLE"); v {
	case "", "on":
		return true, nil
	case "off":
		return false, nil
	default:
		return false, fmt.Errorf("invalid MICROBLOG_BUNDLE %q: want on or off", v)
	}
}

// pprofConfig is the profiler's settings.
type pprofConfig struct {
	Addr string // MICROBLOG_PPROF_ADDR: where /debug/pprof/ is served; empty: nowhere
}

// defaultArchive is where make run (and a server started without settings)
// keeps the archive.
const defaultArchive = "sqlite:.data/archive.db"

// readEnvSettings reads cfg's settings that come from the environment only;
// a bad value is an error naming its variable.
func readEnvSettings(getenv func(string) string, cfg *config) error {
	lc := liveConfig{Queue: hub.DefaultSendQueue, ReplayMax: hub.DefaultReplayMax, Linger: hub.DefaultLinger,
		PongWait: hub.DefaultPongWait, WriteWait: hub.DefaultWriteWait}
	tc := timelineConfig{CelebrityFans: redisdb.DefaultCelebrityFans, InactiveAfter: redisdb.DefaultInactiveAfter,
		Workers: runner.DefaultFanOutWorkers, ClaimIdle: runner.DefaultClaimIdle, HotWindow: redisdb.DefaultHotWindow,
		Archive: defaultArchive, ArchiveQueue: redisdb.DefaultArchiveQueueMax, TrendsWindow: redisdb.DefaultTrendsWindow,
		ClockSkew: redisdb.DefaultClockSkew}
	rc := repairConfig{Interval: runner.DefaultRepairInterval}
	if v := getenv("MICROBLOG_ARCHIVE"); v != "" {
		tc.Archive = v
	}
	if tc.Archive != "off" {
		if err := archive.CheckDSN(tc.Archive); err != nil {
			return fmt.Errorf("invalid MICROBLOG_ARCHIVE: %w", err)
		}
	}
	err := readEnvInts(getenv, []envInt{
		{"MICROBLOG_WS_QUEUE", &lc.Queue, 1, 1 << 20},
		{"MICROBLOG_WS_REPLAY_MAX", &lc.ReplayMax, 1, 1 << 20},
		{"MICROBLOG_CELEBRITY_FANS", &tc.CelebrityFans, 1, 1 << 40},
		{"MICROBLOG_FANOUT_WORKERS", &tc.Workers, 1, 256},
		{"MICROBLOG_HOT_WINDOW", &tc.HotWindow, 10, 1 << 20},
		{"MICROBLOG_ARCHIVE_QUEUE_MAX", &tc.ArchiveQueue, 100, 1 << 40},
		{"MICROBLOG_REDIS_REPLICA_ACKS", &cfg.RedisReplicaAcks, 0, 16},
	})
	if err == nil {
		err = readEnvDurations(getenv, []envDuration{
			{"MICROBLOG_WS_LINGER", &lc.Linger, 0},
			{"MICROBLOG_WS_PONG_WAIT", &lc.PongWait, time.Second},
			{"MICROBLOG_WS_WRITE_WAIT", &lc.WriteWait, 100 * time.Millisecond},
			{"MICROBLOG_INACTIVE_AFTER", &tc.InactiveAfter, time.Second},
			{"MICROBLOG_FANOUT_CLAIM_IDLE", &tc.ClaimIdle, 100 * time.Millisecond},
			{"MICROBLOG_FANOUT_BATCH_DELAY", &tc.BatchDelay, 0},
			{"MICROBLOG_REPAIR_INTERVAL", &rc.Interval, 10 * time.Millisecond},
			{"MICROBLOG_TRENDS_WINDOW", &tc.TrendsWindow, time.Second},
			{"MICROBLOG_CLOCK_SKEW", &tc.ClockSkew, time.Millisecond},
		})
	}
	if err != nil {
		return err
	}
	cfg.Live, cfg.Timelines, cfg.Repair = lc, tc, rc
	cfg.Pprof = pprofConfig{Addr: getenv("MICROBLOG_PPROF_ADDR")}
	cfg.Bundle, err = bundleSetting(getenv)
	return err
}

// envInt is a whole-number setting read from the environment, kept when unset.
type envInt struct {
	name     string
	dst      *int
	min, max int
}

// readEnvInts reads each setting; a bad value is an error naming it.
func readEnvInts(getenv func(string) string, vars []envInt) error {
	for _, v := range vars {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < v.min || n > v.max {
				return fmt.Errorf("invalid %s %q: want a whole number from %d to %d", v.name, s, v.min, v.max)
			}
			*v.dst = n
		}
	}
	return nil
}

// envDuration is a duration setting read from the environment, kept when unset.
type envDuration struct {
	name string
	dst  *time.Duration
	min  time.Duration
}

// readEnvDurations reads each setting; a bad value is an error naming it.
func readEnvDurations(getenv func(string) string, vars []envDuration) error {
	for _, v := range vars {
		if s := getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d < v.min {
				return fmt.Errorf("invalid %s %q: want a duration of at least %s, such as 5s", v.name, s, v.min)
			}
			*v.dst = d
		}
	}
	return nil
}
