package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
)

// results is what a run measured, as results.json holds it.
type results struct {
	Command string      `json:"command"`
	CPUs    int         `json:"cpus"`
	Writers int         `json:"writers"`
	C       int         `json:"c"`
	Window  int         `json:"hot_window"`
	Runs    []runResult `json:"runs"`
}

// runResult is one load (or the big push) on one build.
type runResult struct {
	Build   string     `json:"build"`
	Load    string     `json:"load"`
	Fans    int        `json:"fans_per_author"`
	Authors int        `json:"authors"`
	Posts   int        `json:"posts"`
	Redis   redisRates `json:"redis"`
	Pushes  int64      `json:"pushes"`
	// PostsPerSec is how fast the writers' posts were answered.
	PostsPerSec float64 `json:"posts_per_sec"`
	// PushesPerSec is the fan-out's rate while the queue held a backlog
	// (what it can do), or over the whole run when it kept up (KeptUp):
	// then the writers set the pace.
	PushesPerSec float64 `json:"pushes_per_sec"`
	KeptUp       bool    `json:"kept_up"`
	MaxLagMS     float64 `json:"max_lag_ms"`
	MaxQueue     int64   `json:"max_queue"`
	// DrainSec is from the last post's answer to an empty queue.
	DrainSec float64 `json:"drain_sec"`
	// The CPU time of the server and of Redis from the first post to the
	// empty queue, per push.
	ServerUSPerPush float64 `json:"server_us_per_push"`
	RedisUSPerPush  float64 `json:"redis_us_per_push"`
	// RedisTime is where Redis spent its time, by command (INFO
	// commandstats, from the start of the server to the empty queue): µs
	// per push.
	RedisTime []commandTime `json:"redis_time"`
	Samples   []sample      `json:"samples"`
}

// sample is the queue read once.
type sample struct {
	T     float64 `json:"t"`     // seconds since the first post
	Queue int64   `json:"queue"` // entries of fanout:queue and fanout:parts
	LagMS float64 `json:"lag_ms"`
	Done  int64   `json:"done"` // push jobs done so far (posts answered less those queued)
}

// bench measures every load, then the big push, on each build in turn.
func bench(cfg config) (results, error) {
	res := results{Command: spawn.CommandLine("fanout"), CPUs: runtime.NumCPU(), Writers: cfg.writers, C: cfg.c, Window: cfg.window}
	type load struct {
		name          string
		fans, authors int
		posts         int
	}
	var loads []load
	for _, f := range cfg.fans {
		loads = append(loads, load{fmt.Sprintf("%d fans", f), f, cfg.writers, cfg.posts})
	}
	if cfg.big > 0 {
		loads = append(loads, load{fmt.Sprintf("push to %s fans", thousands(float64(cfg.big))), cfg.big, 1, 1})
	}
	for _, l := range loads {
		for _, b := range cfg.builds {
			fmt.Fprintf(cfg.stdout, "--- %s: %s (load average %s)\n", b.Label, l.name, spawn.LoadAvg())
			r, err := measure(cfg, b, l.fans, l.authors, l.posts)
			if err != nil {
				return res, fmt.Errorf("%s, %s: %w", b.Label, l.name, err)
			}
			r.Load = l.name
			fmt.Fprintf(cfg.stdout, "    %s pushes/s (Redis: ZADD %s/s, ZADD + trim %s/s), max lag %s ms, max queue %d, drained %.1f s after the last post\n",
				thousands(r.PushesPerSec), thousands(r.Redis.ZAdd), thousands(r.Redis.Pair), thousands(r.MaxLagMS), r.MaxQueue, r.DrainSec)
			res.Runs = append(res.Runs, r)
		}
	}
	return res, nil
}

// measure runs one load on one build, each with a fresh redis-server.
func measure(cfg config, b spawn.Build, fans, authors, posts int) (runResult, error) {
	r := runResult{Build: b.Label, Fans: fans, Authors: authors, Posts: posts}
	dir, err := os.MkdirTemp("", "fanoutbench-")
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
	if r.Redis, err = redisBench(cfg, opt.Addr); err != nil {
		return r, err
	}
	ctx := context.Background()
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		return r, err
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		return r, err
	}
	env := append([]string{"MICROBLOG_HOT_WINDOW=" + strconv.Itoa(cfg.window),
		"MICROBLOG_CELEBRITY_FANS=" + strconv.Itoa(1<<40)}, cfg.env...) // pushed, however many fans
	sp, err := spawn.StartServer(b.Label, b.Path, url, dir, env...)
	if err != nil {
		return r, err
	}
	defer sp.Stop()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.c}}
	tokens, err := setUp(ctx, client, sp.URL, rdb, authors, fans)
	if err != nil {
		return r, err
	}

	var posted atomic.Int64
	q := watch(ctx, rdb, cfg.sample, &posted)
	cpu0, rcpu0 := sp.CPU(), rp.CPU()
	start := time.Now()
	q.start(start)
	err = write(client, sp.URL, tokens, posts, min(cfg.c, posts), &posted)
	wrote := time.Since(start)
	if err != nil {
		q.stop()
		return r, err
	}
	drained, err := q.drained(cfg.settle)
	samples := q.stop()
	if err != nil {
		return r, err
	}
	cpu, rcpu := sp.CPU()-cpu0, rp.CPU()-rcpu0
	stats, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return r, err
	}
	// Once more after the load, beside the one before it: the busier
	// machine of the two is not Redis's limit.
	again, err := redisBench(cfg, opt.Addr)
	if err != nil {
		return r, err
	}
	r.Redis = r.Redis.best(again)
	r.Samples = samples
	r.Pushes = int64(posts) * int64(fans)
	r.PostsPerSec = float64(posts) / wrote.Seconds()
	r.DrainSec = max(0, (drained - wrote).Seconds())
	if posts == 1 { // one push: from its post to its last part
		r.PushesPerSec = float64(r.Pushes) / drained.Seconds()
	} else {
		r.PushesPerSec, r.KeptUp = pushRate(samples, fans, r.Pushes, drained)
	}
	for _, s := range samples {
		r.MaxLagMS, r.MaxQueue = max(r.MaxLagMS, s.LagMS), max(r.MaxQueue, s.Queue)
	}
	r.ServerUSPerPush = float64(cpu.Microseconds()) / float64(r.Pushes)
	r.RedisUSPerPush = float64(rcpu.Microseconds()) / float64(r.Pushes)
	r.RedisTime = commandTimes(stats, r.Pushes)
	return r, nil
}

// backlog is the queue length from which the fan-out counts as busy: a
// worker's whole read.
const backlog = 64

// pushRate is the fan-out's pushes/s over the samples where the queue held
// a backlog at both ends, and whether it never did (kept up): then it is
// every push over the time from the first post to the empty queue.
func pushRate(samples []sample, fans int, pushes int64, drained time.Duration) (float64, bool) {
	var jobs int64
	var secs float64
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if a.Queue >= backlog && b.Queue >= backlog {
			jobs += b.Done - a.Done
			secs += b.T - a.T
		}
	}
	if secs < 0.5 || jobs <= 0 {
		return float64(pushes) / drained.Seconds(), true
	}
	return float64(jobs) * float64(fans) / secs, false
}

// setUp signs up the authors through the API, and makes each the star of
// fans made-up users of its own, each following at its own millisecond;
// it returns the authors' session tokens.
func setUp(ctx context.Context, client *http.Client, base string, rdb *redis.Client, authors, fans int) ([]string, error) {
	var tokens []string
	next := int64(1_000_000_000) // made-up fans, far from the authors' uids
	for i := range authors {
		var out struct {
			User struct {
				ID int64 `json:"id"`
			} `json:"user"`
			Token string `json:"token"`
		}
		err := spawn.Call(client, base, "POST", "/api/v1/users", "", map[string]string{
			"username": "author" + strconv.Itoa(i), "password": "fanoutbench-password"}, http.StatusCreated, &out)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, out.Token)
		for from := 0; from < fans; from += 10000 {
			zs := make([]redis.Z, 0, min(10000, fans-from))
			for k := from; k < fans && k < from+10000; k++ {
				zs = append(zs, redis.Z{Score: float64(1_700_000_000_000 + k), Member: next})
				next++
			}
			if err := rdb.ZAdd(ctx, "A:"+strconv.FormatInt(out.User.ID, 10)+":fansID", zs...).Err(); err != nil {
				return nil, fmt.Errorf("seed fans: %w", err)
			}
		}
	}
	return tokens, nil
}

// write posts n posts, c at a time, the authors of tokens in turn, and
// counts each answered in posted.
func write(client *http.Client, base string, tokens []string, n, c int, posted *atomic.Int64) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, c)
	for w := range c {
		wg.Go(func() {
			token := tokens[w%len(tokens)]
			for next.Add(1) <= int64(n) {
				err := spawn.Call(client, base, "POST", "/api/v1/posts", token,
					map[string]string{"content": "Hello from the fan-out benchmark"}, http.StatusCreated, nil)
				if err != nil {
					errs <- err
					return
				}
				posted.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
