package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"microblog/server/bench/spawn"
)

// TestBenchSmallRun runs the whole bench, tiny, against a real server
// binary and a redis-server it starts itself: two loads of 2 writers with
// 3 and 20 fans each, and a push to 25,000 fans, enough to be split into
// parts. Every push is counted, the queue was read while it ran, and the
// tables and charts come out.
func TestBenchSmallRun(t *testing.T) {
	for _, bin := range []string{"redis-server", "redis-benchmark"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed: make deps-run installs it (make test does): %v", bin, err)
		}
	}
	bin, err := spawn.ServerBinary("../../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout bytes.Buffer
	cfg := config{builds: []spawn.Build{{Label: "test", Path: bin}}, fans: []int{3, 20}, writers: 2, c: 4, posts: 60,
		big: 25000, window: 10, benchN: 2000, sample: 10 * time.Millisecond, settle: time.Minute,
		redisBin: "redis-server", benchBin: "redis-benchmark", out: out, stdout: &stdout}
	res, err := bench(cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, &stdout)
	}
	printTables(&stdout, res)
	if err := save(&stdout, res, out); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(res.Runs))
	}
	for _, r := range res.Runs {
		if want := int64(r.Posts * r.Fans); r.Pushes != want || r.PushesPerSec <= 0 || len(r.Samples) == 0 {
			t.Fatalf("%s: %d pushes at %v/s in %d samples, want %d", r.Load, r.Pushes, r.PushesPerSec, len(r.Samples), want)
		}
		if r.Redis.ZAdd <= 0 || r.Redis.Pair <= 0 || r.Redis.Pair >= r.Redis.ZAdd {
			t.Fatalf("%s: Redis's rates %+v", r.Load, r.Redis)
		}
		if len(r.RedisTime) == 0 {
			t.Fatalf("%s: no INFO commandstats read", r.Load)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var again results
	if err := json.Unmarshal(b, &again); err != nil || len(again.Runs) != 3 {
		t.Fatalf("results.json: %v, %d runs", err, len(again.Runs))
	}
	for _, name := range []string{"fanout-3-fans.svg", "fanout-20-fans.svg", "fanout-push-to-25000-fans.svg"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.Contains(stdout.String(), "| push to 25,000 fans | test |") {
		t.Errorf("the table lacks the big push:\n%s", &stdout)
	}
}

// TestParseRedisOutput reads redis-benchmark's --csv output and INFO
// commandstats as Redis 7 writes them.
func TestParseRedisOutput(t *testing.T) {
	rate, err := parseRate([]byte(`"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"zadd G:__rand_int__ __rand_int__ __rand_int__","842786.50","3.646","0.368","3.551","5.1","6.2","9.7"
`))
	if err != nil || rate != 842786.50 {
		t.Fatalf("parseRate = %v, %v", rate, err)
	}
	if _, err := parseRate([]byte("ERROR\n")); err == nil {
		t.Fatal("parseRate took an error message")
	}
	times := commandTimes("# Commandstats\r\ncmdstat_zadd:calls=2000,usec=4000,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n"+
		"cmdstat_xadd:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n", 1000)
	if len(times) != 2 || times[0].Command != "zadd" || times[0].USPer != 4 || times[0].Calls != 2000 || times[1].USPer != 0.1 {
		t.Fatalf("commandTimes = %+v", times)
	}
}
