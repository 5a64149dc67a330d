package main

import (
	"io"
	"strings"
	"testing"

	"microblog/hub"
	"microblog/store/redisdb"
	"microblog/store/redisdb/runner"
)

// TestConfigDefaults: without settings, loadConfig gives the defaults of the
// packages the server builds on.
func TestConfigDefaults(t *testing.T) {
	parallel(t)
	cfg, err := loadConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tc := cfg.Timelines
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"bcrypt cost", cfg.BcryptCost, redisdb.DefaultBcryptCost},
		{"session TTL", cfg.SessionTTL, redisdb.DefaultSessionTTL},
		{"hot window", tc.HotWindow, redisdb.DefaultHotWindow},
		{"celebrity fans", tc.CelebrityFans, redisdb.DefaultCelebrityFans},
		{"inactive after", tc.InactiveAfter, redisdb.DefaultInactiveAfter},
		{"fan-out workers", tc.Workers, runner.DefaultFanOutWorkers},
		{"claim idle", tc.ClaimIdle, runner.DefaultClaimIdle},
		{"clock skew", tc.ClockSkew, redisdb.DefaultClockSkew},
		{"replica acks", cfg.RedisReplicaAcks, 0},
		{"repair interval", cfg.Repair.Interval, runner.DefaultRepairInterval},
		{"send queue", cfg.Live.Queue, hub.DefaultSendQueue},
		{"replay max", cfg.Live.ReplayMax, hub.DefaultReplayMax},
		{"linger", cfg.Live.Linger, hub.DefaultLinger},
		{"pong wait", cfg.Live.PongWait, hub.DefaultPongWait},
		{"write wait", cfg.Live.WriteWait, hub.DefaultWriteWait},
		{"archive", tc.Archive, defaultArchive},
		{"pprof address", cfg.Pprof.Addr, ""},
		{"bundle", cfg.Bundle, true},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestConfigEnvOnlySettingsValidated: a bad value of a setting read from
// the environment only fails loadConfig with an error naming it.
func TestConfigEnvOnlySettingsValidated(t *testing.T) {
	parallel(t)
	for _, tc := range [][2]string{
		{"MICROBLOG_WS_QUEUE", "0"},
		{"MICROBLOG_WS_REPLAY_MAX", "many"},
		{"MICROBLOG_WS_LINGER", "-1s"},
		{"MICROBLOG_WS_PONG_WAIT", "10ms"},
		{"MICROBLOG_WS_WRITE_WAIT", "soon"},
		{"MICROBLOG_CELEBRITY_FANS", "0"},
		{"MICROBLOG_INACTIVE_AFTER", "1ms"},
		{"MICROBLOG_FANOUT_WORKERS", "1000"},
		{"MICROBLOG_FANOUT_CLAIM_IDLE", "1ms"},
		{"MICROBLOG_FANOUT_BATCH_DELAY", "x"},
		{"MICROBLOG_HOT_WINDOW", "5"},
		{"MICROBLOG_ARCHIVE", "postgres://db"},
		{"MICROBLOG_REPAIR_INTERVAL", "1ms"},
		{"MICROBLOG_REDIS_REPLICA_ACKS", "-1"},
		{"MICROBLOG_CLOCK_SKEW", "0s"},
		{"MICROBLOG_BUNDLE", "false"},
	} {
		env := map[string]string{tc[0]: tc[1]}
		_, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc[0]) {
			t.Errorf("%s=%q: error %v, want one naming %s", tc[0], tc[1], err, tc[0])
		}
	}
	env := map[string]string{"MICROBLOG_FANOUT_WORKERS": "3", "MICROBLOG_REPAIR_INTERVAL": "5s", "MICROBLOG_PPROF_ADDR": "127.0.0.1:0", "MICROBLOG_BUNDLE": "off"}
	cfg, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Timelines.Workers != 3 || cfg.Repair.Interval.String() != "5s" || cfg.Pprof.Addr != "127.0.0.1:0" || cfg.Bundle {
		t.Fatalf("good values: %+v, %v", cfg, err)
	}
}
