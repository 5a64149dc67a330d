// Command fanout, fanoutbench, measures whether the fan-out keeps up with
// its writers, and how fast it pushes, beside what Redis itself can do on
// this machine in the same run.
//
// For each server build (-server) and each load it starts a fresh
// redis-server and server. It measures Redis's own pipelined rate for what
// a push does to one fan with redis-benchmark, before the load and again
// after it (the best of the two: the machine may be shared): ZADD into
// random G sets, and ZREMRANGEBYRANK of them (the trim to the hot window),
// 64 commands a round trip; "ZADD + trim" is one of each, the time of
// both. The load:
//
//   - the loads: -writers authors, each with the same number of fans of its
//     own (-fans, one load each), post -posts posts through the API, -c
//     requests at a time (the seeds' ab -c 50), while the fan-out queue's
//     length and lag (the age of its oldest entry, not yet done) are read
//     every -sample; the fan-out's pushes/s is counted while the queue
//     held a backlog (its capacity), or over the whole run when it kept up;
//   - the big push: one author with -big fans posts once, and the push is
//     timed until every part of it is done.
//
// Fans are written straight into the authors' A:<uid>:fansID sets (made-up
// uids, each following at its own millisecond), so they are all active
// and none mutes anyone: every post is pushed to every fan. The server
// runs with the archive off and production's hot window (-window): each
// fan's G set fills up to it as the load goes on, and is trimmed on every
// push.
//
// It prints a table per build side by side, writes results.json and draws
// queue length and lag over time (fanout-<load>.svg) into -out.
//
//	make build && go run -C server/bench ./fanout        # make bench-fanout
//	go run -C server/bench ./fanout -server before=/tmp/microblog-main,after=$PWD/bin/microblog
//	go run -C server/bench ./fanout -fans 10,100 -posts 4000 -big 100000   # a quick look
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"microblog/server/bench/spawn"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fanoutbench:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	builds   []spawn.Build
	fans     []int         // fans per author, one load each
	writers  int           // authors writing at once
	c        int           // post requests at a time, over all writers
	posts    int           // posts of each load
	big      int           // fans of the big push; 0: none
	window   int           // the server's hot window
	benchN   int           // requests of each redis-benchmark run
	sample   time.Duration // how often the queue is read
	settle   time.Duration // longest wait for the queue to empty
	env      []string      // more of the server's environment
	redisBin string
	benchBin string
	out      string
	stdout   io.Writer
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fanoutbench", flag.ContinueOnError)
	var (
		servers = fs.String("server", "../../bin/microblog", "server build(s): path, or label=path,label=path")
		fans    = fs.String("fans", "10,100,1000", "fans per author, one load each")
		env     = fs.String("env", "", "more of the server's environment: NAME=value,NAME=value (e.g. MICROBLOG_FANOUT_WORKERS=4)")
		timeout = fs.Duration("timeout", 30*time.Minute, "give up (and stop everything started) after this long")
		cfg     = config{stdout: stdout}
	)
	fs.IntVar(&cfg.writers, "writers", 8, "authors writing at once")
	fs.IntVar(&cfg.c, "c", 50, "post requests at a time, over all writers (the seeds' ab -c)")
	fs.IntVar(&cfg.posts, "posts", 8000, "posts of each load")
	fs.IntVar(&cfg.big, "big", 1000000, "fans of the author of the big push (0: no big push)")
	fs.IntVar(&cfg.window, "window", 1000, "the server's hot window (MICROBLOG_HOT_WINDOW, production's default): G sets fill up to it")
	fs.IntVar(&cfg.benchN, "redis-n", 1000000, "requests of each redis-benchmark run")
	fs.DurationVar(&cfg.sample, "sample", 100*time.Millisecond, "how often the queue's length and lag are read")
	fs.DurationVar(&cfg.settle, "settle", 5*time.Minute, "longest wait for the queue to empty after a load")
	fs.StringVar(&cfg.redisBin, "redis-server", "redis-server", "the redis-server to start")
	fs.StringVar(&cfg.benchBin, "redis-benchmark", "redis-benchmark", "the redis-benchmark to run")
	fs.StringVar(&cfg.out, "out", "../../bench-out/fanout", "folder for results.json and the SVG charts (empty: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if cfg.builds, err = spawn.ParseBuilds(*servers, "microblog"); err != nil {
		return err
	}
	for _, f := range strings.Split(*fans, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return fmt.Errorf("-fans: %q is not a list of positive counts", *fans)
		}
		cfg.fans = append(cfg.fans, n)
	}
	cfg.env = spawn.EnvList(*env)
	if err := spawn.Positive(
		spawn.Flag{Name: "-writers", Value: float64(cfg.writers)},
		spawn.Flag{Name: "-c", Value: float64(cfg.c)},
		spawn.Flag{Name: "-posts", Value: float64(cfg.posts)},
		spawn.Flag{Name: "-window", Value: float64(cfg.window)},
		spawn.Flag{Name: "-redis-n", Value: float64(cfg.benchN)},
	); err != nil {
		return err
	}
	spawn.GiveUpAfter("fanoutbench", *timeout)
	res, err := bench(cfg)
	if err != nil {
		return err
	}
	printTables(stdout, res)
	return save(stdout, res, cfg.out)
}
