package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"microblog/server/bench/spawn"
)

// TestRollingSmallRun runs the whole bench, tiny, against a real server
// binary and a redis-server it starts itself: 4 processes restarted one
// after another under 50 posts a second. Every post reaches its fans, and
// no fan-out waits anywhere near the claim idle time (30 s) for a process
// that stopped: the lag stays within a few seconds even on a busy machine.
func TestRollingSmallRun(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed: make deps-run installs it (make test does): %v", err)
	}
	bin, err := spawn.ServerBinary("../../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{builds: []spawn.Build{{Label: "test", Path: bin}}, procs: 4, authors: 4, fans: 20, rate: 50, c: 4,
		warmup: time.Second, gap: 300 * time.Millisecond, cooldown: 500 * time.Millisecond,
		sample: 10 * time.Millisecond, settle: time.Minute, redisBin: "redis-server"}
	r, err := measure(cfg, cfg.builds[0])
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.print(&out)
	t.Log("\n" + out.String())
	if r.Restarts != 4 || r.Posts < 50 || len(r.Stops) != 4 {
		t.Fatalf("%d restarts, %d posts, %d stops", r.Restarts, r.Posts, len(r.Stops))
	}
	if n := len(r.Lags.seen); n > 0 && r.Lags.seen[n-1] > 15*time.Second { // half the claim idle time
		t.Fatalf("a fan-out waited %v", r.Lags.seen[n-1])
	}
	if !strings.Contains(out.String(), "jobs handed back") {
		t.Fatalf("the report lacks the hand-backs:\n%s", &out)
	}
}

// TestHandedBack reads the hand-back's log line in slog's text and JSON
// forms.
func TestHandedBack(t *testing.T) {
	logs := `time=2026-01-01T00:00:00Z level=INFO msg="fan-out: handed back the entries this process holds" entries=3
{"time":"2026-01-01T00:00:00Z","level":"INFO","msg":"archive: handed back the entries this process holds","entries":2}
time=2026-01-01T00:00:00Z level=INFO msg="shutting down" entries=9
`
	if n := handedBack(logs); n != 5 {
		t.Fatalf("handedBack = %d, want 5", n)
	}
}
