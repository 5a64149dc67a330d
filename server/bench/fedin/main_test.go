package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"microblog/server/bench/spawn"
)

// TestFedInSmallRun runs the whole bench, tiny, against a real server
// binary and a redis-server it starts itself: 3 remote accounts followed
// by handle by 2 local users (the Follows go out signed, the peer checks
// them, and its signed Accepts come back), then 200 signed Creates a second for 2 s into the
// shared inbox. Every one is accepted and reaches both sockets.
func TestFedInSmallRun(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed: make deps-run installs it (make test does): %v", err)
	}
	bin, err := spawn.ServerBinary("../../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := config{server: bin, redis: "redis-server", rate: 200, duration: 2 * time.Second, actors: 3, followers: 2,
		senders: 16, settle: 30 * time.Second}
	var log bytes.Buffer
	r, err := measure(c, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, &log)
	}
	var out bytes.Buffer
	r.print(&out, c)
	t.Log("\n" + log.String() + out.String())
	if r.sent != 400 || r.accepted != r.sent || r.refused != 0 {
		t.Fatalf("%d sent, %d accepted, %d refused (%s)", r.sent, r.accepted, r.refused, r.firstRefusal)
	}
	if r.want != 800 || r.got != r.want || len(r.fromAnswer) != r.want || len(r.fromSend) != r.want {
		t.Fatalf("%d frames expected, %d read", r.want, r.got)
	}
	if r.serverCPU <= 0 {
		t.Fatalf("no server CPU counted")
	}
	if !strings.Contains(out.String(), "answer → socket p99.9") || !strings.Contains(out.String(), "frames lost") {
		t.Fatalf("the table lacks its rows:\n%s", &out)
	}
}

// TestRunRefusesBadFlags: a count that is not positive, or a run too long
// for the signatures' Date, is an error before anything starts.
func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-rate", "0"}, {"-followers", "-1"}, {"-duration", "2h"}} {
		var out bytes.Buffer
		if err := run(args, &out); err == nil {
			t.Errorf("run %v: no error", args)
		}
	}
}

// TestLeadingInt reads the note's number after the mark.
func TestLeadingInt(t *testing.T) {
	if n, ok := leadingInt([]byte("123 from")); !ok || n != 123 {
		t.Fatalf("leadingInt = %d, %v", n, ok)
	}
	if _, ok := leadingInt([]byte("x1")); ok {
		t.Fatal("leadingInt took no digits")
	}
}
