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

// BenchmarkHomeReads weighs a home read against what the system holds that
// is not its reader's: 10, 1,000 and 100,000 celebrities, and 0 and
// 1,000,000 pushes in flight (marks of queued push jobs), reading the way
// main did (before: its first round trip loads global:celebrities and
// fanout:pending whole; mainHomeTimeline below is that lookup, the rest of
// the read is shared) beside this version's (after). Each of the six
// systems is one database of one Redis, seeded alike but for those two
// sizes, and all are read in turns, a chunk of reads at a time, so that the
// machine's drift hits them alike. It prints its own table (Go's ns/op line
// means nothing here) and runs once whatever b.N:
//
//	go test -run '^$' -bench BenchmarkHomeReads -benchtime 1x -timeout 20m ./store/redisdb
//
// HOME_BENCH_READS=n sets the reads of each row of the new path (default
// 8000: with 2000 a busy machine's noise moved the rows by 10-25%); the old one stops after 3 s a row. Two readers in each system: one
// of 10 stars pushed to it, one that also follows 2 celebrities. The other
// celebrities and marks are written straight into Redis (authors nobody
// here follows).
func BenchmarkHomeReads(b *testing.B) {
	reads := 8000
	if v := os.Getenv("HOME_BENCH_READS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("HOME_BENCH_READS=%q: want a positive number", v)
		}
		reads = n
	}
	r := storetest.StartWith(b, "--appendonly", "no", "--save", "")
	e := &hrBench{b: b, ctx: context.Background(), admin: r.Client()}
	for _, pending := range []int{0, 1_000_000} {
		for _, celebs := range []int{10, 1000, 100_000} {
			sys := e.newSystem(r, len(e.systems), celebs, pending)
			e.systems = append(e.systems, sys)
		}
	}
	start := time.Now()
	rows := e.measure(reads)
	e.print(rows, reads, time.Since(start))
}

// hrBench is the Redis under test and its systems.
type hrBench struct {
	b       *testing.B
	ctx     context.Context
	admin   *redis.Client // INFO
	systems []*hrSystem
}

// hrSystem is one database: its sizes, the store that reads it (on its own
// client, so that its round trips are counted apart), its readers.
type hrSystem struct {
	celebs, pending int
	admin           *redis.Client
	reader          *Store
	trips           *tlTrips
	readers         []hrReader
	celebIDs        []int64 // the two real celebrities, followed by the second reader
}

type hrReader struct {
	what string
	uid  int64
}

func (e *hrBench) must(err error) {
	e.b.Helper()
	if err != nil && !errors.Is(err, redis.Nil) {
		e.b.Fatal(err)
	}
}

// newSystem seeds database db with the readers, their stars and posts, and
// celebs celebrities and pending marks in all.
func (e *hrBench) newSystem(r *storetest.Redis, db, celebs, pending int) *hrSystem {
	client := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: r.Addr(), DB: db})
		e.b.Cleanup(func() { c.Close() })
		return c
	}
	sys := &hrSystem{celebs: celebs, pending: pending, admin: client(), trips: &tlTrips{}}
	rc := client()
	rc.AddHook(sys.trips)
	sys.reader = New(rc, Options{BcryptCost: bcrypt.MinCost, CelebrityFans: 3})
	runCaches(e.b, sys.reader) // as in a server: sessions, authors and lenses remembered
	e.seed(sys)
	e.setCelebrities(sys)
	e.setPending(sys)
	return sys
}

// seed registers 10 stars, 2 celebrities and the two readers, writes 30
// posts of each star (pushed by the fan-out workers) and 10 of each
// celebrity (pulled), through the store.
func (e *hrBench) seed(sys *hrSystem) {
	s := sys.reader
	user := func(name string) int64 {
		u, _, err := s.Register(e.ctx, name, "password123")
		e.must(err)
		return u.ID
	}
	plain, fan := user("plainreader"), user("celebfan")
	sys.readers = []hrReader{{"10 stars pushed", plain}, {"10 pushed + 2 celebrities", fan}}
	var stars []int64
	for i := range 10 {
		star := user(fmt.Sprintf("star%d", i))
		stars = append(stars, star)
		e.must(s.Follow(e.ctx, plain, star))
		e.must(s.Follow(e.ctx, fan, star))
	}
	for i := range 2 {
		c := user(fmt.Sprintf("celeb%d", i))
		sys.celebIDs = append(sys.celebIDs, c)
		e.must(s.Follow(e.ctx, fan, c))
		for j := range 2 { // three fans: pulled (the stars have two: pushed)
			e.must(s.Follow(e.ctx, user(fmt.Sprintf("other%d_%d", i, j)), c))
		}
	}
	post := func(author int64, i int) {
		_, err := s.Create(e.ctx, store.NewPost{Author: author,
			Content: fmt.Sprintf("Post %d: a line of about a hundred characters, as people write them, to weigh a read.", i)})
		e.must(err)
	}
	for i := range 30 {
		for _, star := range stars {
			post(star, i)
		}
		if i%3 == 0 {
			for _, c := range sys.celebIDs {
				post(c, i)
			}
		}
	}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { defer close(done); runner.NewFanOut(s, runner.FanOutOptions{}).Run(ctx) }()
	for deadline := time.Now().Add(time.Minute); sys.admin.XLen(e.ctx, s.keys.FanOutQueue()).Val() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.b.Fatal("the fan-out queue did not empty")
		}
	}
	cancel()
	<-done
	for _, r := range sys.readers {
		if n := sys.admin.ZCard(e.ctx, s.keys.Home(r.uid)).Val(); n < 300 {
			e.b.Fatalf("%s: %d posts pushed, want 300", r.what, n)
		}
	}
}

// setCelebrities makes sys.celebs authors celebrities: the two real ones
// and made-up ones nobody follows.
func (e *hrBench) setCelebrities(sys *hrSystem) {
	k := sys.reader.keys
	members := []any{sys.celebIDs[0], sys.celebIDs[1]}
	for i := range sys.celebs - len(members) {
		members = append(members, 10_000_000+i)
	}
	for lo := 0; lo < len(members); lo += 10000 {
		e.must(sys.admin.SAdd(e.ctx, k.Celebrities(), members[lo:min(len(members), lo+10000)]...).Err())
	}
}

// setPending writes sys.pending marks of pushes in flight, 10 each by
// made-up authors nobody follows, as markPending would (the jobs
// themselves are not queued: no read looks at the stream).
func (e *hrBench) setPending(sys *hrSystem) {
	k, n := sys.reader.keys, sys.pending
	const chunk = 1000
	for lo := 0; lo < n; lo += 100 * chunk {
		_, err := sys.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
			for c := lo; c < min(n, lo+100*chunk); c += chunk {
				fields := make([]any, 0, 2*chunk)
				var authors []redis.Z
				for i := c; i < min(n, c+chunk); i++ {
					author := 20_000_000 + i/10
					fields = append(fields, 50_000_000+i, author)
					if i%10 == 0 {
						authors = append(authors, redis.Z{Score: 10, Member: author})
					}
				}
				pl.HSet(e.ctx, k.FanOutPendingShard(0), fields...)
				pl.ZAdd(e.ctx, k.FanOutPushingShard(0), authors...)
			}
			return nil
		})
		e.must(err)
	}
}

// mainHomeTimeline is HomeTimeline as main reads it: one round trip that
// loads global:celebrities and fanout:pending whole beside G's first ids,
// one more (when either holds anyone) that keeps those the reader follows.
// The writing of lastseen is left out, as both readers are fresh.
func (s *Store) mainHomeTimeline(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	var celebs, pending, first *redis.StringSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.ZScore(ctx, s.keys.LastSeen(), id(uid))
		celebs = pl.SMembers(ctx, s.keys.Celebrities())
		pending = pl.HVals(ctx, s.keys.FanOutPending())
		first = pl.ZRevRangeByScore(ctx, s.keys.Home(uid), firstRound(q))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return store.Page[store.Post]{}, err
	}
	keys := []string{s.keys.Home(uid)}
	if pulled := append(celebs.Val(), pending.Val()...); len(pulled) > 0 {
		slices.Sort(pulled)
		pulled = slices.Compact(pulled)
		follows, err := s.rdb.ZMScore(ctx, s.keys.Stars(uid), pulled...).Result()
		if err != nil {
			return store.Page[store.Post]{}, err
		}
		for i, a := range pulled {
			if follows[i] != 0 {
				keys = append(keys, s.keys.UserPosts(parseID(a)))
			}
		}
	}
	q.Viewer = uid
	var pre []int64
	if len(keys) == 1 {
		pre = schema.ParseIDs(first.Val())
	}
	return s.postPageFrom(ctx, keys, s.homeTail(uid), q, store.InFeed, pre)
}

// hrRow is one measurement: a reader, the system's size, a path.
type hrRow struct {
	reader           string
	celebs, pending  int
	path             string
	reads            int             // for the CPU and commands
	spent, latSpent  time.Duration   // by those reads, by those of lat
	lat              []time.Duration // one read of each row in turn
	goCPU, redisCPU  float64         // seconds, summed
	cmds, whole      int64           // commands; SMEMBERS and HVALS among them
	trips            int64
	celebPostsOnPage int
}

// hrStats is one reading of this process's CPU and of Redis's INFO.
type hrStats struct {
	goCPU, redisCPU float64
	calls           map[string]int64
}

func (e *hrBench) stats() hrStats {
	info, err := e.admin.Info(e.ctx, "cpu", "commandstats").Result()
	e.must(err)
	s := hrStats{goCPU: processCPU(), calls: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			s.redisCPU += f
		case strings.HasPrefix(k, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			s.calls[strings.TrimPrefix(k, "cmdstat_")], _ = strconv.ParseInt(calls, 10, 64)
		}
	}
	return s
}

// hrPath is a way to read a home page.
type hrPath struct {
	name   string
	read   func(s *Store) func(context.Context, int64, store.PageQuery) (store.Page[store.Post], error)
	budget time.Duration
}

var hrPaths = []hrPath{
	{"before", func(s *Store) func(context.Context, int64, store.PageQuery) (store.Page[store.Post], error) {
		return s.mainHomeTimeline
	}, 3 * time.Second},
	{"after", func(s *Store) func(context.Context, int64, store.PageQuery) (store.Page[store.Post], error) {
		return s.HomeTimeline
	}, time.Hour},
}

// measure reads the first home page (20 posts) of every reader of every
// system along both paths, in turns, a chunk of up to 100 reads (or 100 ms)
// at a time, until each row has made reads (or spent its budget).
func (e *hrBench) measure(reads int) []*hrRow {
	var rows []*hrRow
	type turn struct {
		sys  *hrSystem
		r    hrReader
		path hrPath
		row  *hrRow
	}
	var turns []turn
	for _, sys := range e.systems {
		for _, r := range sys.readers {
			for _, p := range hrPaths {
				row := &hrRow{reader: r.what, celebs: sys.celebs, pending: sys.pending, path: p.name}
				rows = append(rows, row)
				turns = append(turns, turn{sys, r, p, row})
				_, err := p.read(sys.reader)(e.ctx, r.uid, store.PageQuery{Limit: 20}) // warm up
				e.must(err)
			}
		}
	}
	// The old path first, row by row: its reads of a million marks hold
	// Redis long enough to stall the caches' listeners, which then start
	// over; the new path's rows wait until they are live again.
	for _, t := range turns {
		if t.path.name != "before" {
			continue
		}
		for len(t.row.lat) < reads && t.row.latSpent < t.path.budget {
			start := time.Now()
			e.readPage(t.sys, t.r, t.path, t.row)
			t.row.lat = append(t.row.lat, time.Since(start))
			t.row.latSpent += time.Since(start)
		}
		for t.row.reads < reads && t.row.spent < t.path.budget {
			e.chunk(t.sys, t.r, t.path, t.row, reads)
		}
	}
	for _, sys := range e.systems {
		waitFor(e.b, "the caches to be live again", func() bool { return sys.reader.caches.authors.Live() })
	}
	// The new path: the latencies one read of each row in turn, so that any
	// drift of the machine hits them alike; then the CPU and commands, a
	// chunk of reads of each row in turn.
	for more := true; more; {
		more = false
		for _, t := range turns {
			if t.path.name == "before" || len(t.row.lat) >= reads {
				continue
			}
			more = true
			start := time.Now()
			e.readPage(t.sys, t.r, t.path, t.row)
			t.row.lat = append(t.row.lat, time.Since(start))
		}
	}
	for more := true; more; {
		more = false
		for _, t := range turns {
			if t.path.name == "before" || t.row.reads >= reads {
				continue
			}
			more = true
			e.chunk(t.sys, t.r, t.path, t.row, reads)
		}
	}
	for i := 0; i+1 < len(rows); i += 2 {
		if rows[i].celebPostsOnPage != rows[i+1].celebPostsOnPage {
			e.b.Fatalf("%s: the two paths' pages differ: %d and %d celebrity posts", rows[i].reader, rows[i].celebPostsOnPage, rows[i+1].celebPostsOnPage)
		}
	}
	return rows
}

// readPage reads r's first home page along p and checks it.
func (e *hrBench) readPage(sys *hrSystem, r hrReader, p hrPath, row *hrRow) {
	page, err := p.read(sys.reader)(e.ctx, r.uid, store.PageQuery{Limit: 20})
	e.must(err)
	if len(page.Items) != 20 {
		e.b.Fatalf("%s %s: a page of %d posts, want 20", r.what, p.name, len(page.Items))
	}
	row.celebPostsOnPage = 0
	for _, it := range page.Items {
		if slices.Contains(sys.celebIDs, it.Author.ID) {
			row.celebPostsOnPage++
		}
	}
}

// chunk makes one chunk of reads of row, for its CPU and commands.
func (e *hrBench) chunk(sys *hrSystem, r hrReader, p hrPath, row *hrRow, reads int) {
	sys.trips.n.Store(0)
	runtime.GC()
	s0 := e.stats()
	start := time.Now()
	for n := 0; n < 100 && row.reads < reads && time.Since(start) < 100*time.Millisecond; n++ {
		e.readPage(sys, r, p, row)
		row.reads++
	}
	runtime.GC() // this chunk's garbage, not the next one's
	s1 := e.stats()
	row.spent += time.Since(start)
	row.goCPU += s1.goCPU - s0.goCPU
	row.redisCPU += s1.redisCPU - s0.redisCPU
	row.trips += sys.trips.n.Load()
	for name, n := range s1.calls {
		if name == "info" {
			continue
		}
		row.cmds += n - s0.calls[name]
		if name == "smembers" || name == "hvals" {
			row.whole += n - s0.calls[name]
		}
	}
}

func (e *hrBench) print(rows []*hrRow, reads int, elapsed time.Duration) {
	w := os.Stdout
	fmt.Fprintf(w, "\n### Home reads against celebrities and pushes in flight that are not the reader's\n\n")
	fmt.Fprintf(w, "One Redis on loopback (no persistence), each system one database of it, %d CPUs; the first page (20 posts) of each reader; the store's caches live, as in a server. The old path row by row, until 3 s a row for its latencies and as long for its CPU; then the new path, %[2]d reads a row: its latencies one read of each row in turn, its CPU and commands in chunks of up to 100 reads of each row in turn. CPU per read: this process's (Go, with a garbage collection closing each chunk) and Redis's (INFO used_cpu_user+sys), deltas over the reads; commands from INFO commandstats.\n\n", runtime.NumCPU(), reads)
	fmt.Fprintln(w, "| reader | celebrities | pushes in flight | path | reads (latency, CPU) | Go CPU/read | Redis CPU/read | CPU/read | p50 | p99 | commands/read | SMEMBERS+HVALS/read | round trips/read |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		n := float64(r.reads)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d, %d | %s | %s | %s | %s | %s | %.1f | %.1f | %.1f |\n",
			r.reader, tlCount(r.celebs), tlCount(r.pending), r.path, len(r.lat), r.reads,
			tlDur(secs(r.goCPU/n)), tlDur(secs(r.redisCPU/n)), tlDur(secs((r.goCPU+r.redisCPU)/n)),
			tlDur(tlPct(r.lat, 0.5)), tlDur(tlPct(r.lat, 0.99)),
			float64(r.cmds)/n, float64(r.whole)/n, float64(r.trips)/n)
	}
	fmt.Fprintln(w)
	for _, reader := range e.systems[0].readers {
		for _, path := range []string{"before", "after"} {
			cpuLo, cpuHi, p99Lo, p99Hi := math.Inf(1), 0.0, time.Duration(math.MaxInt64), time.Duration(0)
			for _, r := range rows {
				if r.reader != reader.what || r.path != path {
					continue
				}
				cpu := (r.goCPU + r.redisCPU) / float64(r.reads)
				cpuLo, cpuHi = min(cpuLo, cpu), max(cpuHi, cpu)
				p99 := tlPct(r.lat, 0.99)
				p99Lo, p99Hi = min(p99Lo, p99), max(p99Hi, p99)
			}
			fmt.Fprintf(w, "- %s, %s: CPU/read %s to %s (the highest %.2f× the lowest), p99 %s to %s (%.2f×)\n",
				reader.what, path, tlDur(secs(cpuLo)), tlDur(secs(cpuHi)), cpuHi/cpuLo,
				tlDur(p99Lo), tlDur(p99Hi), float64(p99Hi)/float64(p99Lo))
		}
	}
	fmt.Fprintf(w, "\nTook %v. Reproduce: go test -run '^$' -bench BenchmarkHomeReads -benchtime 1x -timeout 20m ./store/redisdb (make bench-reads)\n", elapsed.Round(time.Second))
}

// processCPU is this process's CPU time so far (user and system), seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
