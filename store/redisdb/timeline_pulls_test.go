package redisdb

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"

	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// pendingMarks counts the in-flight marks left in every shard, and the
// authors fanout:pushing still counts.
func (s testStore) pendingMarks() int64 {
	s.t.Helper()
	var n int64
	for shard := range s.keys.PullShards() {
		n += s.rdb.HLen(s.ctx, s.keys.FanOutPendingShard(shard)).Val()
		n += s.rdb.ZCard(s.ctx, s.keys.FanOutPushingShard(shard)).Val()
	}
	return n
}

// TestPullShardKeys pins the shards of the readers' record of pulled
// authors: one shard with the plain names on a single Redis; on a cluster
// 16, an author's in uid % 16, each its own hash tag.
func TestPullShardKeys(t *testing.T) {
	parallel(t)
	single, cluster := schema.NewKeys("mb:", false), schema.NewKeys("mb:", true)
	if single.PullShards() != 1 || single.PullShard(1234) != 0 || cluster.PullShards() != 16 || cluster.PullShard(1234) != 2 {
		t.Fatalf("shards: %d (1234 in %d) on one Redis, %d (1234 in %d) on a cluster; want 1 (0), 16 (2)",
			single.PullShards(), single.PullShard(1234), cluster.PullShards(), cluster.PullShard(1234))
	}
	for got, want := range map[string]string{
		single.CelebritiesShard(0):    "mb:global:celebrities",
		single.FanOutPendingShard(0):  "mb:fanout:pending",
		single.FanOutPushingShard(0):  "mb:fanout:pushing",
		cluster.CelebritiesShard(2):   "mb:{f2}global:celebrities",
		cluster.FanOutPendingShard(2): "mb:{f2}fanout:pending",
		cluster.FanOutPushingShard(2): "mb:{f2}fanout:pushing",
		cluster.FanOutSettledShard(2): "mb:{f2}fanout:settled",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}

// TestPendingMarksCountOnce: a post marked twice counts once, a mark taken
// twice or never made changes nothing, a part of a split push that is not
// its last takes none, and an author leaves fanout:pushing with its last
// mark.
func TestPendingMarksCountOnce(t *testing.T) {
	parallel(t)
	s := newQuietStore(t, storetest.NewBackend(t).Client(), Options{})
	const author = 77
	shard := s.keys.PullShard(author)
	pipe := func(f func(pl redis.Pipeliner)) {
		t.Helper()
		if _, err := s.rdb.Pipelined(s.ctx, func(pl redis.Pipeliner) error { f(pl); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	count := func() float64 {
		n, err := s.rdb.ZScore(s.ctx, s.keys.FanOutPushingShard(shard), id(author)).Result()
		if err == redis.Nil {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	pipe(func(pl redis.Pipeliner) {
		s.markPending(s.ctx, pl, author, 1)
		s.markPending(s.ctx, pl, author, 1)
		s.markPending(s.ctx, pl, author, 2)
	})
	if n := count(); n != 2 {
		t.Fatalf("%v pushes counted in flight, want 2", n)
	}
	// The jobs that end their post's push settle it (job.settles): a whole
	// push, or a split one's last part.
	done := []schema.Job{{Op: schema.OpPush, Author: author, Mid: 1, Settles: true}, {Op: schema.OpUnpush, Author: author, Mid: 2},
		{Op: schema.OpPush, Author: author, Mid: 3, Settles: true}, {Op: schema.OpPush, Author: author, Mid: 2, Part: &schema.JobPart{N: 1}}}
	pipe(func(pl redis.Pipeliner) { s.UnmarkPending(s.ctx, pl, done) })
	pipe(func(pl redis.Pipeliner) { s.UnmarkPending(s.ctx, pl, done) })
	if n := count(); n != 1 {
		t.Fatalf("%v pushes counted in flight, want 1 (an unpush, a part not last or a mark never made takes none)", n)
	}
	pipe(func(pl redis.Pipeliner) {
		s.UnmarkPending(s.ctx, pl, []schema.Job{{Op: schema.OpPush, Author: author, Mid: 2, Settles: true}})
	})
	if n := s.pendingMarks(); n != 0 {
		t.Fatalf("%d marks or counts left", n)
	}
}

// commandLog records the name and first key of every command sent.
type commandLog struct {
	mu   sync.Mutex
	cmds []string
}

func (l *commandLog) add(cmds ...redis.Cmder) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cmds {
		name := strings.ToUpper(c.Name())
		if args := c.Args(); len(args) > 1 {
			name += fmt.Sprint(" ", args[1])
		}
		l.cmds = append(l.cmds, name)
	}
}

func (l *commandLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.cmds
	l.cmds = nil
	return out
}

func (l *commandLog) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (l *commandLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { l.add(cmd); return next(ctx, cmd) }
}

func (l *commandLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { l.add(cmds...); return next(ctx, cmds) }
}

// TestHomeReadAsksOwnStarsOnly: a home read finds the in-flight post of a
// star it follows and the posts of a celebrity it follows, and sends the
// same commands whether or not thousands of other authors are celebrities
// or have pushes in flight: none reads a global record (or a shard of one)
// whole.
func TestHomeReadAsksOwnStarsOnly(t *testing.T) {
	parallel(t)
	s := newQuietStore(t, storetest.NewBackend(t).Client(), Options{CelebrityFans: 2})
	star, celeb, fan, other := s.user("star"), s.user("celeb"), s.user("fan"), s.user("other")
	s.follow(fan, star)
	s.follow(fan, celeb)
	s.follow(other, celeb) // two fans: a celebrity
	inFlight := s.post(store.NewPost{Author: star, Content: "not pushed yet"})
	pulled := s.post(store.NewPost{Author: celeb, Content: "never pushed"})
	if s.inHome(fan, inFlight.ID) || s.inHome(fan, pulled.ID) {
		t.Fatal("a post was pushed with no worker running")
	}
	log := &commandLog{}
	s.rdb.AddHook(log)
	read := func() []string {
		t.Helper()
		log.take()
		if got := s.homeIDs(fan); !slices.Equal(got, []int64{pulled.ID, inFlight.ID}) {
			t.Fatalf("home %v, want %v", got, []int64{pulled.ID, inFlight.ID})
		}
		cmds := log.take()
		for _, c := range cmds {
			for _, whole := range []string{"SMEMBERS", "HVALS", "HGETALL", "HKEYS", "SSCAN", "HSCAN"} {
				if strings.HasPrefix(c, whole+" ") && (strings.Contains(c, "global:") || strings.Contains(c, "fanout:")) {
					t.Fatalf("a home read sent %s", c)
				}
			}
		}
		slices.Sort(cmds)
		return cmds
	}
	alone := read()
	_, err := s.rdb.Pipelined(s.ctx, func(pl redis.Pipeliner) error {
		for a := int64(1_000_000); a < 1_002_000; a++ {
			s.addCelebrity(s.ctx, pl, a)
			s.markPending(s.ctx, pl, a+5000, a)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if crowded := read(); !slices.Equal(alone, crowded) {
		t.Fatalf("with 2,000 other celebrities and pushes in flight a read sends\n%v\nwant as alone\n%v", crowded, alone)
	}
	// Once pushed, the star is no longer pulled; the celebrity still is.
	w := runner.NewFanOut(s.Store, runner.FanOutOptions{ClaimIdle: time.Second})
	jobs := takeJobs(t, w)
	if len(jobs) != 1 {
		t.Fatalf("read %d jobs, want 1", len(jobs))
	}
	w.Do(s.ctx, jobs)
	if !s.inHome(fan, inFlight.ID) {
		t.Fatal("the push did not reach the fan")
	}
	read()
	if authors, err := s.pulledAuthors(fan); err != nil || !slices.Equal(authors, []int64{celeb}) {
		t.Fatalf("pulled stars %v, %v; want the celebrity alone", authors, err)
	}
}

// pulledAuthors are the stars a home read of uid pulls now.
func (s testStore) pulledAuthors(uid int64) ([]int64, error) {
	var l *pullLookup
	_, err := s.rdb.Pipelined(s.ctx, func(pl redis.Pipeliner) error {
		l = s.queuePullLookup(s.ctx, pl, uid)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l.authors(s.ctx)
}

// TestMigratePullsFromSchema5: the in-flight marks and celebrities an
// older version left (fanout:pending whole, global:celebrities) reach
// home reads once Migrate has run.
func TestMigratePullsFromSchema5(t *testing.T) {
	parallel(t)
	s := newQuietStore(t, storetest.NewBackend(t).Client(), Options{CelebrityFans: 2})
	star, celeb, fan, other := s.user("star"), s.user("celeb"), s.user("fan"), s.user("other")
	s.follow(fan, star)
	s.follow(fan, celeb)
	s.follow(other, celeb)
	inFlight := s.post(store.NewPost{Author: star, Content: "not pushed yet"})
	pulled := s.post(store.NewPost{Author: celeb, Content: "never pushed"})
	// What schema 5 kept: the marks whole in fanout:pending, the
	// celebrities in global:celebrities alone.
	var keys []string
	for shard := range s.keys.PullShards() {
		keys = append(keys, s.keys.FanOutPushingShard(shard), s.keys.FanOutPendingShard(shard))
		if s.keys.PullShards() > 1 {
			keys = append(keys, s.keys.CelebritiesShard(shard))
		}
	}
	for _, k := range keys {
		if err := s.rdb.Del(s.ctx, k).Err(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.rdb.Pipelined(s.ctx, func(pl redis.Pipeliner) error {
		pl.HSet(s.ctx, s.keys.FanOutPending(), inFlight.ID, star)
		pl.SAdd(s.ctx, s.keys.Celebrities(), celeb)
		pl.Set(s.ctx, s.keys.Schema(), 5, 0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.homeIDs(fan); !slices.Equal(got, []int64{pulled.ID, inFlight.ID}) {
		t.Fatalf("home after the migration %v, want %v", got, []int64{pulled.ID, inFlight.ID})
	}
	w := runner.NewFanOut(s.Store, runner.FanOutOptions{ClaimIdle: time.Second})
	jobs := takeJobs(t, w)
	if len(jobs) != 1 {
		t.Fatalf("read %d jobs, want 1", len(jobs))
	}
	w.Do(s.ctx, jobs)
	if n := s.pendingMarks(); n != 0 {
		t.Fatalf("%d marks left once the push is done", n)
	}
	if storetest.ClusterMode() && s.rdb.Exists(s.ctx, s.keys.FanOutPending()).Val() != 0 {
		t.Fatal("the whole fanout:pending is still there on a cluster")
	}
}

// TestLiveConnectRoundTrips: what a live connection reads as it opens, its
// replay and the newest id of its home, takes one round trip with the
// loading of the replay's posts, as a home page does; one more with pulled
// stars. On a cluster, where a reader's stars are looked up in their
// shards, that lookup goes with the loading of the posts, or alone when
// there are none to load; with pulled stars the posts are loaded again.
func TestLiveConnectRoundTrips(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{CelebrityFans: 2})
	s.rdb.AddHook(roundTripHook{})
	star, celeb, fan, other := s.user("star"), s.user("celeb"), s.user("fan"), s.user("other")
	s.follow(fan, star)
	var posts []int64
	for i := range 5 {
		posts = append(posts, s.post(store.NewPost{Author: star, Content: fmt.Sprint("post ", i)}).ID)
	}
	s.settleAndWait()
	connect := func(after int64, max int) (got []int64, last, n int64) {
		t.Helper()
		n = s.roundTrips(func(ctx context.Context) error {
			ps, l, err := s.HomeSinceLast(ctx, fan, after, max, nil)
			got, last = ids(ps), l
			return err
		})
		return got, last, n
	}
	connect(0, 0) // marks fan as seen
	cluster := int64(0)
	if storetest.ClusterMode() {
		cluster = 1
	}
	if got, last, n := connect(0, 0); len(got) != 0 || last != posts[4] || n != 1+cluster {
		t.Fatalf("no replay: posts %v, last %d, %d round trips; want none, %d, %d", got, last, n, posts[4], 1+cluster)
	}
	load := s.roundTrips(func(ctx context.Context) error {
		_, err := s.homePosts(ctx, fan, []int64{posts[4], posts[3]})
		return err
	})
	if got, last, n := connect(posts[2], 10); !slices.Equal(got, posts[3:]) || last != posts[4] || n != 1+load {
		t.Fatalf("replay after %d: posts %v, last %d, %d round trips; want %v, %d, %d (%d to load the posts)",
			posts[2], got, last, n, posts[3:], posts[4], 1+load, load)
	}
	s.follow(fan, celeb)
	s.follow(other, celeb)
	newest := s.post(store.NewPost{Author: celeb, Content: "pulled"}).ID
	if got, last, n := connect(posts[3], 10); !slices.Equal(got, []int64{posts[4], newest}) || last != newest || n != 2+load+cluster*load {
		t.Fatalf("with a celebrity: posts %v, last %d, %d round trips; want %v, %d, %d",
			got, last, n, []int64{posts[4], newest}, newest, 2+load+cluster*load)
	}
}

// roundTrips counts the round trips f makes (s's client must have
// roundTripHook).
func (s testStore) roundTrips(f func(ctx context.Context) error) int64 {
	s.t.Helper()
	ctx, rt := CountRoundTrips(s.ctx)
	if err := f(ctx); err != nil {
		s.t.Fatal(err)
	}
	return rt.N()
}

// settleAndWait is settle, then waits for the pushes' in-flight marks to
// be taken (on a cluster the queue's XDEL and the marks' script go to
// their nodes side by side: the queue can be empty first) and out the
// clock skew allowed: on a cluster a read that begins within it after a
// star's last push was done reads its G again (timeline_pulls.go), a round trip or
// two more.
func (s testStore) settleAndWait() {
	s.t.Helper()
	s.settle()
	for deadline := time.Now().Add(storetest.HangWait); s.pendingMarks() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("%d in-flight marks left with the queue empty", s.pendingMarks())
		}
	}
	time.Sleep(s.opt.ClockSkew)
}

// TestHomeReadRoundTrips: a home page of a reader whose stars are pushed
// takes two round trips, on one Redis as on a cluster (whose lookup of the
// stars goes with the loading of the posts), with the caches live as in a
// server; one who follows a celebrity waits on one more (two on a cluster).
func TestHomeReadRoundTrips(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{CelebrityFans: 2})
	s.rdb.AddHook(roundTripHook{})
	runCaches(t, s.Store)
	star, celeb, fan, other := s.user("star"), s.user("celeb"), s.user("fan"), s.user("other")
	s.follow(fan, star)
	for i := range 25 {
		s.post(store.NewPost{Author: star, Content: fmt.Sprint("post ", i)})
	}
	s.settleAndWait()
	read := func() (int, int64) {
		t.Helper()
		var page store.Page[store.Post]
		n := s.roundTrips(func(ctx context.Context) (err error) {
			page, err = s.HomeTimeline(ctx, fan, store.PageQuery{Limit: 20})
			return err
		})
		return len(page.Items), n
	}
	read() // marks fan as seen, remembers the authors and the lens
	if got, n := read(); got != 20 || n != 2 {
		t.Fatalf("a page of %d posts in %d round trips, want 20 in 2", got, n)
	}
	s.follow(fan, celeb)
	s.follow(other, celeb)
	s.post(store.NewPost{Author: celeb, Content: "pulled"})
	read()
	want := int64(3) // the F sets' ids, then the posts
	if storetest.ClusterMode() {
		want = 4 // the page of G alone, loaded with the lookup, does not stand
	}
	if got, n := read(); got != 20 || n != want {
		t.Fatalf("with a celebrity: a page of %d posts in %d round trips, want 20 in %d", got, n, want)
	}
}

// lookupHook, while armed, calls between before the first pipeline that
// looks up the reader's stars in fanout:pushing (on a cluster the home
// read's second round trip, after G was read; on one Redis the one that
// reads G too), once.
type lookupHook struct {
	pushing string
	armed   atomic.Bool
	between func()
}

func (*lookupHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*lookupHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h *lookupHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.armed.Load() && slices.ContainsFunc(cmds, func(c redis.Cmder) bool {
			return slices.Contains(c.Args(), any(h.pushing))
		}) && h.armed.CompareAndSwap(true, false) {
			h.between()
		}
		return next(ctx, cmds)
	}
}

// TestHomeReadMeetsAPushEndingMidRead: a post whose push is still in
// flight when a fan's home read reads G, and is done (pushed into G, its
// mark taken) before the read looks the fan's stars up, as a cluster's two
// round trips allow, is on the page all the same.
func TestHomeReadMeetsAPushEndingMidRead(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	hook := &lookupHook{}
	rdb.AddHook(hook)
	s := testStore{Store: New(rdb, Options{BcryptCost: bcrypt.MinCost}), t: t, ctx: context.Background()}
	// The fan-out runs only when the test says.
	work := func() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			runner.NewFanOut(s.Store, runner.FanOutOptions{ClaimIdle: time.Second}).Run(ctx)
		}()
		s.settle()
		for s.pendingMarks() > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		<-done
	}
	star, fan := s.user("star"), s.user("fan")
	if err := s.Follow(s.ctx, fan, star); err != nil {
		t.Fatal(err)
	}
	// More than a page in G, so that the page stands on G's ids alone.
	var before []int64
	for i := range 3 {
		before = append(before, s.post(store.NewPost{Author: star, Content: fmt.Sprint("pushed before ", i)}).ID)
	}
	work()
	p := s.post(store.NewPost{Author: star, Content: "pushed mid-read"})
	if s.inHome(fan, p.ID) || s.pendingMarks() == 0 {
		t.Fatal("the post was pushed before the read: the test needs it in flight")
	}
	hook.pushing = s.keys.FanOutPushingShard(s.keys.PullShard(star))
	hook.between = work
	hook.armed.Store(true)
	page, err := s.HomeTimeline(s.ctx, fan, store.PageQuery{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if hook.armed.Load() {
		t.Fatal("the read never looked up the pushing authors")
	}
	var got []int64
	for _, post := range page.Items {
		got = append(got, post.ID)
	}
	if want := []int64{p.ID, before[2]}; !slices.Equal(got, want) {
		t.Fatalf("the home page holds %v, want %v", got, want)
	}
}
