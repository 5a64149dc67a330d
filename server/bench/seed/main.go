// Command seed, seedbench, runs the seeds' own benchmark again, on this
// machine: the paper measured its NodeJS server with `ab -c 50 -n 20000` of
// post requests and got 611 requests/s. seedbench runs that exact shape with
// ApacheBench against each target, each with a fresh redis-server of its
// own, and counts what one post costs: Redis commands, Redis reads, round
// trips on the request path, and the CPU time of the server and of Redis.
// Then it reads home timelines the same way, and sweeps the concurrency of
// both.
//
// The targets:
//
//   - bare: the naive port, a bare Echo + go-redis handler inside this
//     binary (started again as its own process, `seedbench bare`): a
//     token check against the contract's session key, then the Redis
//     writes of a post (the message's keys and indexes, each fan's home
//     timeline, the live event) in two round trips; no validation, no
//     limits, no idempotency, no safety rules. It is the floor: what Echo,
//     go-redis and Redis cost on their own.
//   - microblog: the server build (-server), archive off.
//   - microblog+sqlite: the same build with the SQLite archive that `make
//     run` uses, to show what the archive costs.
//
// CPU per request is the figure that matters: it does not depend on how
// busy the machine is, which requests/s and latency do.
//
// It lives in the bench module (server/bench) and runs in that folder, so
// relative paths are relative to it; from the repository's root:
//
//	make build && go run -C server/bench ./seed    # make bench (-server ../../bin/microblog -out ../../bench-out/seed)
//	go run -C server/bench ./seed -quick           # a quick look
//	go run -C server/bench ./seed -redraw ../../bench-out/seed/results.json   # tables and charts again
//	go run -C server/bench ./seed -server before=/tmp/microblog-old,after=../../bin/microblog -targets microblog
//	go run -C server/bench ./seed -targets bare,microblog -rounds 2 -sweep "" -reads 2000   # a post against the naive port, side by side
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"microblog/server/bench/spawn"
)

// The seed's figure, and the goal for home timeline reads.
const (
	seedPostsPerSec = 611
	goalReadsPerSec = 15000
	goalReadP99MS   = 10
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bare" {
		if err := bareMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "seedbench bare:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "seedbench:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	builds       []build
	kinds        []string // bare, microblog, microblog+sqlite
	posts, c     int      // the seed's shape: -n and -c of the post run
	reads, readC int
	warmup       int
	sweep        []int
	sweepPosts   int
	sweepReads   int
	fans         int
	rounds       int
	abBin        string
	redisBin     string
	out          string
	settle       time.Duration
}

// build is a server binary under a label.
type build struct{ label, path string }

// Target kinds.
const (
	kindBare   = "bare"
	kindServer = "microblog"
	kindSQLite = "microblog+sqlite"
)

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("seedbench", flag.ContinueOnError)
	var (
		servers = fs.String("server", "../../bin/microblog", "server build(s): path, or label=path,label=path")
		targets = fs.String("targets", "bare,microblog,microblog+sqlite", "which targets: bare, microblog, microblog+sqlite")
		cfg     config
		sweep   string
		quick   bool
		timeout time.Duration
		redraw  string
	)
	fs.IntVar(&cfg.posts, "n", 20000, "post requests of the main run (the seed's -n)")
	fs.IntVar(&cfg.c, "c", 50, "concurrency of the main post run (the seed's -c)")
	fs.IntVar(&cfg.reads, "reads", 50000, "home timeline reads of the main read run")
	fs.IntVar(&cfg.readC, "read-c", 50, "concurrency of the main read run")
	fs.IntVar(&cfg.warmup, "warmup", 1000, "posts and reads each target serves before it is measured")
	fs.StringVar(&sweep, "sweep", "1,5,10,25,50,100,200", "concurrencies of the sweep (empty: no sweep)")
	fs.IntVar(&cfg.sweepPosts, "sweep-posts", 3000, "post requests at each concurrency of the sweep")
	fs.IntVar(&cfg.sweepReads, "sweep-reads", 10000, "reads at each concurrency of the sweep")
	fs.IntVar(&cfg.fans, "fans", 10, "fans of the author, each following it")
	fs.IntVar(&cfg.rounds, "rounds", 1, "measure the targets this many times, every other round in reverse order, so that a drift of the machine's load weighs on each alike")
	fs.StringVar(&cfg.abBin, "ab", "ab", "the ApacheBench binary (Debian: apache2-utils)")
	fs.StringVar(&cfg.redisBin, "redis-server", "redis-server", "the redis-server to start")
	fs.StringVar(&cfg.out, "out", "../../bench-out/seed", "folder for results.json and the SVG charts (empty: none)")
	fs.DurationVar(&cfg.settle, "settle", 2*time.Minute, "longest wait for the fan-out and archive queues to empty after posts")
	fs.BoolVar(&quick, "quick", false, "a fast look: 2,000 posts, 10,000 reads, a sweep of 500 posts and 2,000 reads")
	fs.DurationVar(&timeout, "timeout", 30*time.Minute, "give up (and stop everything started) after this long")
	fs.StringVar(&redraw, "redraw", "", "print the tables of this results.json and draw its charts again into -out")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if redraw != "" {
		res, err := loadResults(redraw)
		if err != nil {
			return err
		}
		printTables(stdout, res)
		return save(stdout, res, cfg.out)
	}
	if quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, v := range map[string]*int{"n": &cfg.posts, "reads": &cfg.reads, "warmup": &cfg.warmup,
			"sweep-posts": &cfg.sweepPosts, "sweep-reads": &cfg.sweepReads} {
			if !set[name] {
				*v = map[string]int{"n": 2000, "reads": 10000, "warmup": 200, "sweep-posts": 500, "sweep-reads": 2000}[name]
			}
		}
	}
	var err error
	if cfg.sweep, err = parseCounts(sweep); err != nil {
		return fmt.Errorf("-sweep: %w", err)
	}
	if cfg.kinds, err = parseKinds(*targets); err != nil {
		return err
	}
	if cfg.builds, err = parseBuilds(*servers); err != nil {
		return err
	}
	if err := spawn.Positive(
		spawn.Flag{Name: "-n", Value: float64(cfg.posts)},
		spawn.Flag{Name: "-c", Value: float64(cfg.c)},
		spawn.Flag{Name: "-reads", Value: float64(cfg.reads)},
		spawn.Flag{Name: "-read-c", Value: float64(cfg.readC)},
		spawn.Flag{Name: "-fans", Value: float64(cfg.fans)},
		spawn.Flag{Name: "-rounds", Value: float64(cfg.rounds)},
	); err != nil {
		return err
	}
	spawn.GiveUpAfter("seedbench", timeout)
	res, err := bench(stdout, cfg)
	if err != nil {
		return err
	}
	printTables(stdout, res)
	return save(stdout, res, cfg.out)
}

// parseKinds reads -targets.
func parseKinds(s string) ([]string, error) {
	var kinds []string
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case kindBare, kindServer, kindSQLite:
			kinds = append(kinds, f)
		case "":
		default:
			return nil, fmt.Errorf("-targets: unknown target %q: want bare, microblog or microblog+sqlite", f)
		}
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("-targets: none given")
	}
	return kinds, nil
}

// parseBuilds reads -server: a path (labelled microblog), or label=path
// pairs.
func parseBuilds(s string) ([]build, error) {
	var bs []build
	for _, f := range strings.Split(s, ",") {
		label, path, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			label, path = kindServer, label
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("-server: %w", err)
		}
		bs = append(bs, build{label, abs})
	}
	return bs, nil
}

// parseCounts reads a comma-separated list of positive counts.
func parseCounts(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a list of positive counts", s)
		}
		ns = append(ns, n)
	}
	return ns, nil
}
