package redisdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// BenchmarkTimelines weighs pushing a post into every fan's home timeline
// against pulling it from the author's F set at read time, for authors with
// 10 to 1,000,000 fans, and prints its own tables (Go's ns/op line means
// nothing here). It runs once, whatever b.N:
//
//	go test -run '^$' -bench BenchmarkTimelines -benchtime 1x -timeout 30m ./store/redisdb
//
// Environment:
//
//	TIMELINE_BENCH_MAX_FANS=10000  stop at authors with that many fans (a quick check)
//	TIMELINE_BENCH_AOF=no          run Redis without append-only persistence
//
// The fans are written straight into Redis (A sets, global:lastseen marking
// each of them as seen now, so every fan counts as active and gets the push:
// the upper bound of push work). Posts go through Create, pushes through
// the FanOut workers with default options, reads through HomeTimeline.
func BenchmarkTimelines(b *testing.B) {
	maxFans := math.MaxInt
	if v := os.Getenv("TIMELINE_BENCH_MAX_FANS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("TIMELINE_BENCH_MAX_FANS=%q: want a positive number", v)
		}
		maxFans = n
	}
	args := []string{
		// A rewrite forks and copies the whole data set: keep it from landing
		// in the middle of a measurement. The AOF itself stays on.
		"--auto-aof-rewrite-percentage", "0",
		"--appendfsync", "everysec", // production's, not the tests'
	}
	aof := "on (appendfsync everysec, automatic rewrite off)"
	if os.Getenv("TIMELINE_BENCH_AOF") == "no" {
		args = append(args, "--appendonly", "no")
		aof = "off"
	}
	e := newTLBench(b, storetest.StartWith(b, args...))

	// fullG: every fan's G already holds a full hot window (the steady
	// state: each push adds one id and trims one), push only.
	type level struct {
		fans, pushPosts, pullPosts int
		fullG                      bool
	}
	var levels []level
	for _, l := range []level{{10, 50, 50, false}, {1000, 50, 50, false}, {10000, 50, 50, false}, {10000, 50, 0, true},
		{100000, 10, 50, false}, {1000000, 3, 50, false}} {
		if l.fans <= maxFans {
			levels = append(levels, l)
		}
	}

	start, loadBefore := time.Now(), tlLoad()
	var rows []tlRow
	var interference []tlInterference
	for _, l := range levels {
		push, pull, inter := e.fanLevel(l.fans, l.pushPosts, l.pullPosts, l.fullG)
		rows = append(rows, push)
		if l.pullPosts > 0 {
			rows = append(rows, pull)
			interference = append(interference, inter)
		}
	}
	reads := e.homeReads()
	elapsed := time.Since(start)

	e.print(rows, interference, reads, aof, maxFans, elapsed, loadBefore+" before, "+tlLoad()+" after")
}

// tlBench holds the Redis under test and the stores that talk to it, each
// on its own client so that their round trips can be counted apart.
type tlBench struct {
	b     *testing.B
	ctx   context.Context
	r     *storetest.Redis
	admin *redis.Client // seeding, INFO, polling
	// writer posts (authors in push mode stay there: CelebrityFans is out
	// of reach); promoter has CelebrityFans 1 and only makes celebrities.
	writer, promoter, reader, bystander *Store
	writerTrips, readerTrips            *tlTrips
	stopWorkers                         func()
	polls                               int64 // commands the benchmark itself sent while measuring
}

func newTLBench(b *testing.B, r *storetest.Redis) *tlBench {
	e := &tlBench{b: b, ctx: context.Background(), r: r, admin: r.Client(),
		writerTrips: &tlTrips{}, readerTrips: &tlTrips{}}
	opt := func(celebrityFans int) Options {
		return Options{BcryptCost: bcrypt.MinCost, CelebrityFans: celebrityFans}
	}
	wc, rc := r.Client(), r.Client()
	wc.AddHook(e.writerTrips)
	rc.AddHook(e.readerTrips)
	e.writer = New(wc, opt(math.MaxInt32))
	e.reader = New(rc, opt(math.MaxInt32))
	e.bystander = New(r.Client(), opt(math.MaxInt32))
	e.promoter = New(e.admin, opt(1))
	b.Cleanup(func() {
		if e.stopWorkers != nil {
			e.stopWorkers()
		}
	})
	return e
}

// startWorkers runs the fan-out workers (default FanOutOptions) on their own
// client until stopWorkers.
func (e *tlBench) startWorkers() {
	e.must(e.admin.XGroupCreateMkStream(e.ctx, e.writer.keys.FanOutQueue(), schema.FanOutGroup, "0").Err())
	w := New(e.r.Client(), Options{BcryptCost: bcrypt.MinCost, CelebrityFans: math.MaxInt32})
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { defer close(done); runner.NewFanOut(w, runner.FanOutOptions{}).Run(ctx) }()
	e.stopWorkers = func() { cancel(); <-done; e.stopWorkers = nil }
}

// reset empties Redis (synchronously, so that no background free skews the
// next memory reading) with the workers stopped.
func (e *tlBench) reset() {
	if e.stopWorkers != nil {
		e.stopWorkers()
	}
	e.must(e.admin.FlushAll(e.ctx).Err())
}

func (e *tlBench) must(err error) {
	e.b.Helper()
	if err != nil && !errors.Is(err, redis.Nil) {
		e.b.Fatal(err)
	}
}

// settleAOF waits until Redis has written and synced what seeding put in
// its append-only file, so that a long fsync of it lands in no measurement.
func (e *tlBench) settleAOF() {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		info, err := e.admin.Info(e.ctx, "persistence").Result()
		e.must(err)
		if !strings.Contains(info, "aof_enabled:1") ||
			(strings.Contains(info, "aof_pending_bio_fsync:0") && strings.Contains(info, "aof_buffer_length:0")) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// delayedFsyncs counts the times Redis had to hold its writes back because
// the append-only file's fsync took too long (disk too slow).
func (e *tlBench) delayedFsyncs() int64 {
	info, err := e.admin.Info(e.ctx, "persistence").Result()
	e.must(err)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "aof_delayed_fsync:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// tlTrips counts round trips (a command or a pipeline each) on one client.
type tlTrips struct{ n atomic.Int64 }

func (h *tlTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *tlTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h *tlTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}

// tlStats is one reading of Redis's INFO and of this process's CPU time.
type tlStats struct {
	mem      int64   // used_memory
	cpu      float64 // used_cpu_user + used_cpu_sys (+ children), seconds
	cmds     int64   // total_commands_processed
	goCPU    float64 // this process's CPU time (the workers, Create, polling), seconds
	children float64
}

func (e *tlBench) stats() tlStats {
	info, err := e.admin.Info(e.ctx, "memory", "cpu", "stats").Result()
	e.must(err)
	var s tlStats
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		f, _ := strconv.ParseFloat(v, 64)
		switch k {
		case "used_memory":
			s.mem = int64(f)
		case "used_cpu_user", "used_cpu_sys":
			s.cpu += f
		case "used_cpu_user_children", "used_cpu_sys_children":
			s.cpu += f
			s.children += f
		case "total_commands_processed":
			s.cmds = int64(f)
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.goCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	e.polls++ // the INFO itself
	return s
}

// reportCPU reports the CPU per op between two readings, this process's
// and Redis's, and the round trips counted by trips (reset at s0), and
// returns the CPU per op in ns.
func (e *tlBench) reportCPU(b *testing.B, s0, s1 tlStats, trips *tlTrips) float64 {
	n := float64(b.N)
	goCPU, redisCPU := (s1.goCPU-s0.goCPU)*1e9/n, (s1.cpu-s0.cpu)*1e9/n
	b.ReportMetric(goCPU, "go-cpu-ns/op")
	b.ReportMetric(redisCPU, "redis-cpu-ns/op")
	b.ReportMetric(goCPU+redisCPU, "cpu-ns/op")
	b.ReportMetric(float64(trips.n.Load())/n, "trips/op")
	return goCPU + redisCPU
}

// seedAuthor writes author with fans followers (uids firstFan…), straight
// into Redis in pipelines of about 10,000 commands: the author's hash, its
// A:fansID, each fan's A:loverID, and each fan as seen now.
func (e *tlBench) seedAuthor(author int64, name string, firstFan int64, fans int) {
	k := e.writer.keys
	now := time.Now().UnixMilli()
	e.must(e.admin.HSet(e.ctx, k.User(author), schema.FieldUsername, name, "created", now).Err())
	const chunk = 10000
	for lo := 0; lo < fans; lo += chunk {
		hi := min(fans, lo+chunk)
		followed := make([]redis.Z, 0, hi-lo)
		seen := make([]redis.Z, 0, hi-lo)
		_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
			for i := lo; i < hi; i++ {
				fan := firstFan + int64(i)
				at := float64(now - int64(fans) + int64(i)) // distinct follow times: the last fan is the last by rank
				followed = append(followed, redis.Z{Score: at, Member: fan})
				seen = append(seen, redis.Z{Score: float64(now), Member: fan})
				pl.ZAdd(e.ctx, k.Stars(fan), redis.Z{Score: at, Member: author})
			}
			pl.ZAdd(e.ctx, k.Fans(author), followed...)
			pl.ZAdd(e.ctx, k.LastSeen(), seen...)
			return nil
		})
		e.must(err)
	}
}

// fillHomes fills the G set of every fan with a full hot window of older
// ids (that name no message: nobody reads that far down) and returns the
// Redis memory it took. Posts drawn later get ids above them.
func (e *tlBench) fillHomes(firstFan int64, fans int) int64 {
	k, hot := e.writer.keys, e.writer.opt.HotWindow
	old := make([]redis.Z, hot)
	for i := range old {
		old[i] = redis.Z{Score: float64(i + 1), Member: i + 1}
	}
	e.must(e.admin.Set(e.ctx, k.LastPostID(), hot, 0).Err())
	before := e.stats().mem
	const chunk = 20 // G sets per pipeline: 20,000 members
	for lo := 0; lo < fans; lo += chunk {
		_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
			for i := lo; i < min(fans, lo+chunk); i++ {
				pl.ZAdd(e.ctx, k.Home(firstFan+int64(i)), old...)
			}
			return nil
		})
		e.must(err)
	}
	return e.stats().mem - before
}

// follow writes one follow straight into Redis.
func (e *tlBench) follow(fan, star int64) {
	k, now := e.writer.keys, float64(time.Now().UnixMilli())
	_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
		pl.ZAdd(e.ctx, k.Stars(fan), redis.Z{Score: now, Member: star})
		pl.ZAdd(e.ctx, k.Fans(star), redis.Z{Score: now, Member: fan})
		return nil
	})
	e.must(err)
}

func (e *tlBench) post(s *Store, author int64, i int) (store.Post, time.Duration) {
	t := time.Now()
	p, err := s.Create(e.ctx, store.NewPost{Author: author,
		Content: fmt.Sprintf("Post %d: a line of about a hundred characters, as people write them, to weigh what a post costs.", i)})
	d := time.Since(t)
	e.must(err)
	return p, d
}

// waitHome waits until mid is in uid's G set, polling Redis.
func (e *tlBench) waitHome(uid, mid int64, limit time.Duration) {
	deadline := time.Now().Add(limit)
	key, member := e.writer.keys.Home(uid), id(mid)
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 2*time.Millisecond) {
		e.polls++
		if err := e.admin.ZScore(e.ctx, key, member).Err(); err == nil {
			return
		} else if !errors.Is(err, redis.Nil) {
			e.b.Fatal(err)
		}
		if time.Now().After(deadline) {
			e.b.Fatalf("post %d not in the home timeline of %d after %v", mid, uid, limit)
		}
		time.Sleep(wait)
	}
}

// waitQueue waits until the fan-out queue is empty: every job done.
func (e *tlBench) waitQueue(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 5*time.Millisecond) {
		e.polls++
		n, err := e.admin.XLen(e.ctx, e.writer.keys.FanOutQueue()).Result()
		e.must(err)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.b.Fatalf("fan-out queue still holds %d jobs after %v", n, limit)
		}
		time.Sleep(wait)
	}
}

// tlRow is one line of the main table.
type tlRow struct {
	fans, posts     int
	mode            string
	postLat         []time.Duration
	lastFan         []time.Duration // push only
	firstPush       time.Duration   // push only: the warm-up post, which creates the fans' G keys
	firstPushMem    int64
	fullG           bool    // every fan's G held a full hot window before
	gMem            int64   // what filling those G sets took
	mem             float64 // bytes per post
	cpu, goCPU      float64 // seconds per post
	cmds, tripsPost float64
}

// tlInterference is what other users see while an author's pushes run.
type tlInterference struct {
	fans, bigPosts    int
	push              time.Duration // the big pushes' total time
	postLat, readLat  []time.Duration
	pulledDuringReads bool
}

// Fan uids start here; authors and readers are small numbers.
const tlFirstFan = 1_000_000

// fanLevel measures one author with fans followers, first pushed, then pulled.
func (e *tlBench) fanLevel(fans, pushPosts, pullPosts int, fullG bool) (push, pull tlRow, inter tlInterference) {
	const author, other = 1, 2
	lastFan := int64(tlFirstFan + fans - 1)
	e.reset()
	t := time.Now()
	e.seedAuthor(author, "author", tlFirstFan, fans)
	// A bystander with one fan, the big author's first fan, who reads.
	e.seedAuthor(other, "bystander", tlFirstFan, 1)
	var gMem int64
	if fullG {
		gMem = e.fillHomes(tlFirstFan, fans)
	}
	e.settleAOF()
	fmt.Fprintf(os.Stderr, "timelines: %d fans seeded in %v\n", fans, time.Since(t).Round(time.Millisecond))
	e.startWorkers()
	limit := 10*time.Second + time.Duration(fans)*50*time.Microsecond
	for i := range 20 { // a full first page for the reader of the interference run
		e.post(e.bystander, other, i)
	}
	e.waitQueue(limit)

	// Warm-up: the first push creates every fan's G key; the measured posts
	// then add to existing home timelines, as on a live system.
	s0 := e.stats()
	t = time.Now()
	p, _ := e.post(e.writer, author, 0)
	e.waitHome(lastFan, p.ID, limit)
	e.waitQueue(limit)
	firstPush, firstPushMem := time.Since(t), e.stats().mem-s0.mem
	e.settleAOF()
	for _, f := range []int64{tlFirstFan, tlFirstFan + int64(fans/2), lastFan} {
		if e.admin.ZScore(e.ctx, e.writer.keys.Home(f), id(p.ID)).Err() != nil {
			e.b.Fatalf("fan %d did not get post %d", f, p.ID)
		}
	}

	// Push mode: each post alone, the next one once the queue is empty.
	push = tlRow{fans: fans, posts: pushPosts, mode: "push", firstPush: firstPush, firstPushMem: firstPushMem, fullG: fullG, gMem: gMem}
	e.writerTrips.n.Store(0)
	e.polls = 0
	s0 = e.stats()
	for i := range pushPosts {
		t := time.Now()
		p, lat := e.post(e.writer, author, i+1)
		e.waitHome(lastFan, p.ID, limit)
		push.lastFan = append(push.lastFan, time.Since(t))
		push.postLat = append(push.postLat, lat)
		e.waitQueue(limit)
	}
	e.finishRow(&push, s0)
	fmt.Fprintf(os.Stderr, "timelines: %d fans (full G %v), first push %v, each push until the last fan: %v\n",
		fans, fullG, firstPush.Round(time.Millisecond), tlRound(push.lastFan))
	if pullPosts == 0 {
		e.stopWorkers()
		return push, pull, inter
	}

	// Others' posts and reads while the author's pushes run.
	inter = e.interfere(author, other, lastFan, max(1, min(pushPosts, 20)), limit)
	inter.fans = fans

	// Pull mode: the author becomes a celebrity the way a follow would make it.
	e.must(e.promoter.Reconsider(e.ctx, author))
	if m, _ := e.admin.HGet(e.ctx, e.writer.keys.User(author), schema.FieldFanOut).Result(); m != schema.ModePull {
		e.b.Fatalf("author with %d fans is in mode %q after reconsider, want pull", fans, m)
	}
	pull = tlRow{fans: fans, posts: pullPosts, mode: "pull"}
	e.writerTrips.n.Store(0)
	e.polls = 0
	s0 = e.stats()
	for i := range pullPosts {
		_, lat := e.post(e.writer, author, 1000+i)
		pull.postLat = append(pull.postLat, lat)
	}
	e.waitQueue(limit) // nothing should be queued
	e.finishRow(&pull, s0)
	// The last fan sees the last pulled post at once, on top of its home page.
	page, err := e.reader.HomeTimeline(e.ctx, lastFan, store.PageQuery{Limit: 1})
	e.must(err)
	if last, _ := e.admin.ZRevRange(e.ctx, e.writer.keys.UserPosts(author), 0, 0).Result(); len(page.Items) != 1 || id(page.Items[0].ID) != last[0] {
		e.b.Fatalf("the last fan's home does not start with the pulled post %v: %+v", last, page.Items)
	}
	e.stopWorkers()
	return push, pull, inter
}

// finishRow turns the INFO readings around a row's posts into per-post figures.
func (e *tlBench) finishRow(r *tlRow, s0 tlStats) {
	s1 := e.stats()
	n := float64(r.posts)
	r.mem = float64(s1.mem-s0.mem) / n
	r.cpu = (s1.cpu - s0.cpu) / n
	r.goCPU = (s1.goCPU - s0.goCPU) / n
	r.cmds = float64(s1.cmds-s0.cmds-e.polls) / n
	r.tripsPost = float64(e.writerTrips.n.Load()) / n
	if s1.children > s0.children {
		fmt.Fprintf(os.Stderr, "timelines: a forked child used %.2fs of CPU during %d-fan %s\n", s1.children-s0.children, r.fans, r.mode)
	}
}

// interfere has the big author post bigPosts times, one after the other
// done, while another user keeps posting (one fan) and the big author's
// first fan keeps reading its home timeline (which pulls the big author's
// F while its push is pending).
func (e *tlBench) interfere(author, other, lastFan int64, bigPosts int, limit time.Duration) tlInterference {
	in := tlInterference{bigPosts: bigPosts}
	stop := make(chan struct{})
	var failed atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			t := time.Now()
			_, err := e.bystander.Create(e.ctx, store.NewPost{Author: other, Content: fmt.Sprint("Meanwhile ", i)})
			in.postLat = append(in.postLat, time.Since(t))
			if err != nil {
				failed.Store(fmt.Errorf("post during push: %w", err))
				return
			}
			t = time.Now()
			page, err := e.bystander.HomeTimeline(e.ctx, tlFirstFan, store.PageQuery{Limit: 20})
			in.readLat = append(in.readLat, time.Since(t))
			if err != nil || len(page.Items) != 20 {
				failed.Store(fmt.Errorf("home read during push: %v, %d posts", err, len(page.Items)))
				return
			}
		}
	}()
	for i := range bigPosts {
		t := time.Now()
		p, _ := e.post(e.writer, author, 500+i)
		if i == 0 {
			pulls, _, err := e.bystander.touch(e.ctx, tlFirstFan, nil)
			e.must(err)
			keys, err := e.bystander.homeKeys(e.ctx, tlFirstFan, pulls)
			e.must(err)
			in.pulledDuringReads = len(keys) > 1
		}
		e.waitHome(lastFan, p.ID, limit)
		e.waitQueue(limit)
		in.push += time.Since(t)
	}
	close(stop)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		e.b.Fatal(err)
	}
	e.waitQueue(limit)
	return in
}

// tlRead is one line of the home-read table.
type tlRead struct {
	what             string
	reads            int
	lat              []time.Duration
	trips, cmds, cpu float64
	celebPosts       int // posts of the five celebrities on the page
}

// homeReads measures the first page (20) of a home timeline of a fan of 200
// ordinary stars and 5 celebrities, the 5 pushed or pulled.
func (e *tlBench) homeReads() []tlRead {
	const (
		readerPush, readerPull = 10, 11
		firstStar, stars       = 100, 200
		firstPushedCeleb       = 300
		firstPulledCeleb       = 400
		celebs                 = 5
		rounds                 = 5 // each star posts once a round, each celebrity after every 10th star
	)
	e.reset()
	e.startWorkers()
	defer e.stopWorkers()
	for _, u := range []int64{readerPush, readerPull} {
		e.must(e.admin.HSet(e.ctx, e.writer.keys.User(u), schema.FieldUsername, "reader"+id(u)).Err())
	}
	for i := range int64(stars) {
		e.must(e.admin.HSet(e.ctx, e.writer.keys.User(firstStar+i), schema.FieldUsername, "star"+id(i)).Err())
		e.follow(readerPush, firstStar+i)
		e.follow(readerPull, firstStar+i)
	}
	for i := range int64(celebs) {
		e.must(e.admin.HSet(e.ctx, e.writer.keys.User(firstPushedCeleb+i), schema.FieldUsername, "pushed"+id(i)).Err())
		e.must(e.admin.HSet(e.ctx, e.writer.keys.User(firstPulledCeleb+i), schema.FieldUsername, "pulled"+id(i)).Err())
		e.follow(readerPush, firstPushedCeleb+i)
		e.follow(readerPull, firstPulledCeleb+i)
		e.must(e.promoter.Reconsider(e.ctx, firstPulledCeleb+i)) // one fan ≥ CelebrityFans 1
	}
	n := 0
	for range rounds {
		for i := range int64(stars) {
			e.post(e.writer, firstStar+i, n)
			n++
			if i%10 == 0 { // interleaved: the newest page mixes stars and celebrities
				for c := range int64(celebs) {
					e.post(e.writer, firstPushedCeleb+c, n)
					e.post(e.writer, firstPulledCeleb+c, n)
					n++
				}
			}
		}
	}
	e.waitQueue(time.Minute)
	celebOf := func(p store.Post) bool {
		a := p.Author.ID
		return (a >= firstPushedCeleb && a < firstPushedCeleb+celebs) || (a >= firstPulledCeleb && a < firstPulledCeleb+celebs)
	}

	// measure reads the first home page of each reader: the latencies in
	// turns (one read of each, alternately), so that any drift of the
	// machine hits all of them alike; then Redis's counters, reader by reader.
	type reader struct {
		what string
		uid  int64
	}
	q := store.PageQuery{Limit: 20}
	read := func(r reader) store.Page[store.Post] {
		page, err := e.reader.HomeTimeline(e.ctx, r.uid, q)
		e.must(err)
		if len(page.Items) != 20 {
			e.b.Fatalf("%s: home page of %d posts, want 20", r.what, len(page.Items))
		}
		return page
	}
	measure := func(reads int, rs ...reader) []tlRead {
		out := make([]tlRead, len(rs))
		for i, r := range rs {
			out[i] = tlRead{what: r.what, reads: reads}
			for range 50 { // warm up connections; touch marks the reader as seen
				read(r)
			}
		}
		for n := range reads {
			for j := range rs {
				i := (j + n) % len(rs)
				t := time.Now()
				read(rs[i])
				out[i].lat = append(out[i].lat, time.Since(t))
			}
		}
		for i, r := range rs {
			n := min(reads, 500)
			e.readerTrips.n.Store(0)
			e.polls = 0
			s0 := e.stats()
			var page store.Page[store.Post]
			for range n {
				page = read(r)
			}
			s1 := e.stats()

			out[i].trips = float64(e.readerTrips.n.Load()) / float64(n)
			out[i].cmds = float64(s1.cmds-s0.cmds-e.polls) / float64(n)
			out[i].cpu = (s1.cpu - s0.cpu) / float64(n)
			for _, p := range page.Items {
				if celebOf(p) {
					out[i].celebPosts++
				}
			}
		}
		return out
	}
	e.settleAOF()
	// With no celebrity at all in global:celebrities (the pulled five moved
	// aside), a read skips the round trip that checks which ones it follows.
	e.must(e.admin.Rename(e.ctx, e.writer.keys.Celebrities(), "aside").Err())
	out := measure(1000, reader{"5 pushed, no celebrities exist at all", readerPush})
	e.must(e.admin.Rename(e.ctx, "aside", e.writer.keys.Celebrities()).Err())
	out = append(out, measure(1000,
		reader{"5 celebrities pushed (in G)", readerPush},
		reader{"5 celebrities pulled (F merged)", readerPull})...)
	if out[1].celebPosts == 0 || out[1].celebPosts != out[2].celebPosts {
		e.b.Fatalf("the two pages differ in celebrity posts: %d pushed, %d pulled", out[1].celebPosts, out[2].celebPosts)
	}
	// Every read also fetches all of global:celebrities (and fanout:pending):
	// the cost of many authors being celebrities, followed or not.
	for _, others := range []int{1000, 10000, 100000} {
		members := make([]any, others)
		for i := range members {
			members[i] = 10_000_000 + i
		}
		for lo := 0; lo < others; lo += 10000 {
			e.must(e.admin.SAdd(e.ctx, e.writer.keys.Celebrities(), members[lo:min(others, lo+10000)]...).Err())
		}
		out = append(out, measure(min(1000, 10_000_000/others),
			reader{fmt.Sprintf("5 pushed, %s other celebrities exist", tlCount(others)), readerPush},
			reader{fmt.Sprintf("5 pulled, %s other celebrities exist", tlCount(others)), readerPull})...)
		for lo := 0; lo < others; lo += 10000 {
			e.must(e.admin.SRem(e.ctx, e.writer.keys.Celebrities(), members[lo:min(others, lo+10000)]...).Err())
		}
	}
	return out
}

func (e *tlBench) print(rows []tlRow, inter []tlInterference, reads []tlRead, aof string, maxFans int, elapsed time.Duration, load string) {
	w := os.Stdout
	cmd := "go test -run '^$' -bench BenchmarkTimelines -benchtime 1x -timeout 30m ./store/redisdb"
	if maxFans != math.MaxInt {
		cmd = fmt.Sprintf("TIMELINE_BENCH_MAX_FANS=%d %s", maxFans, cmd)
	}
	ver, _ := e.admin.Info(e.ctx, "server").Result()
	redisVer := "?"
	for _, line := range strings.Split(ver, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			redisVer = v
		}
	}
	fmt.Fprintf(w, "\n### Push vs pull per author (one post at a time; the next once the fan-out queue is empty)\n\n")
	fmt.Fprintf(w, "Redis %s on loopback, AOF %s; %d CPUs; fan-out workers: FanOut with default FanOutOptions (2 workers), batches of %d fans; every fan seen recently (active).\n\n",
		redisVer, aof, runtime.NumCPU(), runner.FanOutBatch)
	fmt.Fprintln(w, "Memory and CPU are deltas of INFO (used_memory; used_cpu_user+used_cpu_sys) over the measured posts, divided by them; app CPU is this test process's (mostly the fan-out workers). Commands exclude the benchmark's own polling.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| fans | mode | posts | POST p50 | POST p99 | last fan sees it after (p50 / max) | fans reached per s | Redis memory per post | per fan | Redis CPU per post | app CPU per post | Redis commands per post | POST round trips |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		sees, rate := "at once (in F when POST returns)", "–"
		if r.mode == "push" {
			p50, mx := tlPct(r.lastFan, 0.5), slices.Max(r.lastFan)
			sees = fmt.Sprintf("%s / %s", tlDur(p50), tlDur(mx))
			rate = tlCount(int(float64(r.fans) / p50.Seconds()))
		}
		mode := r.mode
		if r.fullG {
			mode = fmt.Sprintf("push, G full (%s ids each)", tlCount(e.writer.opt.HotWindow))
		}
		perFan := "–"
		if r.mode == "push" {
			perFan = fmt.Sprintf("%.1f B", r.mem/float64(r.fans))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n",
			tlCount(r.fans), mode, r.posts, tlDur(tlPct(r.postLat, 0.5)), tlDur(tlPct(r.postLat, 0.99)),
			sees, rate, tlBytes(r.mem), perFan, tlDur(secs(r.cpu)), tlDur(secs(r.goCPU)),
			tlCount(int(math.Round(r.cmds))), r.tripsPost)
	}
	fmt.Fprintln(w, "\nThe first push of each author (not in the table) also creates every fan's G key:")
	for _, r := range rows {
		if r.fullG {
			fmt.Fprintf(w, "%s fans with full G sets: filling them took %s of Redis memory, %.0f B per fan, %.1f B per id held.\n",
				tlCount(r.fans), tlBytes(float64(r.gMem)), float64(r.gMem)/float64(r.fans), float64(r.gMem)/float64(r.fans)/float64(e.writer.opt.HotWindow))
		} else if r.mode == "push" {
			fmt.Fprintf(w, "%s fans: %s until the last fan had it, %s of Redis memory (%.0f B per fan).\n",
				tlCount(r.fans), tlDur(r.firstPush), tlBytes(float64(r.firstPushMem)), float64(r.firstPushMem)/float64(r.fans))
		}
	}
	fmt.Fprintf(w, "\n### Other users while an author's push runs\n\n")
	fmt.Fprintln(w, "Another author (1 fan) posts, and the big author's first fan reads its home page (20), back to back, while the big author's posts are pushed one after the other.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| big author's fans | its posts | pushing for | others' posts | POST p50 | POST p99 | home reads | read p50 | read p99 | reads pulled the pending author's F |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, in := range inter {
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %d | %s | %s | %v |\n",
			tlCount(in.fans), in.bigPosts, tlDur(in.push), len(in.postLat), tlDur(tlPct(in.postLat, 0.5)), tlDur(tlPct(in.postLat, 0.99)),
			len(in.readLat), tlDur(tlPct(in.readLat, 0.5)), tlDur(tlPct(in.readLat, 0.99)), in.pulledDuringReads)
	}
	fmt.Fprintf(w, "\n### Home timeline read, first page (20), of a fan of 200 stars (pushed, 5 posts each) and 5 celebrities (100 posts each, interleaved)\n\n")
	fmt.Fprintln(w, "Latencies from reads taken in turns across the readers of a group; Redis's counters from up to 500 further reads of each reader alone.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| reader's 5 celebrities | reads | p50 | p99 | round trips per read | Redis commands per read | Redis CPU per read | celebrity posts on the page |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range reads {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %.0f | %.1f | %s | %d |\n",
			r.what, r.reads, tlDur(tlPct(r.lat, 0.5)), tlDur(tlPct(r.lat, 0.99)), r.trips, r.cmds, tlDur(secs(r.cpu)), r.celebPosts)
	}
	fmt.Fprintf(w, "\nRedis held its writes back for a slow AOF fsync %d times during the run (aof_delayed_fsync).\n", e.delayedFsyncs())
	fmt.Fprintf(w, "\nLoad average (1, 5, 15 min) of the machine: %s; anything else running skews these figures.\n", load)
	fmt.Fprintf(w, "\nWhole run %s. Reproduce with:\n\n    %s\n\n", elapsed.Round(time.Second), cmd)
}

func tlRound(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Microsecond)
	}
	return out
}

// tlLoad is the machine's load average, from /proc/loadavg.
func tlLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// tlPct is the p-th percentile (nearest rank) of ds.
func tlPct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[max(0, int(math.Ceil(p*float64(len(s))))-1)]
}

func tlDur(d time.Duration) string {
	switch {
	case d == 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

func tlBytes(b float64) string {
	switch {
	case math.Abs(b) < 1024:
		return fmt.Sprintf("%.0f B", b)
	case math.Abs(b) < 1024*1024:
		return fmt.Sprintf("%.1f KiB", b/1024)
	default:
		return fmt.Sprintf("%.1f MiB", b/1024/1024)
	}
}

// tlCount writes n with thousands separators.
func tlCount(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
