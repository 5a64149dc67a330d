package main

import (
	"context"
	"fmt"
	"time"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/redisdb"
)

// timelineConfig is the hybrid timelines' settings (README, "Timelines at
// scale"), read from MICROBLOG_* variables.
type timelineConfig struct {
	CelebrityFans int           // MICROBLOG_CELEBRITY_FANS: from this many fans an author is pulled, not pushed
	InactiveAfter time.Duration // MICROBLOG_INACTIVE_AFTER: a user away this long gets no pushes
	Workers       int           // MICROBLOG_FANOUT_WORKERS: fan-out workers of this process, each taking up to 64 jobs a read
	ClaimIdle     time.Duration // MICROBLOG_FANOUT_CLAIM_IDLE: a job silent this long is taken over
	BatchDelay    time.Duration // MICROBLOG_FANOUT_BATCH_DELAY: a pause between batches, for tests
	HotWindow     int           // MICROBLOG_HOT_WINDOW: ids each F and G set and the public timeline keep
	Archive       string        // MICROBLOG_ARCHIVE: sqlite:<path>, mysql://user:pass@host:port/db or off
}

// defaultArchive is where make run (and a server started without settings)
// keeps the archive.
const defaultArchive = "sqlite:.data/archive.db"

func loadTimelineConfig(getenv func(string) string) (timelineConfig, error) {
	tc := timelineConfig{CelebrityFans: redisdb.DefaultCelebrityFans, InactiveAfter: redisdb.DefaultInactiveAfter,
		Workers: 2, ClaimIdle: 30 * time.Second, HotWindow: 1000, Archive: defaultArchive}
	if v := getenv("MICROBLOG_ARCHIVE"); v != "" {
		tc.Archive = v
	}
	if tc.Archive != "off" {
		if err := archive.CheckDSN(tc.Archive); err != nil {
			return tc, fmt.Errorf("invalid MICROBLOG_ARCHIVE: %w", err)
		}
	}
	err := readEnvInts(getenv, []envInt{
		{"MICROBLOG_CELEBRITY_FANS", &tc.CelebrityFans, 1, 1 << 40},
		{"MICROBLOG_FANOUT_WORKERS", &tc.Workers, 1, 256},
		{"MICROBLOG_HOT_WINDOW", &tc.HotWindow, 10, 1 << 20},
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

// openArchive opens the archive the settings name; nil when it is off. A
// database that does not answer yet is no reason not to start: the archive
// queue waits for it.
func (tc timelineConfig) openArchive(ctx context.Context) (store.Archive, error) {
	if tc.Archive == "off" {
		return nil, nil
	}
	db, err := archive.Open(ctx, tc.Archive)
	if err != nil {
		return nil, fmt.Errorf("open MICROBLOG_ARCHIVE: %w", err)
	}
	return db, nil
}
