package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
)

// results is what results.json holds.
type results struct {
	Command   string         `json:"command"`
	Started   time.Time      `json:"started"`
	CPUs      int            `json:"cpus"`
	LoadAvg   [2]string      `json:"loadavg_before_after"`
	Redis     string         `json:"redis_server"`
	Seed      int            `json:"seed_posts_per_sec"`
	PostShape string         `json:"post_shape"`
	ReadShape string         `json:"read_shape"`
	PostN     int            `json:"post_n"`
	PostC     int            `json:"post_c"`
	ReadN     int            `json:"read_n"`
	ReadC     int            `json:"read_c"`
	Targets   []targetResult `json:"targets"`
}

// targetResult is one target's runs.
type targetResult struct {
	Label  string       `json:"label"`
	Kind   string       `json:"kind"`
	Round  int          `json:"round,omitempty"` // with -rounds above 1: which round, from 1
	Binary string       `json:"binary,omitempty"`
	Posts  measured     `json:"posts"`
	Reads  measured     `json:"reads"`
	Sweep  []sweepPoint `json:"sweep"`
}

// measured is one ab run and what it cost.
type measured struct {
	AB   abResult `json:"ab"`
	Cost costs    `json:"cost"`
}

// sweepPoint is one ab run of the concurrency sweep.
type sweepPoint struct {
	What   string  `json:"what"` // posts or reads
	C      int     `json:"c"`
	PerSec float64 `json:"requests_per_sec"`
	P50    float64 `json:"p50_ms"`
	P99    float64 `json:"p99_ms"`
	Cost   costs   `json:"cost"`
}

// sustained is PerSec counting the wait for the queues to empty.
func (s sweepPoint) sustained() float64 {
	if s.PerSec <= 0 {
		return 0
	}
	n := float64(s.Cost.Requests)
	return n / (n/s.PerSec + s.Cost.Settle)
}

// benchRateLimits are the server's rate limits in the benchmark: each
// checked as make run's are, but none reached.
const benchRateLimits = "signup=100000/1h,login=100000/1m,post=1000000000/1m,follow=100000/1m"

// target is what to start: the bare handler, or a build with or without
// the SQLite archive.
type target struct {
	label, kind, bin string
	round            int // 0 with one round
}

// targetsOf lists the targets in the order they run: with several rounds,
// every other round in reverse order.
func targetsOf(cfg config) []target {
	one := targetsOfRound(cfg)
	if cfg.rounds <= 1 {
		return one
	}
	var ts []target
	for r := range cfg.rounds {
		for i := range one {
			t := one[i]
			if r%2 == 1 {
				t = one[len(one)-1-i]
			}
			t.round = r + 1
			t.label += fmt.Sprintf(" (round %d)", r+1)
			ts = append(ts, t)
		}
	}
	return ts
}

func targetsOfRound(cfg config) []target {
	var ts []target
	for _, k := range cfg.kinds {
		if k == kindBare {
			ts = append(ts, target{label: kindBare, kind: k})
			continue
		}
		for _, b := range cfg.builds {
			label := b.label
			if k == kindSQLite {
				label += "+sqlite"
			}
			ts = append(ts, target{label: label, kind: k, bin: b.path})
		}
	}
	return ts
}

// bench measures every target, one after the other.
func bench(stdout io.Writer, cfg config) (results, error) {
	res := results{Command: spawn.CommandLine("seed"), Started: time.Now(), CPUs: runtime.NumCPU(), LoadAvg: [2]string{spawn.LoadAvg()},
		Seed: seedPostsPerSec, PostN: cfg.posts, PostC: cfg.c, ReadN: cfg.reads, ReadC: cfg.readC,
		PostShape: fmt.Sprintf("ab -c %d -n %d -p body.json -T application/json (POST /api/v1/posts)", cfg.c, cfg.posts),
		ReadShape: fmt.Sprintf("ab -k -c %d -n %d (GET /api/v1/timelines/home?limit=20)", cfg.readC, cfg.reads)}
	for _, bin := range []string{cfg.abBin, cfg.redisBin} {
		if _, err := exec.LookPath(bin); err != nil {
			return res, fmt.Errorf("%s not found (make deps-bench installs ApacheBench and redis-server): %w", bin, err)
		}
	}
	out, _ := exec.Command(cfg.redisBin, "--version").Output()
	res.Redis = strings.TrimSpace(string(out))
	fmt.Fprintln(stdout, "seedbench:", res.Command)
	fmt.Fprintf(stdout, "machine: %d CPUs, load average %s; %s\n", res.CPUs, res.LoadAvg[0], res.Redis)
	for _, t := range targetsOf(cfg) {
		if t.bin != "" {
			if _, err := os.Stat(t.bin); err != nil {
				return res, fmt.Errorf("-server: %w (make build writes bin/microblog)", err)
			}
		}
		r, err := measureTarget(stdout, cfg, t)
		if err != nil {
			return res, fmt.Errorf("%s: %w", t.label, err)
		}
		res.Targets = append(res.Targets, r)
	}
	res.LoadAvg[1] = spawn.LoadAvg()
	return res, nil
}

// measureTarget starts a fresh Redis and the target, sets up the users,
// and runs the posts, the reads and the sweep.
func measureTarget(stdout io.Writer, cfg config, t target) (targetResult, error) {
	res := targetResult{Label: t.label, Kind: t.kind, Binary: t.bin, Round: t.round}
	fmt.Fprintf(stdout, "\n== %s\n", t.label)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "microblog-seedbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	redisProc, redisURL, err := spawn.StartRedis(cfg.redisBin, dir)
	if err != nil {
		return res, err
	}
	defer redisProc.Stop()
	ro, _ := redis.ParseURL(redisURL)
	rdb := redis.NewClient(ro)
	defer rdb.Close()
	client := &http.Client{Timeout: 10 * time.Second}

	var srv *spawn.Proc
	var author account
	var fans []account
	switch t.kind {
	case kindBare:
		if author, fans, err = setUpBare(ctx, rdb, cfg.fans); err != nil {
			return res, err
		}
		self, err := os.Executable()
		if err != nil {
			return res, err
		}
		addr, err := spawn.FreeAddr()
		if err != nil {
			return res, err
		}
		cmd := exec.Command(self, "bare", "-addr", addr, "-redis", redisURL, "-author", "1",
			"-username", author.Name, "-reader", strconv.FormatInt(fans[0].ID, 10))
		if srv, err = spawn.StartHTTP(t.label, cmd, addr); err != nil {
			return res, err
		}
	default:
		// The rate limits stay on, as make run has them, only high enough
		// for the benchmark's one author and its sign-ups.
		env := []string{"MICROBLOG_RATE_LIMITS=" + benchRateLimits}
		if t.kind == kindSQLite {
			env = append(env, "MICROBLOG_ARCHIVE=sqlite:"+filepath.Join(dir, "archive.db"))
		}
		if srv, err = spawn.StartServer(t.label, t.bin, redisURL, dir, env...); err != nil {
			return res, err
		}
		if author, fans, err = setUpUsers(client, srv.URL, cfg.fans); err != nil {
			srv.Stop()
			return res, err
		}
	}
	defer srv.Stop()
	fmt.Fprintf(stdout, "server pid %d on %s, redis-server pid %d; author uid %d with %d fans\n",
		srv.Pid(), srv.URL, redisProc.Pid(), author.ID, len(fans))

	body, err := writeBody(dir)
	if err != nil {
		return res, err
	}
	pr := &probe{server: srv, redis: redisProc, rdb: rdb, client: client}
	postsURL := srv.URL + "/api/v1/posts"
	homeURL := srv.URL + "/api/v1/timelines/home?limit=20"
	posts := func(n, c int, csv string) abRun {
		return abRun{url: postsURL, n: n, c: c, token: author.Token, body: body, csv: csv}
	}
	reads := func(n, c int, csv string) abRun {
		return abRun{url: homeURL, n: n, c: c, token: fans[0].Token, keepAlive: true, csv: csv}
	}
	// measure runs ab between two snapshots; after posts it waits for the
	// fan-out before the second.
	measure := func(r abRun, route string, settle bool) (measured, error) {
		s0, err := pr.snap(ctx)
		if err != nil {
			return measured{}, err
		}
		ab, err := runAB(cfg.abBin, r)
		if err != nil {
			return measured{}, err
		}
		var waited time.Duration
		if settle {
			if waited, err = pr.settle(cfg.settle); err != nil {
				return measured{}, err
			}
		}
		s1, err := pr.snap(ctx)
		if err != nil {
			return measured{}, err
		}
		m := measured{AB: ab, Cost: per(s0, s1, ab.Complete, route)}
		m.Cost.Settle = waited.Seconds()
		return m, nil
	}

	if cfg.warmup > 0 {
		if _, err := runAB(cfg.abBin, posts(cfg.warmup, min(cfg.c, cfg.warmup), "")); err != nil {
			return res, err
		}
		if _, err := pr.settle(cfg.settle); err != nil {
			return res, err
		}
		if _, err := runAB(cfg.abBin, reads(cfg.warmup, min(cfg.readC, cfg.warmup), "")); err != nil {
			return res, err
		}
		fmt.Fprintf(stdout, "warmed up with %d posts and %d reads\n", cfg.warmup, cfg.warmup)
	}

	fmt.Fprintf(stdout, "posts: ab %s\n", shellQuote(posts(cfg.posts, cfg.c, "latency.csv").args()))
	if res.Posts, err = measure(posts(cfg.posts, cfg.c, filepath.Join(dir, "posts.csv")), "POST /api/v1/posts", true); err != nil {
		return res, err
	}
	printRun(stdout, "posts", res.Posts)

	fmt.Fprintf(stdout, "reads: ab %s\n", shellQuote(reads(cfg.reads, cfg.readC, "latency.csv").args()))
	if res.Reads, err = measure(reads(cfg.reads, cfg.readC, filepath.Join(dir, "reads.csv")), "GET /api/v1/timelines/home", false); err != nil {
		return res, err
	}
	printRun(stdout, "reads", res.Reads)

	for _, what := range []string{"posts", "reads"} {
		if len(cfg.sweep) == 0 {
			break
		}
		fmt.Fprintf(stdout, "sweep of %s at -c", what)
		for _, c := range cfg.sweep {
			var m measured
			csv := filepath.Join(dir, "sweep.csv")
			if what == "posts" {
				m, err = measure(posts(cfg.sweepPosts, min(c, cfg.sweepPosts), csv), "POST /api/v1/posts", true)
			} else {
				m, err = measure(reads(cfg.sweepReads, min(c, cfg.sweepReads), csv), "GET /api/v1/timelines/home", false)
			}
			if err != nil {
				return res, err
			}
			res.Sweep = append(res.Sweep, sweepPoint{What: what, C: c, PerSec: m.AB.PerSec, P50: m.AB.p(50), P99: m.AB.p(99), Cost: m.Cost})
			fmt.Fprintf(stdout, " %d: %.0f/s", c, m.AB.PerSec)
		}
		fmt.Fprintln(stdout)
	}
	return res, nil
}

// printRun says how one main run went, as it ends.
func printRun(w io.Writer, what string, m measured) {
	c := m.Cost
	fmt.Fprintf(w, "  %d %s in %.1f s: %.0f/s, p50 %.2f ms, p99 %.2f ms; per request: %.1f Redis commands, %.1f Redis reads, %.0f bytes sent to Redis, %s round trips on the request path, server CPU %.0f µs, Redis CPU %.0f µs",
		m.AB.Complete, what, m.AB.Seconds, m.AB.PerSec, m.AB.p(50), m.AB.p(99),
		c.RedisCommands, c.RedisReads, c.RedisBytesIn, fmtTrips(c.RoundTrips), c.ServerCPUus, c.RedisCPUus)
	if c.Settle > 0 {
		fmt.Fprintf(w, "; the queues emptied %.1f s after ab ended: %.0f/s with the fan-out done", c.Settle, m.AB.sustained(c.Settle))
	}
	fmt.Fprintln(w)
	if len(c.Commands) > 0 {
		fmt.Fprintf(w, "  Redis time per request inside commands (INFO commandstats): %s\n", fmtCommands(c.Commands))
	}
}

// fmtCommands lists commands by the time Redis spent in them, most first:
// "evalsha 12.3 µs (1.0 calls), ...".
func fmtCommands(cs map[string]cmdStat) string {
	names := make([]string, 0, len(cs))
	total := 0.0
	for name, c := range cs {
		names = append(names, name)
		total += c.Usec
	}
	sort.Slice(names, func(i, j int) bool { return cs[names[i]].Usec > cs[names[j]].Usec })
	parts := []string{fmt.Sprintf("all %.1f µs", total)}
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %.1f µs (%.2f calls)", name, cs[name].Usec, cs[name].Calls))
	}
	return strings.Join(parts, ", ")
}
