package runner

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"

	"microblog/store/redisdb"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// takeParts reads want parts of split jobs, one a read as the part workers
// do, and fails unless there are exactly that many.
func (s testStore) takeParts(w *FanOut, want int) []schema.Job {
	s.t.Helper()
	w.parts.name = w.c.name
	w.parts.createGroup(s.ctx)
	var parts []schema.Job
	for {
		msgs, err := w.parts.read(s.ctx)
		if err != nil {
			s.t.Fatalf("read parts: %v", err)
		}
		if len(msgs) == 0 {
			break
		}
		if len(msgs) != 1 {
			s.t.Fatalf("one read took %d parts, want one", len(msgs))
		}
		parts = append(parts, schema.ParseJobs(msgs)...)
	}
	if len(parts) != want {
		s.t.Fatalf("read %d parts, want %d", len(parts), want)
	}
	return parts
}

// pending tells whether mid is marked pending, in whichever shard of the
// marks (redisdb/timeline_pending.go) its author's are.
func (s testStore) pending(mid int64) bool {
	for n := range s.keys.PullShards() {
		if s.rdb.HExists(s.ctx, s.keys.FanOutPendingShard(n), id(mid)).Val() {
			return true
		}
	}
	return false
}

// everyFanHas fails unless each of fans has mid in its G (or, with want
// false, none has).
func (s testStore) everyFanHas(fans []int64, mid int64, want bool) {
	s.t.Helper()
	for _, f := range fans {
		if s.inHome(f, mid) != want {
			s.t.Fatalf("fan %d has post %d: %v, want %v", f, mid, !want, want)
		}
	}
}

// TestFanOutSplitsBigPush: a push to more than partFans fans is split into
// parts by follow time; the job is acknowledged at once but its post stays
// pending until its last part is done, whatever the order the parts are
// done in; every fan gets the post once each part is done, and nothing is
// left behind.
func TestFanOutSplitsBigPush(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	star := s.user("star")
	fans := s.seedFans(star, 5_000_000, 2*PartFans+PartFans/2)
	p := s.post(store.NewPost{Author: star, Content: "to many"})
	w := s.worker(FanOutOptions{})
	w.doBatch(s.ctx, s.take(w, 1))
	if n := s.rdb.XLen(s.ctx, s.keys.FanOutQueue()).Val(); n != 0 {
		t.Fatalf("the split job is still queued (%d entries)", n)
	}
	if !s.pending(p.ID) {
		t.Fatal("the post is no longer pending once split")
	}
	left := s.rdb.SMembers(s.ctx, s.keys.FanOutPartsLeft(p.ID)).Val()
	slices.Sort(left)
	if !slices.Equal(left, []string{"0", "1", "2"}) {
		t.Fatalf("parts left %v, want 0, 1 and 2", left)
	}
	parts := s.takeParts(w, 3)
	s.everyFanHas(fans[:1], p.ID, false)
	for i, k := range []int{2, 0, 1} { // any order
		w.do(s.ctx, parts[k])
		if last := i == len(parts)-1; s.pending(p.ID) == last {
			t.Fatalf("after %d of %d parts the post is pending: %v", i+1, len(parts), !last)
		}
	}
	s.everyFanHas([]int64{fans[0], fans[PartFans-1], fans[PartFans], fans[2*PartFans], fans[len(fans)-1]}, p.ID, true)
	if got := s.rdb.ZCount(s.ctx, s.keys.Home(fans[PartFans+7]), "-inf", "+inf").Val(); got != 1 {
		t.Fatalf("a fan's G holds %d posts, want 1", got)
	}
	s.queueEmpty()
	if n := s.rdb.XLen(s.ctx, s.keys.FanOutParts()).Val(); n != 0 {
		t.Fatalf("%d parts still queued", n)
	}
	if s.rdb.Exists(s.ctx, s.keys.FanOutPartsLeft(p.ID)).Val() != 0 {
		t.Fatal("the set of parts left outlives the push")
	}
	for _, f := range []int64{fans[1], fans[PartFans+1], fans[len(fans)-2]} {
		if !s.inHome(f, p.ID) {
			t.Fatalf("fan %d lacks the post", f)
		}
	}
}

// TestFanOutSplitPartTakenOver: a part whose worker died (read, never
// acknowledged) is taken over by another process after ClaimIdle, and the
// post is settled only when that part is done; a job split twice (its
// process died between the split and its acknowledgement) ends the same.
func TestFanOutSplitPartTakenOver(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	star := s.user("star")
	fans := s.seedFans(star, 6_000_000, PartFans+10)
	p := s.post(store.NewPost{Author: star, Content: "to many"})
	dead := s.worker(FanOutOptions{ClaimIdle: 200 * time.Millisecond})
	j := s.take(dead, 1)[0]
	if split, err := dead.split(s.ctx, &j); err != nil || !split {
		t.Fatalf("split: %v, %v", split, err)
	}
	// The process dies before it acknowledges the job: another takes it
	// over and splits it again.
	other := s.worker(FanOutOptions{ClaimIdle: 200 * time.Millisecond})
	other.c.name, other.parts.name = "other", "other"
	time.Sleep(250 * time.Millisecond)
	if err := other.c.reclaim(s.ctx, 1, other.takeOver); err != nil {
		t.Fatal(err)
	}
	if n := s.rdb.XLen(s.ctx, s.keys.FanOutQueue()).Val(); n != 0 {
		t.Fatalf("the job taken over is still queued (%d entries)", n)
	}
	parts := s.takeParts(dead, 4) // two splits of two parts
	for _, pt := range parts[:3] {
		dead.do(s.ctx, pt)
	}
	// The first split's two parts settle the post (they cover every fan);
	// the dead worker took the fourth part and never acknowledged it.
	pel := s.rdb.XPending(s.ctx, s.keys.FanOutParts(), schema.FanOutGroup).Val()
	if pel.Count != 1 {
		t.Fatalf("%d parts pending, want the one the dead worker holds", pel.Count)
	}
	time.Sleep(250 * time.Millisecond)
	if err := other.parts.reclaim(s.ctx, 1, other.takeOver); err != nil {
		t.Fatal(err)
	}
	s.queueEmpty()
	if n := s.rdb.XLen(s.ctx, s.keys.FanOutParts()).Val(); n != 0 {
		t.Fatalf("%d parts still queued after the take-over", n)
	}
	s.everyFanHas([]int64{fans[0], fans[PartFans-1], fans[PartFans], fans[len(fans)-1]}, p.ID, true)
}

// TestFanOutSplitPostSettlesLast: with the set of parts left in place, the
// part done last settles the post, not an earlier one, even when the
// earlier one is done twice.
func TestFanOutSplitPostSettlesLast(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	star := s.user("star")
	s.seedFans(star, 7_000_000, PartFans+PartFans/2)
	p := s.post(store.NewPost{Author: star, Content: "to many"})
	w := s.worker(FanOutOptions{})
	w.doBatch(s.ctx, s.take(w, 1))
	parts := s.takeParts(w, 2)
	again := parts[0]
	w.do(s.ctx, parts[0])
	w.doOne(s.ctx, again, w.hold(s.ctx, []schema.Job{again})) // done twice: a retry
	if !s.pending(p.ID) {
		t.Fatal("a part done twice settled the post before its other part")
	}
	w.do(s.ctx, parts[1])
	if s.pending(p.ID) {
		t.Fatal("the last part did not settle the post")
	}
}

// TestFanOutSplitUnpush: the delete of a post by an author with more than
// partFans fans is split too, and its parts take the post out of every
// fan's G; a part of a push that finds its post deleted takes it out of
// its own fans' again.
func TestFanOutSplitUnpush(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	star := s.user("star")
	fans := s.seedFans(star, 8_000_000, PartFans+100)
	p := s.post(store.NewPost{Author: star, Content: "soon gone"})
	w := s.worker(FanOutOptions{})
	w.doBatch(s.ctx, s.take(w, 1))
	pushParts := s.takeParts(w, 2)
	w.do(s.ctx, pushParts[0])
	if err := s.Delete(s.ctx, star, p.ID); err != nil {
		t.Fatal(err)
	}
	w.doBatch(s.ctx, s.take(w, 1)) // the unpush job, split
	unpushParts := s.takeParts(w, 2)
	for _, pt := range unpushParts {
		if pt.Op != schema.OpUnpush {
			t.Fatalf("a part of the unpush job is a %s", pt.Op)
		}
		w.do(s.ctx, pt)
	}
	w.do(s.ctx, pushParts[1]) // runs after the unpush: finds the post gone
	s.everyFanHas([]int64{fans[0], fans[PartFans-1], fans[PartFans], fans[len(fans)-1]}, p.ID, false)
	s.queueEmpty()
	if s.rdb.Exists(s.ctx, s.keys.FanOutPartsLeft(p.ID)).Val() != 0 {
		t.Fatal("the set of parts left outlives the push")
	}
}

// TestFanOutSpansCoverEveryFanOnce: the spans of a split cover every fan
// exactly once, fans who followed in the same millisecond (a tie across a
// cut) in one span.
func TestFanOutSpansCoverEveryFanOnce(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	var zs []redis.Z
	n := 3*PartFans + 17
	for i := range n {
		score := float64(1000 + i)
		if i > PartFans-50 && i < PartFans+300 { // a tie across the first cut
			score = float64(1000 + PartFans - 50)
		}
		zs = append(zs, redis.Z{Score: score, Member: 9_000_000 + i})
	}
	if err := s.rdb.ZAdd(s.ctx, s.keys.Fans(1), zs...).Err(); err != nil {
		t.Fatal(err)
	}
	w := s.worker(FanOutOptions{})
	spans, err := w.spans(s.ctx, 1, int64(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 4 {
		t.Fatalf("%d spans %v, want 4", len(spans), spans)
	}
	seen := map[int64]int{}
	for _, sp := range spans {
		err := w.walkSpan(s.ctx, 1, sp, func(fans []int64) error {
			for _, f := range fans {
				seen[f]++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != n {
		t.Fatalf("the spans walk %d fans, want %d", len(seen), n)
	}
	for f, k := range seen {
		if k != 1 {
			t.Fatalf("fan %d walked %d times", f, k)
		}
	}
	if lo, _ := strconv.ParseFloat(spans[1].Lo, 64); lo != float64(1000+PartFans-50) {
		t.Fatalf("the tie is cut: the second span starts at %v", spans[1].Lo)
	}
}

// TestFanOutSplitSpreadsOverMasters: on a Redis Cluster, the pushes of a
// split job land on every master (the fans' G sets are on slots of their
// own), while the queues, one key each, cost a few commands a part. Only
// with MICROBLOG_TEST_REDIS=cluster.
func TestFanOutSplitSpreadsOverMasters(t *testing.T) {
	parallel(t)
	if !storetest.ClusterMode() {
		t.Skip("needs MICROBLOG_TEST_REDIS=cluster")
	}
	s := newIdleStore(t, redisdb.Options{})
	cc := s.rdb.(*redis.ClusterClient)
	star := s.user("star")
	fans := s.seedFans(star, 10_000_000, 3*PartFans)
	p := s.post(store.NewPost{Author: star, Content: "to many"})
	err := cc.ForEachMaster(s.ctx, func(ctx context.Context, m *redis.Client) error { return m.ConfigResetStat(ctx).Err() })
	if err != nil {
		t.Fatal(err)
	}
	w := s.worker(FanOutOptions{})
	w.doBatch(s.ctx, s.take(w, 1))
	for _, pt := range s.takeParts(w, 3) {
		w.do(s.ctx, pt)
	}
	s.queueEmpty()
	s.everyFanHas([]int64{fans[0], fans[len(fans)-1]}, p.ID, true)
	var mu sync.Mutex
	var zadds, streams []int64
	err = cc.ForEachMaster(s.ctx, func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "commandstats").Result()
		mu.Lock()
		defer mu.Unlock()
		zadds = append(zadds, calls(info, "zadd"))
		streams = append(streams, calls(info, "xreadgroup")+calls(info, "xadd")+calls(info, "xack")+calls(info, "xdel"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ZADD calls by master %v, stream commands by master %v", zadds, streams)
	for _, n := range zadds {
		if n < int64(len(fans))/5 {
			t.Fatalf("a master took %d of %d pushes: %v", n, len(fans), zadds)
		}
	}
	var queue int64
	for _, n := range streams {
		queue += n
	}
	if queue > 20 {
		t.Fatalf("%d stream commands for 3 parts", queue)
	}
}

// calls is the calls of cmd in INFO commandstats.
func calls(info, cmd string) int64 {
	_, rest, ok := strings.Cut(info, "cmdstat_"+cmd+":calls=")
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
	return n
}

// TestFanOutRunSplitsBigPush: the workers as Run starts them (the helpers
// take the parts) push a post to more than partFans fans, and settle it.
func TestFanOutRunSplitsBigPush(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	star := s.user("star")
	fans := s.seedFans(star, 11_000_000, 2*PartFans+10)
	p := s.post(store.NewPost{Author: star, Content: "to many"})
	// No worker dies here: a claim idle time no busy machine reaches, or a
	// part slow to push is taken over and done twice.
	runFanOut(t, NewFanOut(s.Store, FanOutOptions{ClaimIdle: time.Minute, Metrics: s.metrics}))
	deadline := time.Now().Add(storetest.HangWait)
	for s.pending(p.ID) || s.rdb.XLen(s.ctx, s.keys.FanOutParts()).Val() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the split push is not done after %v", storetest.HangWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.queueEmpty()
	s.everyFanHas([]int64{fans[0], fans[PartFans], fans[len(fans)-1]}, p.ID, true)
	if got := counted(s.metrics.Jobs.WithLabelValues("push_part")); got != 3 {
		t.Fatalf("%v parts done, want 3", got)
	}
}
