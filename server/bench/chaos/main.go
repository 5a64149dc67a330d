// Command chaos, chaosbench, runs the service the way production fails and
// checks that nothing acknowledged was lost. It starts, on free loopback
// ports in temporary folders, a Redis Cluster of 3 masters with a replica
// each, a MariaDB archive and -procs server processes sharing them. Then,
// for -duration, users work through the public API: -authors post, each
// post with an Idempotency-Key of its own that a failed attempt (no
// answer, 503, 409 request_in_progress) retries, as the contract asks;
// -fans follow some of the authors, like and unlike posts, and read their
// live feeds, resuming a socket that ends with ?after=<the newest post
// they have>; -churners follow and unfollow authors and read timelines.
// Meanwhile -faults faults strike at moments drawn from -seed: a server
// process SIGKILLed (and a new one started), a Redis master SIGKILLed (its
// replica takes over, and the dead node comes back as the replica), the
// archive's mariadbd SIGKILLed and started again on its data after
// -archive-down.
//
// After the load (a write under way goes on being retried for -grace), it
// waits up to -settle for the fan-out and archive queues to empty and the
// live feeds to catch up, then checks every view against what the clients
// were told: each acknowledged post stands exactly once, on its author's
// posts and every fan's home timeline, in the archive (read with SQL), and
// in every live feed that follows its author, once and in order; each
// like, unlike, follow and unfollow acknowledged is in force, in Redis and
// the archive; the counters are right; a post never acknowledged may stand
// or not, but is shown live only if it stands. It prints a table of the
// figures and every broken invariant, and fails when there is one.
//
//	make build && go run -C server/bench ./chaos     # make bench-chaos
//	go run -C server/bench ./chaos -seed 42 -duration 1m
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"microblog/server/bench/spawn"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chaosbench:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	server         string
	procs          int
	authors        int
	fans           int
	churners       int
	rate           float64 // posts a second, over all authors
	likeRate       float64 // likes and unlikes a second, over all fans
	followRate     float64 // follows and unfollows a second, over all churners
	duration       time.Duration
	warmup         time.Duration // load before the first fault may strike
	cooldown       time.Duration // load after the last fault may strike
	faults         int
	kinds          []string
	archiveDown    time.Duration
	grace          time.Duration
	settle         time.Duration
	claimIdle      time.Duration
	repairInterval time.Duration
	seed           uint64
	out            string // the folder of the servers' logs and the chart
	keep           bool   // leave the backends' folders
	rejoin         bool   // start a failed master again, as its replica's replica
	replicaAcks    int    // the servers' MICROBLOG_REDIS_REPLICA_ACKS
	env            []string
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("chaosbench", flag.ContinueOnError)
	var (
		kinds   = fs.String("kinds", strings.Join(faultKinds, ","), "the kinds of fault to draw from")
		env     = fs.String("env", "", "more of the servers' environment: NAME=value,NAME=value")
		timeout = fs.Duration("timeout", 30*time.Minute, "give up (and stop everything started) after this long")
		cfg     config
	)
	fs.StringVar(&cfg.server, "server", "../../bin/microblog", "the server build")
	fs.IntVar(&cfg.procs, "procs", 3, "server processes (2 or more)")
	fs.IntVar(&cfg.authors, "authors", 8, "authors posting")
	fs.IntVar(&cfg.fans, "fans", 8, "fans on live feeds, each following about half the authors, liking and unliking")
	fs.IntVar(&cfg.churners, "churners", 4, "users following and unfollowing authors and reading timelines")
	fs.Float64Var(&cfg.rate, "rate", 40, "posts a second, over all authors")
	fs.Float64Var(&cfg.likeRate, "like-rate", 20, "likes and unlikes a second, over all fans")
	fs.Float64Var(&cfg.followRate, "follow-rate", 5, "follows and unfollows a second, over all churners")
	fs.DurationVar(&cfg.duration, "duration", 3*time.Minute, "how long the load lasts")
	fs.DurationVar(&cfg.warmup, "warmup", 10*time.Second, "load before the first fault")
	fs.DurationVar(&cfg.cooldown, "cooldown", 20*time.Second, "load after the last fault begins")
	fs.IntVar(&cfg.faults, "faults", 9, "faults injected, each kind at least once when this allows")
	fs.DurationVar(&cfg.archiveDown, "archive-down", 10*time.Second, "how long the archive stays down at an archive restart")
	fs.DurationVar(&cfg.grace, "grace", 40*time.Second, "how long a write under way at the load's end goes on being retried (a killed process holds its Idempotency-Keys for 30 s)")
	fs.DurationVar(&cfg.settle, "settle", 3*time.Minute, "longest wait for the queues to empty and the live feeds to catch up")
	fs.DurationVar(&cfg.claimIdle, "claim-idle", 5*time.Second, "the servers' MICROBLOG_FANOUT_CLAIM_IDLE: when a killed process's queue jobs are taken over")
	fs.DurationVar(&cfg.repairInterval, "repair-interval", 5*time.Second, "the servers' MICROBLOG_REPAIR_INTERVAL: how often the checker of half-written messages runs")
	fs.Uint64Var(&cfg.seed, "seed", 0, "the seed of the faults' moments and kinds and of the users' choices (0: from the clock); printed, to replay a run")
	fs.StringVar(&cfg.out, "out", "../../bench-out/chaos", "the folder of the servers' logs and of chaos.svg, a chart of writes acknowledged and attempts failed each second with the faults marked")
	fs.BoolVar(&cfg.rejoin, "rejoin", true, "start a failed-over master again on its data, where it rejoins as its replica's replica (else the shard goes on without a replica, and fails over once at most)")
	fs.IntVar(&cfg.replicaAcks, "replica-acks", 1, "the servers' MICROBLOG_REDIS_REPLICA_ACKS: a write is acknowledged once this many replicas of each master have it (0: once the master has it; a master that fails over may take what it acknowledged with it)")
	fs.BoolVar(&cfg.keep, "keep", false, "leave the Redis nodes' folders (their append-only files: every write, in order) in the temporary folder, for a look after a failed run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}
	cfg.env = spawn.EnvList(*env)
	cfg.kinds = strings.Split(*kinds, ",")
	if err := cfg.validate(); err != nil {
		return err
	}
	var err error
	if cfg.server, err = filepath.Abs(cfg.server); err != nil {
		return err
	}
	if cfg.out, err = filepath.Abs(cfg.out); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "chaosbench: seed %d (-seed %d replays this run's faults and choices)\n", cfg.seed, cfg.seed)
	fmt.Fprintln(stdout, spawn.CommandLine("chaos"))

	// The backends are the launchers' processes, which do not die with
	// this one: a timeout or Ctrl-C stops them before it exits.
	var stopping = make(chan func(), 1)
	exit := func(why string) {
		fmt.Fprintln(os.Stderr, "chaosbench:", why)
		select {
		case stop := <-stopping:
			stop()
		default:
		}
		os.Exit(2)
	}
	time.AfterFunc(*timeout, func() { exit(fmt.Sprintf("gave up after %s", *timeout)) })
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	go func() { <-interrupt; exit("interrupted") }()

	r, err := measure(cfg, stdout, func(stop func()) { stopping <- stop })
	if r != nil {
		r.print(stdout)
		chart := filepath.Join(cfg.out, "chaos.svg")
		if cerr := r.draw(chart); cerr != nil {
			return cerr
		}
		fmt.Fprintln(stdout, "chart and servers' logs:", cfg.out)
	}
	return err
}

// validate says which flag is out of range.
func (cfg config) validate() error {
	if cfg.procs < 2 {
		return fmt.Errorf("-procs must be 2 or more (one serves while another is killed), not %d", cfg.procs)
	}
	if err := spawn.Positive(
		spawn.Flag{Name: "-authors", Value: float64(cfg.authors)},
		spawn.Flag{Name: "-fans", Value: float64(cfg.fans)},
		spawn.Flag{Name: "-churners", Value: float64(cfg.churners)},
		spawn.Flag{Name: "-rate", Value: cfg.rate},
		spawn.Flag{Name: "-like-rate", Value: cfg.likeRate},
		spawn.Flag{Name: "-follow-rate", Value: cfg.followRate},
	); err != nil {
		return err
	}
	if cfg.warmup+cfg.cooldown >= cfg.duration {
		return fmt.Errorf("-warmup %s and -cooldown %s leave no time for faults in -duration %s", cfg.warmup, cfg.cooldown, cfg.duration)
	}
	for _, k := range cfg.kinds {
		if !slices.Contains(faultKinds, k) {
			return fmt.Errorf("-kinds: unknown kind %q (want some of %s)", k, strings.Join(faultKinds, ","))
		}
	}
	return nil
}
