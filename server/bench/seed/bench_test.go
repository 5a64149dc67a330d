package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"microblog/server/bench/spawn"
)

// TestMain lets the test binary be the bare handler too, as the command's
// own binary is (`seedbench bare`).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "bare" {
		if err := bareMain(os.Args[2:]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchSmallRun runs the whole benchmark, tiny (200 posts and 300 reads
// per target, a sweep at 1 and 4), against the bare handler, a real server
// binary and that binary with the SQLite archive, each on a redis-server it
// starts itself: the figures docs/performance.md quotes come from code that is known
// to measure and print them.
func TestBenchSmallRun(t *testing.T) {
	for _, bin := range []string{"ab", "redis-server"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed: make deps-bench installs it (make test does): %v", bin, err)
		}
	}
	bin, err := spawn.ServerBinary("../../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout bytes.Buffer
	err = run([]string{"-server", bin, "-out", out, "-n", "200", "-c", "5", "-reads", "300", "-read-c", "5",
		"-warmup", "20", "-sweep", "1,4", "-sweep-posts", "40", "-sweep-reads", "80", "-fans", "3", "-timeout", "5m"}, &stdout)
	if err != nil {
		t.Fatalf("%v\n%s", err, &stdout)
	}
	res, err := loadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != 3 {
		t.Fatalf("targets = %d, want bare, microblog and microblog+sqlite", len(res.Targets))
	}
	for _, tr := range res.Targets {
		for _, m := range []struct {
			what string
			n    int
			m    measured
		}{{"posts", 200, tr.Posts}, {"reads", 300, tr.Reads}} {
			ab, c := m.m.AB, m.m.Cost
			if ab.Complete != m.n || ab.Failed != 0 || ab.Non2xx != 0 || ab.PerSec <= 0 || len(ab.Percentiles) != 101 {
				t.Errorf("%s %s: ab = %+v, want %d requests answered, and their percentiles", tr.Label, m.what, ab, m.n)
			}
			if c.RedisCommands < 1 || c.Requests != m.n || tr.Kind != kindBare && c.RoundTrips < 1 {
				t.Errorf("%s %s: cost = %+v, want Redis commands and round trips counted", tr.Label, m.what, c)
			}
		}
		if len(tr.Sweep) != 4 {
			t.Errorf("%s: sweep = %+v, want posts and reads at -c 1 and 4", tr.Label, tr.Sweep)
		}
	}
	for _, want := range []string{"| bare | ", "| microblog | ", "| microblog+sqlite | ", "Sweep of posts", "Sweep of reads",
		"seed-post-latency.svg", "seed-read-latency.svg", "seed-throughput.svg"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the benchmark did not print %q:\n%s", want, &stdout)
		}
	}
	for _, f := range []string{"seed-post-latency.svg", "seed-read-latency.svg", "seed-throughput.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var again bytes.Buffer
	if err := run([]string{"-redraw", filepath.Join(out, "results.json"), "-out", t.TempDir()}, &again); err != nil || !strings.Contains(again.String(), "| microblog+sqlite | ") {
		t.Errorf("-redraw: %v\n%s", err, &again)
	}
}
