package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
)

// result is what one build's rolling restart measured.
type result struct {
	Build      string
	Procs      int
	Posts      int // answered
	Retries    int // post requests tried again on another process
	Restarts   int
	Stops      []time.Duration // how long each stopped process took to exit
	HandedBack int             // jobs the stopped processes handed back
	Lags       lags
}

// print writes the result's lines.
func (r result) print(w interface{ Write([]byte) (int, error) }) {
	slowest := time.Duration(0)
	for _, d := range r.Stops {
		slowest = max(slowest, d)
	}
	fmt.Fprintf(w, "--- %s: %d processes, each restarted once under load\n", r.Build, r.Procs)
	fmt.Fprintf(w, "    posts %d (requests retried on another process: %d), restarts %d (slowest stop %s)\n",
		r.Posts, r.Retries, r.Restarts, slowest.Round(time.Millisecond))
	fmt.Fprintf(w, "    fan-out lag: max %s, p99 %s (jobs %d, read every %s), jobs handed back %d\n",
		r.Lags.max(), r.Lags.quantile(0.99), r.Lags.jobs, r.Lags.every, r.HandedBack)
}

// measure runs the rolling restart on one build, with a fresh redis-server.
func measure(cfg config, b spawn.Build) (result, error) {
	r := result{Build: b.Label, Procs: cfg.procs}
	dir, err := os.MkdirTemp("", "rollingbench-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	rp, url, err := spawn.StartRedis(cfg.redisBin, dir)
	if err != nil {
		return r, err
	}
	defer rp.Stop()
	opt, err := redis.ParseURL(url)
	if err != nil {
		return r, err
	}
	ctx := context.Background()
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	// Info for the hand-back's log line; a window that keeps every post.
	env := append([]string{"MICROBLOG_LOG_LEVEL=info", "MICROBLOG_HOT_WINDOW=100000"}, cfg.env...)
	start := func(i int) (*spawn.Proc, error) {
		return spawn.StartServer(fmt.Sprintf("%s server %d", b.Label, i), b.Path, url, dir, env...)
	}
	pool := &rotation{}
	defer pool.stopAll()
	for i := range cfg.procs {
		p, err := start(i)
		if err != nil {
			return r, err
		}
		pool.add(p)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.c}}
	authors, err := setUp(ctx, client, pool.pick().URL, rdb, cfg.authors, cfg.fans)
	if err != nil {
		return r, err
	}

	w := watch(ctx, rdb, cfg.sample)
	l := startLoad(client, pool, authors, cfg.rate, cfg.c)
	time.Sleep(cfg.warmup)
	for i := range cfg.procs {
		old := pool.removeOldest()
		t := time.Now()
		old.Stop()
		r.Stops = append(r.Stops, time.Since(t))
		r.HandedBack += handedBack(old.Logs())
		p, err := start(cfg.procs + i)
		if err != nil {
			l.stop()
			w.stop(0)
			return r, err
		}
		pool.add(p)
		r.Restarts++
		time.Sleep(cfg.gap)
	}
	time.Sleep(cfg.cooldown)
	posts, retries, err := l.stop()
	if err != nil {
		w.stop(0)
		return r, err
	}
	r.Posts, r.Retries = len(posts), retries
	if err := w.drained(cfg.settle); err != nil {
		w.stop(0)
		return r, err
	}
	r.Lags = w.stop(r.Posts)
	return r, check(ctx, rdb, authors, posts)
}

// handedBackLine is the log line of a hand-back and its count, in slog's
// text or JSON form.
var handedBackLine = regexp.MustCompile(`handed back the entries[^\n]*?entries"?[=:](\d+)`)

// handedBack sums the entries a stopped process's log says it handed back.
func handedBack(logs string) int {
	n := 0
	for _, m := range handedBackLine.FindAllStringSubmatch(logs, -1) {
		k, _ := strconv.Atoi(m[1])
		n += k
	}
	return n
}

// rotation is the processes the load is sent to, as a load balancer holds
// them: one is taken out before it is stopped.
type rotation struct {
	mu    sync.Mutex
	procs []*spawn.Proc
	next  int
}

func (r *rotation) add(p *spawn.Proc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.procs = append(r.procs, p)
}

// pick is the next process in turn.
func (r *rotation) pick() *spawn.Proc {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	return r.procs[r.next%len(r.procs)]
}

// removeOldest takes the process started first out of the rotation.
func (r *rotation) removeOldest() *spawn.Proc {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.procs[0]
	r.procs = r.procs[1:]
	return p
}

func (r *rotation) stopAll() {
	r.mu.Lock()
	procs := r.procs
	r.procs = nil
	r.mu.Unlock()
	for _, p := range procs {
		p.Stop()
	}
}
