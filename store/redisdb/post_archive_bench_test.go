package redisdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb/runner"
	"microblog/store/storetest"
)

// BenchmarkArchive writes 1,000,000 posts of 1,000 users through Create at
// full speed, each post carrying one of arTopics topics and liked by
// arLikes of its author's fans as soon as it is written, three times, each
// on a fresh redis-server, one after the other: with the SQL archive on
// (SQLite, the Archiver running), with it on but the archiver leaving the
// likes sets, topic entries and likers' entries of the messages it moves
// out of Redis where they are (as it did before they left with them), and
// with it off. It samples Redis's used_memory as the posts go in, times
// reads of user-post and topic pages across the seam between Redis and the
// archive, checks the likes of archived posts, prints its own tables and
// writes memory over posts into bench-out/archive-memory.json, which `make
// bench-archive` then draws (Go's ns/op line means nothing here). It runs
// once, whatever b.N:
//
//	go test -run '^$' -bench BenchmarkArchive -benchtime 1x -timeout 180m ./store/redisdb
//
// Environment:
//
//	ARCHIVE_BENCH_POSTS=50000        write that many posts in all (a quick check)
//	ARCHIVE_BENCH_HOT_WINDOW=100     a smaller hot window than the default 1,000
//
// Each user is followed by arFans others (pushed: never seen counts as
// active), and posts every arUsers-th post, so each ends with posts/arUsers.
func BenchmarkArchive(b *testing.B) {
	total := arEnvInt(b, "ARCHIVE_BENCH_POSTS", 1_000_000)
	window := arEnvInt(b, "ARCHIVE_BENCH_HOT_WINDOW", 0) // 0: the store's default
	if total < arUsers {
		b.Fatalf("ARCHIVE_BENCH_POSTS=%d: want at least one post per user (%d)", total, arUsers)
	}
	start, loadBefore := time.Now(), tlLoad()
	runs := []*arRun{
		newARRun(b, arOn, window).run(total),
		newARRun(b, arKept, window).run(total),
		newARRun(b, arOff, window).run(total),
	}
	elapsed := time.Since(start)
	chartData, err := arChartData(runs)
	if err != nil {
		b.Fatal(err)
	}
	arPrint(os.Stdout, runs, chartData, elapsed, loadBefore+" before, "+tlLoad()+" after")
}

// The shape of the load.
const (
	arUsers   = 1000
	arFans    = 10 // followers of each user
	arWriters = 8  // goroutines calling Create
	arReads   = 300
	arPage    = 20
	arTopics  = 100 // post i carries topic i % arTopics
	arLikes   = 2   // likes of each post, by its author's first fans
)

// arMode is what a run keeps where.
type arMode int

const (
	arOn   arMode = iota // the archive on: messages leave Redis with their likes and topic entries
	arKept               // the archive on, likes and topic entries kept in Redis (before)
	arOff                // no archive: everything stays in Redis
)

// arModeNames are the runs' names, in tables and on the chart.
var arModeNames = [...]string{arOn: "archive on (SQLite)", arKept: "before: likes and topics kept", arOff: "archive off"}

func arEnvInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// arRun is one of the two runs: its redis-server, its stores (each on its
// own client) and what it measured.
type arRun struct {
	b       *testing.B
	ctx     context.Context
	mode    arMode
	archive bool
	r       *storetest.Redis
	admin   *redis.Client // INFO, XLEN, seeding checks
	writer  *Store
	reader  *Store
	db      *arTimedArchive // nil when off
	dbPath  string
	reg     *prometheus.Registry
	stop    []func() // workers and archiver, in the order to stop them

	users  []int64
	mu     sync.Mutex
	posts  [][]int64 // per user (index into users), the ids it wrote, oldest first once sorted
	topics [][]int64 // per topic, the ids of the posts carrying it, oldest first once sorted

	samples                 []arSample
	written, drained        arSample // at the end of writing; once both queues are empty
	writeTime               time.Duration
	drainTime               time.Duration // from the last post until the archive queue was empty
	fanOutDrainTime         time.Duration // … until the fan-out queue was empty
	peakQueue, peakFanOut   int64
	redisCPU, appCPU        float64 // seconds, writing and draining
	hotPosts, keys          int64   // Σ ZCARD F and DBSIZE once drained
	archiveRows, tombstones int64   // the archive's Count once drained
	archiveBytes            int64
	reads                   []arRead
	likesWrong              int // archived posts whose likes read wrong (count, likers, liked-by-me)
	likesChecked            int
	leftovers               arLeftovers // likes and topic entries in Redis once drained
	redisVersion            string
	commands                map[string]arCommand // INFO commandstats, first post to queues drained
	delayedFsyncs           int64
}

// arSample is one reading taken as the posts go in.
type arSample struct {
	posts  int
	at     time.Duration // since the first post
	mem    int64         // used_memory
	queue  int64         // XLEN archive:queue
	fanOut int64         // XLEN fanout:queue
	rows   float64       // microblog_archive_rows_total
}

// arRead is one kind of read, timed.
type arRead struct {
	what     string
	lat      []time.Duration
	cold     float64 // posts per page read from the archive (not hot), on average
	mismatch int     // pages whose ids were not the ones written there
}

func newARRun(b *testing.B, mode arMode, window int) *arRun {
	withArchive := mode != arOff
	ctx := context.Background()
	r := storetest.StartWith(b,
		// A rewrite forks and copies the whole data set: keep it from landing
		// in the middle of the run. The AOF itself stays on.
		"--auto-aof-rewrite-percentage", "0", "--appendfsync", "everysec")
	e := &arRun{b: b, ctx: ctx, mode: mode, archive: withArchive, r: r, admin: r.Client(), reg: prometheus.NewRegistry()}
	opt := Options{BcryptCost: bcrypt.MinCost, HotWindow: window, Metrics: NewMetrics(e.reg)}
	if withArchive {
		e.dbPath = strings.TrimPrefix(archivetest.SQLite(b), "sqlite:")
		db, err := archive.Open(ctx, "sqlite:"+e.dbPath)
		if err != nil {
			b.Fatal(err)
		}
		e.db = &arTimedArchive{Archive: db}
		opt.Archive = e.db
	}
	e.writer = New(r.Client(), opt)
	e.reader = New(r.Client(), opt)

	// Users and follows through the store, as clients would make them.
	for i := range arUsers {
		u, _, err := e.writer.Register(ctx, fmt.Sprintf("user%04d", i), "password123")
		e.must(err)
		e.users = append(e.users, u.ID)
	}
	e.parallel(arUsers, func(i int) error {
		for k := 1; k <= arFans; k++ {
			if err := e.writer.Follow(ctx, e.users[(i+k)%arUsers], e.users[i]); err != nil {
				return err
			}
		}
		return nil
	})
	e.posts = make([][]int64, arUsers)
	e.topics = make([][]int64, arTopics)

	e.start(func(ctx context.Context, s *Store) { runner.NewFanOut(s, runner.FanOutOptions{}).Run(ctx) }, opt)
	if withArchive {
		e.start(func(ctx context.Context, s *Store) {
			runner.NewArchiver(s, runner.ArchiverOptions{KeepLikesAndTopics: mode == arKept}).Run(ctx)
		}, opt)
	}
	b.Cleanup(e.shutdown)
	return e
}

// start runs fn on a store of its own client until shutdown.
func (e *arRun) start(fn func(context.Context, *Store), opt Options) {
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	s := New(e.r.Client(), opt)
	go func() { defer close(done); fn(ctx, s) }()
	e.stop = append(e.stop, func() { cancel(); <-done })
}

// shutdown stops the workers and the archiver, then Redis and the archive,
// so that the run's memory is given back before the next one.
func (e *arRun) shutdown() {
	for _, stop := range e.stop {
		stop()
	}
	e.stop = nil
	e.r.Stop()
	if e.db != nil {
		e.db.Close()
	}
}

func (e *arRun) must(err error) {
	e.b.Helper()
	if err != nil && !errors.Is(err, redis.Nil) {
		e.b.Fatal(err)
	}
}

// parallel calls fn(0) … fn(n-1) from arWriters goroutines and fails the
// benchmark on the first error.
func (e *arRun) parallel(n int, fn func(i int) error) {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range arWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for failed.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		e.b.Fatal(*err)
	}
}

// run writes total posts, waits for the queues to drain, reads, and stops
// everything of this run.
func (e *arRun) run(total int) *arRun {
	step := max(1, total/100)
	e.must(e.admin.ConfigResetStat(e.ctx).Err()) // commandstats of the posts only, not of the users and follows
	s0 := e.stats()
	start := time.Now()
	e.samples = append(e.samples, e.sample(0, start))

	// The peak queue lengths, between the samples too.
	pollStop, pollDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pollDone)
		for {
			select {
			case <-pollStop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			q, _ := e.admin.XLen(e.ctx, e.writer.keys.ArchiveQueue()).Result()
			f, _ := e.admin.XLen(e.ctx, e.writer.keys.FanOutQueue()).Result()
			e.mu.Lock()
			e.peakQueue, e.peakFanOut = max(e.peakQueue, q), max(e.peakFanOut, f)
			e.mu.Unlock()
		}
	}()

	var done atomic.Int64
	e.parallel(total, func(i int) error {
		u, topic := i%arUsers, i%arTopics
		p, err := e.writer.Create(e.ctx, store.NewPost{Author: e.users[u],
			Content: fmt.Sprintf("Post %d of user %d: a line of about a hundred characters, as people write them. #topic%d", i, u, topic)})
		if err != nil {
			return err
		}
		for k := 1; k <= arLikes; k++ {
			if err := e.writer.Like(e.ctx, e.users[(u+k)%arUsers], p.ID, true); err != nil {
				return err
			}
		}
		e.mu.Lock()
		e.posts[u] = append(e.posts[u], p.ID)
		e.topics[topic] = append(e.topics[topic], p.ID)
		e.mu.Unlock()
		if n := done.Add(1); n%int64(step) == 0 && n < int64(total) {
			sm := e.sample(int(n), start)
			e.mu.Lock()
			e.samples = append(e.samples, sm)
			e.mu.Unlock()
		}
		return nil
	})
	e.writeTime = time.Since(start)
	e.written = e.sample(total, start)
	e.drainTime, e.fanOutDrainTime = e.waitEmpty(30 * time.Minute)
	close(pollStop)
	<-pollDone
	s1 := e.stats()
	e.redisCPU, e.appCPU = s1.cpu-s0.cpu, s1.goCPU-s0.goCPU
	e.drained = e.sample(total, start)
	e.samples = append(e.samples, e.written)
	slices.SortFunc(e.samples, func(a, b arSample) int { return a.posts - b.posts })

	e.count()
	e.readAll()
	e.checkLikes()
	e.shutdown()
	return e
}

// sample reads Redis's memory, the queues and the rows archived.
func (e *arRun) sample(posts int, start time.Time) arSample {
	sm := arSample{posts: posts, at: time.Since(start), rows: e.metric("microblog_archive_rows_total")}
	var info *redis.StringCmd
	var q, f *redis.IntCmd
	_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
		info = pl.Info(e.ctx, "memory")
		q = pl.XLen(e.ctx, e.writer.keys.ArchiveQueue())
		f = pl.XLen(e.ctx, e.writer.keys.FanOutQueue())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		e.b.Error(err) // a writer's goroutine: no Fatal
	}
	sm.mem, sm.queue, sm.fanOut = arInfo(info.Val(), "used_memory"), q.Val(), f.Val()
	return sm
}

// metric is the value of a counter of the run's registry.
func (e *arRun) metric(name string) float64 {
	mfs, _ := e.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// stats is Redis's CPU time (from INFO) and this process's.
func (e *arRun) stats() tlStats {
	info, err := e.admin.Info(e.ctx, "cpu").Result()
	e.must(err)
	s := tlStats{cpu: arInfoFloat(info, "used_cpu_user") + arInfoFloat(info, "used_cpu_sys")}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.goCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	return s
}

// waitEmpty waits until the archive and fan-out queues hold no entry (every
// job done) and returns how long each took to get there.
func (e *arRun) waitEmpty(limit time.Duration) (archive, fanOut time.Duration) {
	start := time.Now()
	deadline := start.Add(limit)
	var archived, fannedOut bool
	for {
		var q, f *redis.IntCmd
		_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
			q = pl.XLen(e.ctx, e.writer.keys.ArchiveQueue())
			f = pl.XLen(e.ctx, e.writer.keys.FanOutQueue())
			return nil
		})
		e.must(err)
		if !archived && q.Val() == 0 {
			archived, archive = true, time.Since(start)
		}
		if !fannedOut && f.Val() == 0 {
			fannedOut, fanOut = true, time.Since(start)
		}
		if archived && fannedOut {
			return archive, fanOut
		}
		if time.Now().After(deadline) {
			e.b.Fatalf("after %v the archive queue still holds %d entries, the fan-out queue %d", limit, q.Val(), f.Val())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// count reads what is where once the queues are empty.
func (e *arRun) count() {
	for _, ps := range append(slices.Clone(e.posts), e.topics...) {
		slices.Sort(ps)
	}
	e.leftovers = e.countLeftovers()
	cards := make([]*redis.IntCmd, len(e.users))
	_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
		for i, u := range e.users {
			cards[i] = pl.ZCard(e.ctx, e.writer.keys.UserPosts(u))
		}
		return nil
	})
	e.must(err)
	for _, c := range cards {
		e.hotPosts += c.Val()
	}
	e.keys, err = e.admin.DBSize(e.ctx).Result()
	e.must(err)
	info, err := e.admin.Info(e.ctx, "server", "persistence").Result()
	e.must(err)
	e.redisVersion = arInfoString(info, "redis_version")
	e.commands = e.commandStats()
	e.delayedFsyncs = arInfo(info, "aof_delayed_fsync")
	if e.db == nil {
		return
	}
	e.archiveRows, e.tombstones, err = e.db.Archive.(*archive.DB).Count(e.ctx)
	e.must(err)
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(e.dbPath + suffix); err == nil {
			e.archiveBytes += fi.Size()
		}
	}
}

// readAll times arReads pages of each kind, the kinds taken in turns so that
// any drift of the machine hits all of them alike, each read of another
// user (or topic); then checks what each page held.
func (e *arRun) readAll() {
	type kind struct {
		what   string
		topic  bool              // a topic's page (TagPosts), else a user's (UserPosts)
		cursor func(u int) int64 // 0: the first page
	}
	deep := func(ps []int64) int64 { return ps[min(arPage, len(ps)-1)] }
	kinds := []kind{{what: "user: first page (the newest 20)", cursor: func(int) int64 { return 0 }}}
	if e.archive {
		kinds = append(kinds,
			kind{what: "user: at the seam (cursor at the 11th-oldest post of the user's F)", cursor: func(u int) int64 {
				ids, err := e.admin.ZRange(e.ctx, e.writer.keys.UserPosts(e.users[u]), 10, 10).Result()
				e.must(err)
				if len(ids) == 0 {
					return 0
				}
				return parseID(ids[0])
			}},
			kind{what: "user: deep (the user's first 20 posts)", cursor: func(u int) int64 { return deep(e.posts[u]) }})
	}
	kinds = append(kinds,
		kind{what: "topic: first page (the newest 20)", topic: true, cursor: func(int) int64 { return 0 }},
		kind{what: "topic: deep (the topic's first 20 posts)", topic: true, cursor: func(t int) int64 { return deep(e.topics[t]) }})
	user := func(n int) int { return n * 37 % arUsers } // 37 and 1,000 are coprime: every user in turn
	subject := func(k kind, n int) int {
		if k.topic {
			return n % arTopics
		}
		return user(n)
	}
	read := func(k kind, n int) (store.Page[store.Post], int64, time.Duration) {
		u := subject(k, n)
		cur := k.cursor(u)
		q := store.PageQuery{Limit: arPage}
		if cur > 0 {
			q.Cursor = store.Cursor{Score: cur}
		}
		t := time.Now()
		var page store.Page[store.Post]
		var err error
		if k.topic {
			page, err = e.reader.TagPosts(e.ctx, fmt.Sprintf("topic%d", u), q)
		} else {
			page, err = e.reader.UserPosts(e.ctx, e.users[u], q)
		}
		d := time.Since(t)
		e.must(err)
		return page, cur, d
	}
	e.reads = make([]arRead, len(kinds))
	for i, k := range kinds {
		e.reads[i].what = k.what
		for n := range 20 { // warm up the connections and SQLite's cache of the schema
			read(k, arReads+n)
		}
	}
	for n := range arReads {
		for j := range kinds {
			i := (j + n) % len(kinds)
			page, cur, d := read(kinds[i], n)
			r := &e.reads[i]
			r.lat = append(r.lat, d)
			written := e.posts
			if kinds[i].topic {
				written = e.topics
			}
			if !slices.Equal(ids(page.Items), expectedPage(written[subject(kinds[i], n)], cur)) {
				r.mismatch++
			}
			if n < 50 { // where the posts came from, outside the timing
				_, hot, err := e.reader.loadPostsHot(e.ctx, ids(page.Items), 0)
				e.must(err)
				for _, h := range hot {
					if !h {
						r.cold += 1.0 / 50
					}
				}
			}
		}
	}
}

// expectedPage is the page of the ids written ps (oldest first) below
// cursor (0: the newest): newest first.
func expectedPage(ps []int64, cursor int64) []int64 {
	end := len(ps)
	if cursor > 0 {
		end, _ = slices.BinarySearch(ps, cursor)
	}
	out := slices.Clone(ps[max(0, end-arPage):end])
	slices.Reverse(out)
	return out
}

// checkLikes reads, as one of its likers, the oldest post of every 10th
// user (archived, when the archive is on): its likes count, its likers and
// whether the reader likes it must be those written.
func (e *arRun) checkLikes() {
	for u := 0; u < arUsers; u += 10 {
		mid, fan := e.posts[u][0], e.users[(u+1)%arUsers]
		want := []int64{e.users[(u+arLikes)%arUsers]}
		for k := arLikes - 1; k >= 1; k-- {
			want = append(want, e.users[(u+k)%arUsers])
		}
		p, err := e.reader.Post(e.ctx, mid, fan)
		e.must(err)
		likers, err := e.reader.Likers(e.ctx, mid, store.PageQuery{Limit: 50})
		e.must(err)
		got := make([]int64, len(likers.Items))
		for i, l := range likers.Items {
			got[i] = l.ID
		}
		e.likesChecked++
		// Likes a millisecond apart or less may come in either order.
		slices.Sort(got)
		slices.Sort(want)
		if p.LikesCount != arLikes || p.Liked == nil || !*p.Liked || !slices.Equal(got, want) {
			e.likesWrong++
		}
	}
}

// arLeftovers is what a run keeps in Redis of likes and topics.
type arLeftovers struct {
	likesSets  int64 // likes:<mid> keys
	topicPosts int64 // Σ ZCARD of the T: sets
	likedPosts int64 // Σ ZCARD of the users' liked sets
}

// countLeftovers counts what Redis holds of likes and topics once drained.
func (e *arRun) countLeftovers() arLeftovers {
	var l arLeftovers
	sets, err := e.writer.keysMatching(e.ctx, e.writer.keys.Prefix()+"likes:*")
	e.must(err)
	l.likesSets = int64(len(sets))
	var topics, liked []*redis.IntCmd
	_, err = e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
		for t := range arTopics {
			topics = append(topics, pl.ZCard(e.ctx, e.writer.keys.TagPosts(fmt.Sprintf("topic%d", t))))
		}
		for _, u := range e.users {
			liked = append(liked, pl.ZCard(e.ctx, e.writer.keys.UserLikes(u)))
		}
		return nil
	})
	e.must(err)
	for _, c := range topics {
		l.topicPosts += c.Val()
	}
	for _, c := range liked {
		l.likedPosts += c.Val()
	}
	return l
}

// arCommand is one line of INFO commandstats.
type arCommand struct {
	calls int64
	usec  int64
}

// commandStats reads INFO commandstats: Redis's calls and CPU by command.
func (e *arRun) commandStats() map[string]arCommand {
	info, err := e.admin.Info(e.ctx, "commandstats").Result()
	e.must(err)
	out := map[string]arCommand{}
	for _, line := range strings.Split(info, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if name, ok = strings.CutPrefix(name, "cmdstat_"); !ok {
			continue
		}
		var c arCommand
		for _, f := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(f, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				c.calls = n
			case "usec":
				c.usec = n
			}
		}
		out[name] = c
	}
	return out
}

// arTimedArchive is the archive, timing what the archiver asks of it.
type arTimedArchive struct {
	store.Archive
	saveNS, hasNS atomic.Int64
	saves         atomic.Int64
}

func (a *arTimedArchive) Save(ctx context.Context, put, del []store.Archived) error {
	t := time.Now()
	err := a.Archive.Save(ctx, put, del)
	a.saveNS.Add(int64(time.Since(t)))
	a.saves.Add(1)
	return err
}

func (a *arTimedArchive) Has(ctx context.Context, ids []int64) ([]int64, error) {
	t := time.Now()
	out, err := a.Archive.Has(ctx, ids)
	a.hasNS.Add(int64(time.Since(t)))
	return out, err
}

// arInfo is a numeric field of an INFO reply.
func arInfo(info, field string) int64 { return int64(arInfoFloat(info, field)) }

func arInfoFloat(info, field string) float64 {
	f, _ := strconv.ParseFloat(arInfoString(info, field), 64)
	return f
}

func arInfoString(info, field string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v
		}
	}
	return ""
}

// arModuleRoot is the folder of go.mod, above the test's working directory.
func arModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("archive bench: no go.mod above the working directory")
		}
		dir = up
	}
}
