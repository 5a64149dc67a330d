package main

import (
	"time"

	"microblog/store/redisdb"
)

// timelineConfig is the hybrid timelines' settings (README, "Timelines at
// scale"), read from MICROBLOG_* variables.
type timelineConfig struct {
	CelebrityFans int           // MICROBLOG_CELEBRITY_FANS: from this many fans an author is pulled, not pushed
	InactiveAfter time.Duration // MICROBLOG_INACTIVE_AFTER: a user away this long gets no pushes
	Workers       int           // MICROBLOG_FANOUT_WORKERS: fan-out jobs this process runs at once
	ClaimIdle     time.Duration // MICROBLOG_FANOUT_CLAIM_IDLE: a job silent this long is taken over
	BatchDelay    time.Duration // MICROBLOG_FANOUT_BATCH_DELAY: a pause between batches, for tests
}

func loadTimelineConfig(getenv func(string) string) (timelineConfig, error) {
	tc := timelineConfig{CelebrityFans: redisdb.DefaultCelebrityFans, InactiveAfter: redisdb.DefaultInactiveAfter,
		Workers: 2, ClaimIdle: 30 * time.Second}
	err := readEnvInts(getenv, []envInt{
		{"MICROBLOG_CELEBRITY_FANS", &tc.CelebrityFans, 1, 1 << 40},
		{"MICROBLOG_FANOUT_WORKERS", &tc.Workers, 1, 256},
	})
	if err == nil {
		err = readEnvDurations(getenv, []envDuration{
			{"MICROBLOG_INACTIVE_AFTER", &tc.InactiveAfter, time.Second},
			{"MICROBLOG_FANOUT_CLAIM_IDLE", &tc.ClaimIdle, 100 * time.Millisecond},
			{"MICROBLOG_FANOUT_BATCH_DELAY", &tc.BatchDelay, 0},
		})
	}
	return tc, err
}
