// Command rolling, rollingbench, measures how long a rolling restart
// delays the fan-out: -procs server processes share one redis-server while
// -authors authors, each with -fans fans of their own, post -rate posts a
// second through them; after -warmup each process in turn is taken out of
// the rotation (as a load balancer would), stopped gracefully (SIGINT, the
// same shutdown as SIGTERM) and replaced by a new one, -gap apart. Every
// -sample it reads which fan-out jobs are still queued: a job's lag is from
// its queueing (its stream id) to the first read that no longer finds it,
// so lags are known to within -sample, and a job done before any read saw
// it counts as less than -sample. At the end it checks that every post
// answered is in the home timeline of its author's first and last fan.
//
// It prints, per build: posts answered, restarts, the max and p99 fan-out
// lag, and the jobs the stopped processes handed back (their logs say so).
// A build that does not hand back leaves the jobs a stopping process held
// to be taken over after MICROBLOG_FANOUT_CLAIM_IDLE (30 s).
//
//	make build && go run -C server/bench ./rolling     # make bench-rolling
//	go run -C server/bench ./rolling -server before=/tmp/microblog-main,after=$PWD/bin/microblog
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"microblog/server/bench/spawn"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rollingbench:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	builds   []spawn.Build
	procs    int           // server processes
	authors  int           // authors posting
	fans     int           // fans of each author
	rate     int           // posts a second, over all authors
	c        int           // post requests at a time, at most
	warmup   time.Duration // load before the first restart
	gap      time.Duration // from a new process's start to the next stop
	cooldown time.Duration // load after the last restart
	sample   time.Duration // how often the queue is read
	settle   time.Duration // longest wait for the queue to empty at the end
	env      []string      // more of the servers' environment
	redisBin string
	stdout   io.Writer
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("rollingbench", flag.ContinueOnError)
	var (
		servers = fs.String("server", "../../bin/microblog", "server build(s): path, or label=path,label=path")
		env     = fs.String("env", "", "more of the servers' environment: NAME=value,NAME=value (e.g. MICROBLOG_FANOUT_WORKERS=4)")
		timeout = fs.Duration("timeout", 10*time.Minute, "give up (and stop everything started) after this long")
		cfg     = config{stdout: stdout}
	)
	fs.IntVar(&cfg.procs, "procs", 4, "server processes, each restarted once (2 or more)")
	fs.IntVar(&cfg.authors, "authors", 20, "authors posting")
	fs.IntVar(&cfg.fans, "fans", 200, "fans of each author")
	fs.IntVar(&cfg.rate, "rate", 200, "posts a second, over all authors")
	fs.IntVar(&cfg.c, "c", 16, "post requests at a time, at most")
	fs.DurationVar(&cfg.warmup, "warmup", 3*time.Second, "load before the first restart")
	fs.DurationVar(&cfg.gap, "gap", 2*time.Second, "from a new process's start to the next stop")
	fs.DurationVar(&cfg.cooldown, "cooldown", 3*time.Second, "load after the last restart")
	fs.DurationVar(&cfg.sample, "sample", 10*time.Millisecond, "how often the queued jobs are read")
	fs.DurationVar(&cfg.settle, "settle", 2*time.Minute, "longest wait for the queue to empty at the end")
	fs.StringVar(&cfg.redisBin, "redis-server", "redis-server", "the redis-server to start")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if cfg.builds, err = spawn.ParseBuilds(*servers, "microblog"); err != nil {
		return err
	}
	cfg.env = spawn.EnvList(*env)
	if cfg.procs < 2 {
		return fmt.Errorf("-procs must be 2 or more (one serves while another restarts), not %d", cfg.procs)
	}
	if err := spawn.Positive(
		spawn.Flag{Name: "-authors", Value: float64(cfg.authors)},
		spawn.Flag{Name: "-fans", Value: float64(cfg.fans)},
		spawn.Flag{Name: "-rate", Value: float64(cfg.rate)},
		spawn.Flag{Name: "-c", Value: float64(cfg.c)},
	); err != nil {
		return err
	}
	spawn.GiveUpAfter("rollingbench", *timeout)
	fmt.Fprintln(stdout, spawn.CommandLine("rolling"))
	for _, b := range cfg.builds {
		r, err := measure(cfg, b)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Label, err)
		}
		r.print(stdout)
	}
	return nil
}
