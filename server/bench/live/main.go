// Command live is the live feed's load test; it measures it end to end: it signs up authors
// and fans, connects every fan's WebSocket, has the authors post at a
// steady rate over HTTP, and reports how many events arrived, how many
// were lost, the delay from the post request to receipt, the CPU each
// part took, and the server's memory per connection. It does so for each
// kind of feed in -kinds: the native live feed (/ws), and Mastodon's
// streaming API (/api/v1/streaming?stream=user), the same fans reading the
// same posts with access tokens of the real OAuth flow (mastodon.go), side
// by side. With -server it then has users in pairs write each other
// private messages, then posts to their one fan, at -messages-rate a
// second, and reports the same of both, side by side (messages.go).
//
// With -server it runs the whole bench on this machine, over loopback
// only: it starts a throwaway redis-server and the given server build(s)
// itself, measures delivery at -fans connections, then the memory of
// idle connections as they grow (-idle), and writes results.json and SVG
// charts into -out. Several builds, as label=path, are measured one after
// the other against the same Redis and users, and drawn side by side. It
// lives in the bench module (server/bench), and runs in that folder, so
// relative paths are relative to it; from the repository's root:
//
//	go build -o bin/microblog ./server
//	go run -C server/bench ./live -server ../../bin/microblog -out ../../bench-out   # make bench-live
//	go run -C server/bench ./live -server before=/tmp/microblog-old,after=../../bin/microblog -rounds 4 -quiet 4m
//	go run -C server/bench ./live -server ../../bin/microblog -fans 100 -idle '' -messages 10000 -messages-rate 2000   # messages only
//	go run -C server/bench ./live -server ../../bin/microblog -idle '' -messages 0 -rounds 2   # native and Mastodon delivery only
//
// The machine may be shared: -rounds has the builds take turns at
// delivery, -quiet waits for the rest of the machine to be nearly idle
// before each turn, and every run reports how many cores other processes
// took meanwhile.
//
// With -url it runs the delivery part against a server started by hand,
// which must have its rate limits and connection caps off and fast
// password hashing, e.g.
//
//	REDIS_URL=redis://127.0.0.1:6390/0 MICROBLOG_ADDR=127.0.0.1:8090 \
//	  MICROBLOG_RATE_LIMITS=off MICROBLOG_WS_MAX_PER_IP=0 MICROBLOG_MAX_CONNS_PER_IP=0 \
//	  MICROBLOG_BCRYPT_COST=4 MICROBLOG_LOG_LEVEL=warn go run ./server &
//	go run -C server/bench ./live -url http://127.0.0.1:8090 -fans 10000
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"microblog/server/bench/spawn"
)

func main() {
	if os.Getenv(workerEnv) != "" {
		if err := workerMain(); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest worker:", err)
			os.Exit(1)
		}
		return
	}
	var (
		base     = flag.String("url", "", "run against the server at this base URL, started by hand")
		servers  = flag.String("server", "", "run the whole bench on server build(s): path, or label=path,label=path")
		fans     = flag.Int("fans", 10000, "WebSocket fans connected while the authors post")
		kinds    = flag.String("kinds", kindNative+","+kindMastodon, "feeds the fans read while the authors post: native (/ws), mastodon (/api/v1/streaming, WebSocket), sse (/api/v1/streaming/user, server-sent events), or several")
		authors  = flag.Int("authors", 10, "authors posting; each fan follows one")
		rate     = flag.Float64("rate", 20, "posts per second, all authors together")
		duration = flag.Duration("duration", 20*time.Second, "how long the authors post")
		idle     = flag.String("idle", "1000,5000,10000,25000,50000", "with -server: idle connections at each step of the memory curve (empty: none)")
		msgUsers = flag.Int("messages", 10000, "with -server: users talking in pairs in private messages, then posting to each other (0: none)")
		msgRate  = flag.Float64("messages-rate", 2000, "private messages (and then posts) per second, all pairs together")
		perProc  = flag.Int("per-process", 12500, "with -server: most idle connections per server process")
		redisBin = flag.String("redis-server", "redis-server", "with -server: the redis-server to start")
		out      = flag.String("out", "../../bench-out", "folder for results.json and the charts (empty: none)")
		perf     = flag.Bool("perf", false, "with -server: record the server with perf(1) while the posts are delivered")
		rounds   = flag.Int("rounds", 1, "with -server: delivery runs per build, the builds taking turns")
		quiet    = flag.Duration("quiet", 0, "before each delivery run, wait up to this long for the rest of the machine to be nearly idle")
		par      = flag.Int("parallel", 64, "concurrent requests and dials while setting up")
		timeout  = flag.Duration("timeout", 20*time.Minute, "give up (and stop everything started) after this long")
		redraw   = flag.String("redraw", "", "draw the charts of this results.json again into -out, and print its tables")
	)
	flag.Parse()
	if *redraw != "" {
		if err := redrawCharts(os.Stdout, *redraw, *out); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		return
	}
	spawn.GiveUpAfter("loadtest", *timeout)
	if limit, err := raiseFileLimit(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: raise open-file limit:", err)
	} else if n := max(*fans, *msgUsers); n+100 > int(limit) {
		fmt.Fprintf(os.Stderr, "loadtest: %d connections need more than the open-file limit of %d\n", n, limit)
		os.Exit(1)
	}
	steps, err := parseSteps(*idle)
	var feedKinds []string
	if err == nil {
		feedKinds, err = parseKinds(*kinds)
	}
	if err == nil {
		cfg := benchConfig{kinds: feedKinds, fans: *fans, authors: *authors, rate: *rate, duration: *duration,
			msgUsers: *msgUsers / 2 * 2, msgRate: *msgRate,
			idle: steps, perProc: *perProc, redisBin: *redisBin, out: *out, perf: *perf, par: *par,
			rounds: max(1, *rounds), quiet: *quiet, settle: time.Second, stdout: os.Stdout}
		switch {
		case *servers != "":
			if cfg.builds, err = parseBuilds(*servers); err == nil {
				err = bench(cfg)
			}
		case *base != "":
			err = external(cfg, strings.TrimRight(*base, "/"))
		default:
			err = errors.New("say -server bin/microblog (start everything) or -url http://… (a running server)")
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

type build struct{ label, path string }

type benchConfig struct {
	builds        []build
	kinds         []string // the feeds of the delivery part: kindNative, kindMastodon
	fans, authors int
	rate          float64
	duration      time.Duration
	idle          []int
	perProc       int
	redisBin      string
	out           string
	perf          bool
	par           int
	rounds        int
	quiet         time.Duration

	// msgUsers (an even number) talk in pairs, msgRate messages a second,
	// then post as often (messages.go).
	msgUsers int
	msgRate  float64

	// settle is how long a server's memory must hold still to count as
	// settled (a freshly started server is given twice that first).
	settle time.Duration
	stdout io.Writer
}

// results is what results.json holds.
type results struct {
	Command  string               `json:"command"`
	Started  time.Time            `json:"started"`
	CPUs     int                  `json:"cpus"`
	LoadAvg  [2]string            `json:"loadavg_before_after"`
	Delivery []deliveryResult     `json:"delivery"`
	Messages []conversationResult `json:"messages"`
	Idle     []idleResult         `json:"idle"`
}

// bench starts Redis, signs up the users through a setup server, then
// measures each build with fresh server processes.
func bench(cfg benchConfig) error {
	res := results{Command: spawn.CommandLine("live"), Started: time.Now(), CPUs: runtime.NumCPU(), LoadAvg: [2]string{spawn.LoadAvg()}}
	w := cfg.stdout
	fmt.Fprintln(w, "loadtest:", res.Command)
	fmt.Fprintf(w, "machine: %d CPUs, load average %s\n", res.CPUs, res.LoadAvg[0])
	dir, err := os.MkdirTemp("", "microblog-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for i, b := range cfg.builds {
		if cfg.builds[i].path, err = filepath.Abs(b.path); err != nil {
			return err
		}
	}
	redis, redisURL, err := spawn.StartRedis(cfg.redisBin, dir)
	if err != nil {
		return err
	}
	defer redis.Stop()
	lt := newLoadTest(cfg.par, w, cfg.settle)
	sources := &sourceAddrs{}
	maxIdle := 0
	for _, n := range cfg.idle {
		maxIdle = max(maxIdle, n)
	}

	// Users: authors, and fans for the larger of the two parts. Only the
	// delivery part's fans follow the authors at first, so that each post
	// is pushed to the timelines of those fans only.
	setupBin := cfg.builds[len(cfg.builds)-1].path
	setup, err := spawn.StartServer("setup server", setupBin, redisURL, dir)
	if err != nil {
		return err
	}
	start := time.Now()
	authors, err := lt.signUp(setup.URL, "a", cfg.authors)
	var fans []account
	if err == nil {
		fans, err = lt.signUp(setup.URL, "f", max(cfg.fans, maxIdle))
	}
	if err == nil {
		err = lt.follow(setup.URL, fans[:cfg.fans], 0, authors)
	}
	if err == nil && needsTokens(cfg.kinds) {
		err = lt.mastodonLogin(setup.URL, fans[:cfg.fans])
	}
	var pairs []account
	if err == nil && cfg.msgUsers > 0 {
		if pairs, err = lt.signUp(setup.URL, "m", cfg.msgUsers); err == nil {
			err = lt.pairUp(setup.URL, pairs)
		}
	}
	setup.Stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "setup: %d users, %d follows in %s\n", len(fans)+len(authors)+len(pairs), cfg.fans+len(pairs)/2, time.Since(start).Round(time.Millisecond))

	// The builds and kinds of feed take turns, round after round, so that
	// what else runs on the machine falls on each of them alike.
	cfg.rounds = max(1, cfg.rounds)
	for round := 1; round <= cfg.rounds; round++ {
		for _, b := range cfg.builds {
			for _, kind := range cfg.kinds {
				r, err := deliveryRound(cfg, b, kind, round, redis, redisURL, dir, sources, lt, fans[:cfg.fans], authors)
				if err != nil {
					return err
				}
				res.Delivery = append(res.Delivery, r)
			}
		}
	}
	for round := 1; round <= cfg.rounds && len(pairs) > 0; round++ {
		for _, b := range cfg.builds {
			runs, err := converseRound(cfg, b, round, redis, redisURL, dir, sources, lt, pairs)
			if err != nil {
				return err
			}
			res.Messages = append(res.Messages, runs...)
		}
	}

	if maxIdle > 0 {
		// The idle fans follow the authors too, as fans do; nothing is
		// posted while they are measured.
		if maxIdle > cfg.fans {
			setup, err := spawn.StartServer("setup server", setupBin, redisURL, dir)
			if err != nil {
				return err
			}
			err = lt.follow(setup.URL, fans[cfg.fans:maxIdle], cfg.fans, authors)
			setup.Stop()
			if err != nil {
				return err
			}
		}
		for _, b := range cfg.builds {
			fmt.Fprintf(w, "idle connections, %s: %v, at most %d per server process\n", b.label, cfg.idle, cfg.perProc)
			r, err := idleCurve(b.label, b.path, redisURL, dir, fans[:maxIdle], cfg.idle, cfg.perProc, sources, lt)
			if err != nil {
				return err
			}
			res.Idle = append(res.Idle, r)
		}
	}
	res.LoadAvg[1] = spawn.LoadAvg()
	printTables(w, res)
	return save(w, res, cfg)
}

// deliveryRound measures, on a fresh server of build b, the fans' feeds of
// kind getting the authors' posts.
func deliveryRound(cfg benchConfig, b build, kind string, round int, redis *spawn.Proc, redisURL, dir string, sources *sourceAddrs, lt *loadTest, fans, authors []account) (deliveryResult, error) {
	w := cfg.stdout
	fmt.Fprintf(w, "delivery, %s, %s feed, round %d of %d: %d fans, %d authors, %.0f posts/s for %s\n",
		b.label, kind, round, cfg.rounds, len(fans), len(authors), cfg.rate, cfg.duration)
	srv, err := spawn.StartServer(b.label+" server", b.path, redisURL, dir)
	if err != nil {
		return deliveryResult{}, err
	}
	defer srv.Stop()
	pr := probes{server: srv.CPU, redis: redis.CPU}
	if cfg.perf && cfg.out != "" {
		pr.posting = perfRecord(w, srv, filepath.Join(cfg.out, fmt.Sprintf("%s-%s-%d-server.perf.data", b.label, kind, round)))
	}
	time.Sleep(2 * cfg.settle) // see idleCurve
	waitQuiet(w, cfg.quiet)
	r, err := lt.deliver(srv.URL, sources.next(), kind, fans, authors, cfg.rate, cfg.duration, pr)
	if err != nil {
		return r, err
	}
	r.Label, r.Round = b.label, round
	printDelivery(w, r)
	return r, nil
}

// converseRound measures, on a fresh server of build b, the pairs writing
// private messages, then posts to their one fan, at cfg.msgRate a second.
func converseRound(cfg benchConfig, b build, round int, redis *spawn.Proc, redisURL, dir string, sources *sourceAddrs, lt *loadTest, pairs []account) ([]conversationResult, error) {
	w := cfg.stdout
	srv, err := spawn.StartServer(b.label+" server", b.path, redisURL, dir)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	var runs []conversationResult
	for _, kind := range []string{"message", "post"} {
		fmt.Fprintf(w, "%ss, %s, round %d of %d: %d users in %d pairs, %.0f %ss/s for %s\n",
			kind, b.label, round, cfg.rounds, len(pairs), len(pairs)/2, cfg.msgRate, kind, cfg.duration)
		time.Sleep(2 * cfg.settle)
		waitQuiet(w, cfg.quiet)
		r, err := lt.converse(srv.URL, sources.next(), kind, pairs, cfg.msgRate, cfg.duration, probes{server: srv.CPU, redis: redis.CPU})
		if err != nil {
			return nil, err
		}
		r.Label, r.Round = b.label, round
		printConversation(w, r)
		runs = append(runs, r)
	}
	if len(runs) == 2 {
		fmt.Fprintf(w, "  CPU per message %.0f µs, per post with 1 fan %.0f µs: message / post = %.2f (goal at most 1)\n",
			runs[0].cpuPerWrite(), runs[1].cpuPerWrite(), runs[0].cpuPerWrite()/runs[1].cpuPerWrite())
	}
	return runs, nil
}

// external measures delivery on a server started by hand.
func external(cfg benchConfig, base string) error {
	res := results{Command: spawn.CommandLine("live"), Started: time.Now(), CPUs: runtime.NumCPU(), LoadAvg: [2]string{spawn.LoadAvg()}}
	w := cfg.stdout
	fmt.Fprintf(w, "loadtest: %s, %d fans, %d authors, %.0f posts/s for %s\n", base, cfg.fans, cfg.authors, cfg.rate, cfg.duration)
	lt := newLoadTest(cfg.par, w, cfg.settle)
	start := time.Now()
	authors, err := lt.signUp(base, "a", cfg.authors)
	var fans []account
	if err == nil {
		fans, err = lt.signUp(base, "f", cfg.fans)
	}
	if err == nil {
		err = lt.follow(base, fans, 0, authors)
	}
	if err == nil && needsTokens(cfg.kinds) {
		err = lt.mastodonLogin(base, fans)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "setup: %d users and follows in %s\n", cfg.fans+cfg.authors, time.Since(start).Round(time.Millisecond))
	for _, kind := range cfg.kinds {
		fmt.Fprintf(w, "delivery, %s feed\n", kind)
		r, err := lt.deliver(base, "", kind, fans, authors, cfg.rate, cfg.duration, probes{})
		if err != nil {
			return err
		}
		r.Label = "server"
		printDelivery(w, r)
		res.Delivery = append(res.Delivery, r)
	}
	res.LoadAvg[1] = spawn.LoadAvg()
	return save(w, res, cfg)
}

// waitQuiet waits, up to max, for a 3-second window in which the machine
// is busy less than a fifth of its CPU time (the bench's own processes
// being idle then), and says how it went.
func waitQuiet(w io.Writer, max time.Duration) {
	if max <= 0 {
		return
	}
	deadline := time.Now().Add(max)
	for {
		busy0, total0 := spawn.MachineCPU()
		time.Sleep(3 * time.Second)
		busy1, total1 := spawn.MachineCPU()
		share := float64(busy1-busy0) / float64(max64(1, total1-total0))
		if share < 0.2 {
			fmt.Fprintf(w, "  the machine is quiet: %.0f%% busy\n", 100*share)
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(w, "  the machine is still %.0f%% busy with other work; measuring anyway\n", 100*share)
			return
		}
	}
}

func max64(a, b time.Duration) time.Duration { return max(a, b) }

// perfRecord returns a probes.posting that records the server's CPU
// profile, with call graphs, into path while the posts are delivered.
func perfRecord(w io.Writer, srv *spawn.Proc, path string) func() (done func()) {
	return func() func() {
		os.MkdirAll(filepath.Dir(path), 0o755)
		cmd := exec.Command("perf", "record", "-F", "999", "-g", "-o", path, "-p", strconv.Itoa(srv.Pid()))
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest: perf:", err)
			return func() {}
		}
		return func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
			fmt.Fprintf(w, "  perf profile of the server: perf report -i %s\n", path)
		}
	}
}

func parseSteps(s string) ([]int, error) {
	var steps []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || len(steps) > 0 && n <= steps[len(steps)-1] {
			return nil, fmt.Errorf("-idle: %q is not a growing list of counts", s)
		}
		steps = append(steps, n)
	}
	return steps, nil
}

func parseBuilds(s string) ([]build, error) {
	var bs []build
	for _, f := range strings.Split(s, ",") {
		label, path, ok := strings.Cut(f, "=")
		if !ok {
			label, path = filepath.Base(f), f
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("-server: %w", err)
		}
		bs = append(bs, build{label, path})
	}
	return bs, nil
}
