package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb"

	"microblog/store/redisdb/schema"
)

// worker is a fan-out worker of s that the test drives by hand, with the
// consumer group made.
func (s testStore) worker(opt FanOutOptions) *FanOut {
	if opt.ClaimIdle == 0 {
		opt.ClaimIdle = time.Second
	}
	opt.Metrics = cmp.Or(opt.Metrics, s.metrics)
	w := NewFanOut(s.Store, opt)
	w.c.name = "test-" + s.t.Name()
	w.c.createGroup(s.ctx)
	return w
}

// take reads every job queued, as the worker's reads would, and fails
// unless there are want of them.
func (s testStore) take(w *FanOut, want int) []schema.Job {
	s.t.Helper()
	var jobs []schema.Job
	for len(jobs) < want {
		msgs, err := w.c.read(s.ctx)
		if err == nil && len(msgs) == 0 {
			err = redis.Nil
		}
		if err != nil {
			s.t.Fatalf("read jobs: %v (%d of %d read)", err, len(jobs), want)
		}
		jobs = append(jobs, schema.ParseJobs(msgs)...)
	}
	if len(jobs) != want {
		s.t.Fatalf("read %d jobs, want %d", len(jobs), want)
	}
	return jobs
}

// seedFans makes n made-up users (uids from first on) fans of star, without
// registering them: a star with many fans, cheaply.
func (s testStore) seedFans(star, first int64, n int) []int64 {
	s.t.Helper()
	uids := make([]int64, n)
	zs := make([]redis.Z, n)
	for i := range uids {
		uids[i] = first + int64(i)
		zs[i] = redis.Z{Score: float64(1000 + i), Member: uids[i]}
	}
	if err := s.rdb.ZAdd(s.ctx, s.keys.Fans(star), zs...).Err(); err != nil {
		s.t.Fatal(err)
	}
	return uids
}

// queueEmpty fails unless every fan-out job is acknowledged and no push is
// marked pending.
func (s testStore) queueEmpty() {
	s.t.Helper()
	if n := s.rdb.XLen(s.ctx, s.keys.FanOutQueue()).Val(); n != 0 {
		s.t.Fatalf("the queue still holds %d jobs", n)
	}
	if n := s.pendingMarks(); n != 0 {
		s.t.Fatalf("%d posts still marked pending", n)
	}
}

// TestFanOutBatchDrainsManyAuthors: many small authors (and one with more
// fans than a batch reads) post while no worker runs; one worker then drains
// the queue, and every active fan's G holds every post of its stars, a fan
// away longer than InactiveAfter none, and the pushes counted are the fans
// reached times the posts.
func TestFanOutBatchDrainsManyAuthors(t *testing.T) {
	parallel(t)
	clock := time.UnixMilli(1_800_000_000_000)
	s := newIdleStore(t, redisdb.Options{InactiveAfter: time.Hour, Now: func() time.Time { return clock }})
	fans := make([]int64, 12)
	for i := range fans {
		fans[i] = s.user(fmt.Sprint("fan", i))
	}
	away := s.user("away")
	authors := make([]int64, 20)
	stars := map[int64][]int64{} // fan → its stars
	for i := range authors {
		authors[i] = s.user(fmt.Sprint("author", i))
		for k := range 3 {
			f := fans[(i+k*5)%len(fans)]
			s.follow(f, authors[i])
			stars[f] = append(stars[f], authors[i])
		}
		s.follow(away, authors[i])
	}
	big := s.user("big")
	bigFans := s.seedFans(big, 1_000_000, FanOutBatch+3)
	s.follow(fans[0], big)
	stars[fans[0]] = append(stars[fans[0]], big)
	// Seen two hours before the posts: away.
	s.rdb.ZAdd(s.ctx, s.keys.LastSeen(), redis.Z{Score: float64(clock.Add(-2 * time.Hour).UnixMilli()), Member: away})
	// Seen a minute before: active.
	s.rdb.ZAdd(s.ctx, s.keys.LastSeen(), redis.Z{Score: float64(clock.Add(-time.Minute).UnixMilli()), Member: fans[1]})

	posts := map[int64][]int64{} // author → its posts
	for round := range 5 {
		for _, a := range append(slices.Clone(authors), big) {
			posts[a] = append(posts[a], s.post(store.NewPost{Author: a, Content: fmt.Sprint("round ", round)}).ID)
		}
	}
	if n := s.rdb.XLen(s.ctx, s.keys.FanOutQueue()).Val(); n != 5*21 {
		t.Fatalf("%d jobs queued, want %d", n, 5*21)
	}
	pushesBefore := counted(s.metrics.Pushes)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// No worker dies here: a claim idle time no busy machine reaches,
		// or a batch slow to push is taken over and done twice.
		NewFanOut(s.Store, FanOutOptions{Workers: 1, ClaimIdle: time.Minute, Metrics: s.metrics}).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	s.settle()
	s.queueEmpty()

	for _, f := range fans {
		var want []int64
		for _, a := range stars[f] {
			want = append(want, posts[a]...)
		}
		for _, mid := range want {
			if !s.inHome(f, mid) {
				t.Fatalf("fan %d's G lacks post %d", f, mid)
			}
		}
		if n := s.rdb.ZCard(s.ctx, s.keys.Home(f)).Val(); n != int64(len(want)) {
			t.Fatalf("fan %d's G holds %d posts, want %d", f, n, len(want))
		}
	}
	if n := s.rdb.ZCard(s.ctx, s.keys.Home(away)).Val(); n != 0 {
		t.Fatalf("a fan away for 2h got %d pushes", n)
	}
	for _, f := range []int64{bigFans[0], bigFans[FanOutBatch], bigFans[len(bigFans)-1]} {
		for _, mid := range posts[big] {
			if !s.inHome(f, mid) {
				t.Fatalf("fan %d of the author with %d fans lacks post %d", f, len(bigFans)+1, mid)
			}
		}
	}
	want := 5 * (len(authors)*3 + len(bigFans) + 1)
	if got := counted(s.metrics.Pushes) - pushesBefore; got != float64(want) {
		t.Fatalf("%v pushes counted, want %d", got, want)
	}
	if got := counted(s.metrics.Jobs.WithLabelValues(schema.OpPush)); got != 5*21 {
		t.Fatalf("%v push jobs counted, want %d", got, 5*21)
	}
}

// counted is a counter's value.
func counted(c prometheus.Counter) float64 {
	var pb dto.Metric
	c.Write(&pb)
	return pb.GetCounter().GetValue()
}

// roundTrips counts the commands and pipelines a client sends: each one
// round trip (to each master a pipeline spans, on a cluster, at once).
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { r.n.Add(1); return next(ctx, cmd) }
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { r.n.Add(1); return next(ctx, cmds) }
}

// TestFanOutBatchRoundTrips: a batch of push jobs by as many authors, each
// with a few fans, costs the same few round trips however many jobs it
// holds; done one by one (as a job taken over is), each costs about as many
// on its own.
func TestFanOutBatchRoundTrips(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	counter := &roundTrips{}
	s.rdb.AddHook(counter)
	w := s.worker(FanOutOptions{})
	next := int64(2_000_000)
	batch := func(n int, oneByOne bool) int64 {
		t.Helper()
		var mids []int64
		var fans []int64
		for i := range n {
			a := s.user(fmt.Sprintf("a%d_%d_%v", n, i, oneByOne))
			fans = append(fans, s.seedFans(a, next, 3)...)
			next += 3
			mids = append(mids, s.post(store.NewPost{Author: a, Content: "hello"}).ID)
		}
		jobs := s.take(w, n)
		before := counter.n.Load()
		if oneByOne {
			for _, j := range jobs {
				w.do(s.ctx, j)
			}
		} else {
			w.doBatch(s.ctx, jobs)
		}
		trips := counter.n.Load() - before
		s.queueEmpty()
		for i, mid := range mids {
			for _, f := range fans[3*i : 3*i+3] {
				if !s.inHome(f, mid) {
					t.Fatalf("fan %d lacks post %d", f, mid)
				}
			}
		}
		return trips
	}
	one := batch(1, false)
	for _, n := range []int{2, 10, ReadCount} {
		if got := batch(n, false); got != one {
			t.Fatalf("a batch of %d push jobs took %d round trips, one alone %d", n, got, one)
		}
	}
	if one > 5 {
		t.Fatalf("a batch of push jobs took %d round trips, want at most 5", one)
	}
	alone := batch(10, true)
	t.Logf("round trips besides the read: %d for a batch of push jobs (1 to %d), %d for 10 jobs done one by one", one, ReadCount, alone)
	if alone < 10*one {
		t.Fatalf("10 jobs done one by one took %d round trips, fewer than 10 batches (%d each)", alone, one)
	}
}

// TestFanOutBatchWalksEachAuthorOnce: the posts of a batch by an author
// with more fans than one walk's read (so not pushed with the small
// authors') are pushed in one walk of its fans: each fan's G is written
// once for all of them, every fan gets every post but the one deleted
// before the batch ran, and every job is acknowledged.
func TestFanOutBatchWalksEachAuthorOnce(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	author := s.user("author")
	fans := s.seedFans(author, 4_000_000, FanOutBatch+500)
	var mids []int64
	for i := range 5 {
		mids = append(mids, s.post(store.NewPost{Author: author, Content: fmt.Sprint("post ", i)}).ID)
	}
	if err := s.Delete(s.ctx, author, mids[2]); err != nil {
		t.Fatal(err)
	}
	w := s.worker(FanOutOptions{})
	jobs := s.take(w, 6) // 5 pushes and the delete's unpush
	zadds := &commandCount{name: "zadd"}
	s.rdb.AddHook(zadds)
	pushesBefore := counted(s.metrics.Pushes)
	w.doBatch(s.ctx, jobs)
	s.queueEmpty()
	for _, f := range []int64{fans[0], fans[FanOutBatch], fans[len(fans)-1]} {
		for i, mid := range mids {
			if in := s.inHome(f, mid); in != (i != 2) {
				t.Fatalf("fan %d has post %d (the %d.): %v", f, mid, i+1, in)
			}
		}
	}
	if got := zadds.n.Load(); got != int64(len(fans)) {
		t.Fatalf("%d ZADDs for %d fans and 5 posts, want one a fan", got, len(fans))
	}
	// The deleted post's pushes count twice: pushed, then taken out again.
	if got, want := counted(s.metrics.Pushes)-pushesBefore, float64(5*len(fans)+2*len(fans)); got != want {
		t.Fatalf("%v pushes counted, want %v", got, want)
	}
}

// commandCount counts the commands named name a client sends, alone or in
// pipelines.
type commandCount struct {
	roundTrips
	name string
}

func (c *commandCount) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == c.name {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (c *commandCount) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if cmd.Name() == c.name {
				c.n.Add(1)
			}
		}
		return next(ctx, cmds)
	}
}

// TestFanOutBatchPostDeletedBeforeCheck: a post deleted after its batch
// pushed it, but before the batch checked that it still exists, ends up in
// no fan's G, while the other posts of the batch stay; every push job of
// the batch is acknowledged, and the unpush job that the delete queued
// waits in the queue, not needed for this.
func TestFanOutBatchPostDeletedBeforeCheck(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	author, other := s.user("author"), s.user("other")
	fans := []int64{s.user("f1"), s.user("f2"), s.user("f3")}
	for _, f := range fans {
		s.follow(f, author)
		s.follow(f, other)
	}
	doomed := s.post(store.NewPost{Author: author, Content: "soon gone"})
	kept := s.post(store.NewPost{Author: other, Content: "stays"})
	w := s.worker(FanOutOptions{})
	jobs := s.take(w, 2)

	var armed atomic.Bool
	armed.Store(true)
	hook := &deleteAfterPush{s: s, home: s.keys.Home(fans[0]), author: author, mid: doomed.ID, armed: &armed}
	s.rdb.AddHook(hook)
	w.doBatch(s.ctx, jobs)
	if armed.Load() {
		t.Fatal("the batch never pushed into the fans' G")
	}
	if hook.err != nil {
		t.Fatal(hook.err)
	}
	for _, f := range fans {
		if s.inHome(f, doomed.ID) {
			t.Fatalf("fan %d's G keeps post %d, deleted before the check", f, doomed.ID)
		}
		if !s.inHome(f, kept.ID) {
			t.Fatalf("fan %d's G lacks post %d", f, kept.ID)
		}
	}
	msgs := s.rdb.XRange(s.ctx, s.keys.FanOutQueue(), "-", "+").Val()
	if len(msgs) != 1 || schema.ParseJob(msgs[0]).Op != schema.OpUnpush {
		t.Fatalf("the queue holds %v, want the delete's unpush job alone", msgs)
	}
	if n := s.pendingMarks(); n != 0 {
		t.Fatalf("%d posts still marked pending", n)
	}
}

// deleteAfterPush deletes a post once a pipeline that wrote home has
// returned.
type deleteAfterPush struct {
	roundTrips
	s           testStore
	home        string
	author, mid int64
	armed       *atomic.Bool
	err         error
}

func (d *deleteAfterPush) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if c.Name() == "zadd" && fmt.Sprint(c.Args()[1]) == d.home && d.armed.CompareAndSwap(true, false) {
				d.err = d.s.Delete(ctx, d.author, d.mid)
				break
			}
		}
		return err
	}
}

// TestFanOutBatchPushAndUnpush: one batch holds the push of a post, its
// unpush, a push of it again (a retried job that comes after its delete)
// and the push of a later post: the deleted post ends in no fan's G, the
// later one in every fan's.
func TestFanOutBatchPushAndUnpush(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	author := s.user("author")
	fans := []int64{s.user("f1"), s.user("f2")}
	for _, f := range fans {
		s.follow(f, author)
	}
	gone := s.post(store.NewPost{Author: author, Content: "deleted"})
	if err := s.Delete(s.ctx, author, gone.ID); err != nil {
		t.Fatal(err)
	}
	s.rdb.XAdd(s.ctx, &redis.XAddArgs{Stream: s.keys.FanOutQueue(), Values: []any{
		"op", schema.OpPush, "author", author, "mid", gone.ID, "at", s.Now()}})
	later := s.post(store.NewPost{Author: author, Content: "later"})
	w := s.worker(FanOutOptions{})
	jobs := s.take(w, 4)
	if ops := []string{jobs[0].Op, jobs[1].Op, jobs[2].Op, jobs[3].Op}; !slices.Equal(ops, []string{schema.OpPush, schema.OpUnpush, schema.OpPush, schema.OpPush}) {
		t.Fatalf("queued %v", ops)
	}
	w.doBatch(s.ctx, jobs)
	s.queueEmpty()
	for _, f := range fans {
		if s.inHome(f, gone.ID) {
			t.Fatalf("fan %d's G keeps deleted post %d", f, gone.ID)
		}
		if !s.inHome(f, later.ID) {
			t.Fatalf("fan %d's G lacks post %d", f, later.ID)
		}
	}
}

// TestFanOutBatchKeepsItsClaims: while a long job of a batch runs (a push to
// more fans than one pipeline writes, slowed down), the jobs read with it
// and waiting behind it stay claimed: another process looking for jobs idle
// longer than ClaimIdle finds none of them.
func TestFanOutBatchKeepsItsClaims(t *testing.T) {
	// Long enough that a busy machine's slow pipeline of fanOutBatch
	// pushes (between two renewals) does not pass for a dead process.
	const claimIdle = 2 * time.Second
	s := newIdleStore(t, redisdb.Options{})
	big, small := s.user("big"), s.user("small")
	s.seedFans(big, 3_000_000, 5*FanOutBatch)
	fan := s.user("fan")
	s.follow(fan, small)
	long := s.post(store.NewPost{Author: big, Content: "to many"})
	s.post(store.NewPost{Author: small, Content: "first"})
	last := s.post(store.NewPost{Author: small, Content: "then deleted"})
	if err := s.Delete(s.ctx, small, last.ID); err != nil {
		t.Fatal(err)
	}
	w := s.worker(FanOutOptions{ClaimIdle: claimIdle, BatchDelay: claimIdle / 2})
	jobs := s.take(w, 4)

	var taken []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			msgs, _, _ := s.rdb.XAutoClaim(s.ctx, &redis.XAutoClaimArgs{Stream: s.keys.FanOutQueue(), Group: schema.FanOutGroup,
				Consumer: "other", MinIdle: claimIdle, Start: "0-0", Count: 10}).Result()
			for _, m := range msgs {
				taken = append(taken, m.ID)
			}
		}
	}()
	start := time.Now()
	w.doBatch(s.ctx, jobs)
	close(stop)
	wg.Wait()
	if d := time.Since(start); d < 2*claimIdle {
		t.Fatalf("the batch took %v, not long enough to prove anything", d)
	}
	if len(taken) > 0 {
		t.Fatalf("another process took over %v while the batch ran", taken)
	}
	s.queueEmpty()
	if !s.inHome(3_000_000+5*FanOutBatch-1, long.ID) || s.inHome(fan, last.ID) {
		t.Fatal("the batch's jobs were not done")
	}
}

// TestFanOutGoneMatchesLoadMessages: the batch's check that a post still
// exists says gone exactly where loadPosts finds nothing: a hot post and
// one archived out of Redis exist; one deleted while hot, one deleted once
// archived and one never written are gone.
func TestFanOutGoneMatchesLoadMessages(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), redisdb.Options{HotWindow: 3})
	u := s.user("writer")
	var mids []int64
	for i := range 8 {
		mids = append(mids, s.post(store.NewPost{Author: u, Content: fmt.Sprint("post ", i)}).ID)
	}
	s.archived()
	if hot := s.hotHashes(mids[:2]); hot != 0 {
		t.Fatalf("%d of the oldest posts are still hot: the test proves nothing", hot)
	}
	for _, mid := range []int64{mids[0], mids[7]} {
		if err := s.Delete(s.ctx, u, mid); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		all := append(slices.Clone(mids), mids[7]+1000)
		ms := make([]*store.Post, len(all)) // as a reader finds them
		for i, mid := range all {
			p, err := s.Post(s.ctx, mid, 0)
			if err == nil {
				ms[i] = &p
			} else if !errors.Is(err, store.ErrPostNotFound) {
				t.Fatal(err)
			}
		}
		gone, err := NewFanOut(s.Store, FanOutOptions{}).gone(s.ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		for i, mid := range all {
			if gone[i] != (ms[i] == nil) {
				t.Fatalf("%s: post %d gone %v, a reader found %v", when, mid, gone[i], ms[i])
			}
		}
		if !gone[0] || gone[1] || !gone[7] || gone[6] || !gone[8] {
			t.Fatalf("%s: gone %v", when, gone)
		}
	}
	check("deleted")
	s.archived()
	check("archived")
}
