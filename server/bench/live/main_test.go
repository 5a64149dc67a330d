package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"microblog/server/bench/chart"
	"microblog/server/bench/spawn"
)

// TestMain lets the test binary be the bench's worker too, as the
// command's own binary is.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		if err := workerMain(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchSmallRun runs the whole bench, tiny, against a real server
// binary and a redis-server it starts itself: the figures docs/performance.md
// quotes come from code that is known to count right. Delivery is 50 posts
// to 4 fans each, read once through the native feed and once through
// Mastodon's streaming API (each fan logged in through OAuth); 3 pairs of users write each other 30 messages, then 30
// posts to their one fan; the idle part puts 10 connections on servers
// that take 6 each, so it spreads them over two processes and two workers,
// as 50,000 are. Memory is read after 50 ms of quiet rather than a second's: these
// few connections are noise to it anyway.
func TestBenchSmallRun(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed: make deps-run installs it (make test does): %v", err)
	}
	bin, err := spawn.ServerBinary("../../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout bytes.Buffer
	cfg := benchConfig{
		builds: []build{{"test", bin}}, kinds: []string{kindNative, kindMastodon, kindSSE}, fans: 12, authors: 3, rate: 50, duration: time.Second, msgUsers: 6, msgRate: 30,
		idle: []int{4, 10}, perProc: 6, redisBin: "redis-server", out: out, par: 8,
		settle: 50 * time.Millisecond, stdout: &stdout,
	}
	if err := bench(cfg); err != nil {
		t.Fatalf("%v\n%s", err, &stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Delivery) != 3 || res.Delivery[0].Kind != kindNative || res.Delivery[1].Kind != kindMastodon || res.Delivery[2].Kind != kindSSE {
		t.Fatalf("%d delivery runs, want one native, one Mastodon, one Mastodon over server-sent events", len(res.Delivery))
	}
	for _, d := range res.Delivery {
		if d.FailedPosts != 0 || d.Expected != 50*4 || d.Delivered != d.Expected || d.Duplicates != 0 || len(d.Delay) != 1001 {
			t.Fatalf("%s delivery = %+v, want 200 events delivered once each", d.Kind, d)
		}
		if d.Delay[0] <= 0 || d.Delay[1000] < d.Delay[500] || d.CPU.Server <= 0 || d.MemAfter.RSS <= 0 {
			t.Errorf("%s delivery measured no delay, CPU or memory: delay %v…%v, CPU %+v, memory %+v", d.Kind, d.Delay[0], d.Delay[1000], d.CPU, d.MemAfter)
		}
	}
	d, m, e := res.Delivery[0], res.Delivery[1], res.Delivery[2]
	if len(res.Messages) != 2 {
		t.Fatalf("%d runs of messages and posts, want 2", len(res.Messages))
	}
	for _, r := range res.Messages {
		if r.Failed != 0 || r.Expected != 2*30 || r.Delivered != r.Expected || r.Duplicates != 0 || len(r.Delay) != 1001 || r.cpuPerWrite() <= 0 {
			t.Fatalf("%s run = %+v, want 60 deliveries once each", r.Kind, r)
		}
	}
	steps := res.Idle[0].Steps
	// (A few connections are too few to tell their memory from the noise.)
	if len(steps) != 2 || steps[0].Conns != 4 || steps[0].Servers != 1 || steps[1].Conns != 10 || steps[1].Servers != 2 {
		t.Fatalf("idle steps = %+v, want 4 connections on 1 server, 10 on 2", steps)
	}
	// The tables docs/performance.md quotes, with the run's own figures.
	for _, want := range []string{
		fmt.Sprintf("| test | native | 1 | 12 | 200 | 200 | 0 | %s |", chart.FmtMS(pct(d.Delay, 50))),
		fmt.Sprintf("| test | mastodon | 1 | 12 | 200 | 200 | 0 | %s |", chart.FmtMS(pct(m.Delay, 50))),
		fmt.Sprintf("| test | sse | 1 | 12 | 200 | 200 | 0 | %s |", chart.FmtMS(pct(e.Delay, 50))),
		"test, Mastodon streaming beside native sockets over 1 and 1 runs: server CPU per delivery",
		"test, Mastodon streaming as server-sent events beside native sockets over 1 and 1 runs: server CPU per delivery",
		"| test | 4 | 1 |", "| test | 10 | 2 |", "live-latency.svg", "live-memory.svg",
		"| test | 1 | message | 6 | 30 | 60 | 0 | 0 |", "| test | 1 | post, 1 fan | 6 | 30 | 60 | 0 | 0 |", "message / post =",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the bench did not print %q:\n%s", want, &stdout)
		}
	}
	for _, f := range []string{"live-latency.svg", "live-memory.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestPermille(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 2000; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	pm := permille(ds)
	if pct(pm, 50) != 1001 || pct(pm, 99) != 1981 || pct(pm, 100) != 2000 || pct(pm, 0) != 1 {
		t.Fatalf("p0 %v p50 %v p99 %v max %v", pct(pm, 0), pct(pm, 50), pct(pm, 99), pct(pm, 100))
	}
}

func TestParsePost(t *testing.T) {
	checkParse(t, "parsePost", parsePost, []frameCase{
		{`{"event":"post","data":{"id":42,"kind":"post","author":{"id":7,"username":"a"},"content":"load 1700000000000000001","media":[]}}`, 42, 1700000000000000001, true},
		{`{"event":"post","data":{"kind":"post","id":43,"content":"load 5"}}`, 43, 5, true},
		{`{"event":"post","data":{"id":44,"content":"hello"}}`, 44, 0, true},
		{`{"event":"ready","data":{"user_id":1,"last_id":2}}`, 0, 0, false},
		{`{"event":"message","data":{"id":45,"content":"load 6"}}`, 0, 0, false},
	})
}

// frameCase is a frame and what a parser should read of it: the id, the
// send time in Unix ns (0: none), and whether it takes the frame at all.
type frameCase struct {
	frame string
	id    int64
	ns    int64
	ok    bool
}

// checkParse runs parse, called name, on each case.
func checkParse(t *testing.T, name string, parse func([]byte) (int64, time.Time, bool), cases []frameCase) {
	t.Helper()
	for _, c := range cases {
		id, sent, ok := parse([]byte(c.frame))
		var ns int64
		if !sent.IsZero() {
			ns = sent.UnixNano()
		}
		if id != c.id || ns != c.ns || ok != c.ok {
			t.Errorf("%s(%s) = %d, %d, %v; want %d, %d, %v", name, c.frame, id, ns, ok, c.id, c.ns, c.ok)
		}
	}
}

func TestParseMessage(t *testing.T) {
	id, sent, ok := parseMessage([]byte(`{"event":"message","data":{"id":45,"sender":{"id":1,"username":"a"},"recipient":{"id":2,"username":"b"},"content":"load 1700000000000000002","created_at":"…","media":[]}}`))
	if id != 45 || sent.UnixNano() != 1700000000000000002 || !ok {
		t.Fatalf("parseMessage = %d, %v, %v", id, sent, ok)
	}
	if _, _, ok := parseMessage([]byte(`{"event":"post","data":{"id":46,"content":"load 7"}}`)); ok {
		t.Fatal("parseMessage took a post")
	}
}

func TestParseStatus(t *testing.T) {
	status := `{"id":"42","uri":"http://x/users/a/statuses/42","account":{"id":"7","username":"a"},"content":"\u003cp\u003eload 1700000000000000001\u003c/p\u003e"}`
	frame := func(event, payload string) string {
		b, _ := json.Marshal(map[string]any{"stream": []string{"user"}, "event": event, "payload": payload})
		return string(b)
	}
	checkParse(t, "parseStatus", parseStatus, []frameCase{
		{frame("update", status), 42, 1700000000000000001, true},
		{`{"event":"update","payload":"{\"uri\":\"x\",\"id\":\"43\",\"content\":\"\u003cp\u003eload 5\u003c/p\u003e\"}"}`, 43, 5, true},
		{frame("update", `{"id":"44","content":"<p>hello</p>"}`), 44, 0, true},
		{frame("status.update", status), 0, 0, false},
		{frame("delete", "42"), 0, 0, false},
		{`{"event":"post","data":{"id":45,"content":"load 6"}}`, 0, 0, false},
	})
}

func TestParseKinds(t *testing.T) {
	if k, err := parseKinds(" mastodon,native "); err != nil || !slices.Equal(k, []string{kindMastodon, kindNative}) {
		t.Errorf("parseKinds = %v, %v", k, err)
	}
	if k, err := parseKinds("sse,native"); err != nil || !slices.Equal(k, []string{kindSSE, kindNative}) {
		t.Errorf("parseKinds(sse,native) = %v, %v", k, err)
	}
	for _, bad := range []string{"", "native,rss"} {
		if _, err := parseKinds(bad); err == nil {
			t.Errorf("parseKinds(%q) took it", bad)
		}
	}
}
