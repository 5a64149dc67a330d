package redisdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// modeCase is one transition of the fan-out state machine to break, for a
// new author star whose fans f1 and f2 stay and f3 comes or goes.
type modeCase struct {
	name string
	// setup brings star where the transition starts, by the survivor, and
	// returns the posts it wrote.
	setup func(m *modeFaults, star, f3 int64) []int64
	// trigger makes the transition, by the victim, under ctx.
	trigger func(m *modeFaults, ctx context.Context, star, f3 int64) error
	// lockedOnly says the transition's steps are the round trips under the
	// author's mode lock (a follow's or unfollow's), not all of trigger's.
	lockedOnly bool
	// quiet says no worker of the survivor may run from setup to trigger:
	// the victim's are to take the job.
	quiet bool
	// f3 says whether f3 follows star once the transition is done.
	f3 bool
}

var modeCases = []modeCase{
	{name: "promote", lockedOnly: true, f3: true,
		setup: func(m *modeFaults, star, f3 int64) []int64 { return nil },
		trigger: func(m *modeFaults, ctx context.Context, star, f3 int64) error {
			return m.victim.Follow(ctx, f3, star)
		}},
	{name: "demote", lockedOnly: true,
		setup: func(m *modeFaults, star, f3 int64) []int64 {
			m.survivor.follow(f3, star)
			return []int64{m.survivor.post(store.NewPost{Author: star, Content: "pulled"}).ID}
		},
		trigger: func(m *modeFaults, ctx context.Context, star, f3 int64) error {
			return m.victim.Unfollow(ctx, f3, star)
		}},
	{name: "backfill", quiet: true,
		setup: func(m *modeFaults, star, f3 int64) []int64 {
			m.survivor.follow(f3, star)
			p := m.survivor.post(store.NewPost{Author: star, Content: "pulled"})
			if err := retryLockLost(func() error { return m.survivor.Unfollow(m.survivor.ctx, f3, star) }); err != nil {
				m.t.Fatal(err)
			}
			return []int64{p.ID}
		},
		trigger: func(m *modeFaults, ctx context.Context, star, f3 int64) error {
			m.victimFanOut.Do(ctx, takeJobs(m.t, m.victimFanOut))
			return nil
		}},
}

// TestModeFaultAtEveryStep breaks every step of promote, demote and the
// backfill: Redis away for the process making the change (the round trip
// unsent, or run with its reply lost), the redis-server killed (SIGKILL)
// and started again on its data (on one Redis), or the process dying after
// the step (it sends nothing more, holding its lock and its job). Another
// process then goes on as it would: its fan-out workers take over what the
// dead one held once idle, and its checker runs. The author must end in a
// valid state, and each of its posts (written before, right after the
// fault, and once repaired) must be in every fan's home timeline exactly
// once. On one Redis and, with MICROBLOG_TEST_REDIS=cluster, on the
// cluster.
func TestModeFaultAtEveryStep(t *testing.T) {
	parallel(t)
	for _, c := range modeCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each on a Redis of its own
			faultEveryStep(t, c)
		})
	}
}

// faultEveryStep runs c once without faults, counting its round trips,
// then once for each of its steps and each way of failing.
func faultEveryStep(t *testing.T, c modeCase) {
	m := newModeFaults(t)
	m.loadScripts()
	m.faults.count()
	trips := m.run(c, "no fault", func(ctx context.Context, star, f3 int64) {
		if err := c.trigger(m, m.faults.marked(ctx), star, f3); err != nil {
			t.Fatal(err)
		}
	})
	from, to := 1, len(trips)
	if c.lockedOnly {
		from, to = lockSection(trips)
	}
	t.Logf("round trips %d to %d of:\n%s", from, to, strings.Join(trips, "\n"))
	for at := from; at <= to; at++ {
		for _, mode := range m.modes {
			what := fmt.Sprintf("%s, round trip %d (%s), %s", c.name, at, trips[at-1], mode)
			m.run(c, what, func(ctx context.Context, star, f3 int64) {
				m.faults.arm(at, mode, m.down(mode))
				c.trigger(m, m.faults.marked(ctx), star, f3)
				m.faults.disarm()
				if mode != died {
					m.faults.waitBack()
				}
				if mode == killed {
					m.loadScripts()
				}
			})
		}
	}
}

// modeFaults is the two processes of TestModeFaultAtEveryStep, on one
// backend: the victim, whose client faults, and the survivor.
type modeFaults struct {
	t                *testing.T
	faults           *faultHook
	modes            []faultMode
	victim, survivor testStore
	victimFanOut     *runner.FanOut
	survivorFanOut   *runner.FanOut
	checker          *runner.Checker
	n                int // authors so far
}

// modeLockTTL and modeClaimIdle are the lock's TTL and the jobs' claim idle
// time of the test, short so that the survivor soon takes over.
const (
	faultLockTTL   = 300 * time.Millisecond
	faultClaimIdle = 300 * time.Millisecond
)

func newModeFaults(t *testing.T) *modeFaults {
	var b *storetest.Backend
	if storetest.ClusterMode() {
		b = storetest.NewBackend(t)
	} else { // a redis-server killed must lose nothing it acknowledged, as the cluster's
		b = storetest.SingleBackend(t, storetest.StartWith(t, "--appendfsync", "always"))
	}
	var rdb redis.UniversalClient
	if b.Single != nil { // never sending a command again on its own
		rdb = redis.NewClient(&redis.Options{Addr: b.Single.Addr(), MaxRetries: -1})
	} else {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{b.Cluster.Masters[0].Addr()}, MaxRetries: -1})
	}
	t.Cleanup(func() { rdb.Close() })
	m := &modeFaults{t: t, faults: &faultHook{}, modes: []faultMode{unsent, replyLost, died}}
	rdb.AddHook(m.faults)
	if r := b.Single; r != nil {
		m.modes = append(m.modes, killed)
		m.faults.killing(t, r)
	}
	opt := Options{CelebrityFans: 3, ModeLockTTL: faultLockTTL}
	m.victim, m.survivor = newQuietStore(t, rdb, opt), newQuietStore(t, b.Client(), opt)
	m.victimFanOut = runner.NewFanOut(m.victim.Store, runner.FanOutOptions{ClaimIdle: faultClaimIdle, Helpers: -1})
	m.survivorFanOut = runner.NewFanOut(m.survivor.Store, runner.FanOutOptions{ClaimIdle: faultClaimIdle, Helpers: -1})
	m.checker = runner.NewChecker(m.survivor.Store, runner.CheckerOptions{Grace: time.Nanosecond})
	return m
}

// down is how long Redis stays away for a fault of mode: for a killed one,
// longer than go-redis's dial retries; for a process that died, for good.
func (m *modeFaults) down(mode faultMode) time.Duration {
	switch mode {
	case killed:
		return time.Second
	case died:
		return time.Hour
	}
	return 200 * time.Millisecond
}

// loadScripts loads the scripts of a change of mode into a Redis started
// again empty of them, so that each is one round trip, as when counted,
// once the survivor's client answers again (go-redis's pool answers with
// its last dial error for a moment after the server is back).
func (m *modeFaults) loadScripts() {
	for deadline := time.Now().Add(storetest.HangWait); m.survivor.rdb.Ping(m.survivor.ctx).Err() != nil; {
		if time.Now().After(deadline) {
			m.t.Fatal("the survivor's client does not reach Redis again")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, sc := range []*redis.Script{schema.ModeSet, schema.DelIfEquals} {
		if err := sc.Load(m.survivor.ctx, m.survivor.rdb).Err(); err != nil {
			m.t.Fatal(err)
		}
	}
}

// run runs case c with a new author: its setup and a post, then fault
// (which triggers the transition, with or without a fault), a post right
// after, the survivor's repairs, a post once repaired; then it checks the
// author's state and its fans' home timelines. It returns the round trips
// the hook counted, if it was counting.
func (m *modeFaults) run(c modeCase, what string, fault func(ctx context.Context, star, f3 int64)) []string {
	t, s := m.t, m.survivor
	m.n++
	star := s.user(fmt.Sprint("star", m.n))
	f1, f2, f3 := s.user(fmt.Sprint("a", m.n)), s.user(fmt.Sprint("b", m.n)), s.user(fmt.Sprint("c", m.n))
	s.follow(f1, star)
	s.follow(f2, star)
	stop := m.work()
	posts := []int64{s.post(store.NewPost{Author: star, Content: "before"}).ID}
	if c.quiet {
		s.settle()
		stop()
	}
	posts = append(posts, c.setup(m, star, f3)...)
	fault(s.ctx, star, f3)
	trips := m.faults.counted()
	if c.quiet {
		stop = m.work()
	}
	defer stop()
	later := []int64{s.post(store.NewPost{Author: star, Content: "right after the fault"}).ID}
	st := m.repair(star, what)
	later = append(later, s.post(store.NewPost{Author: star, Content: "once repaired"}).ID)
	s.settle()
	posts = append(posts, later...)
	if st.mode == "" && st.fans >= 3 {
		t.Logf("%s: the author stays pushed with %d fans (its promotion never began), until its next follow", what, st.fans)
	}
	for _, fan := range []int64{f1, f2} {
		m.once(what, fan, posts)
	}
	if c.f3 {
		m.once(what, f3, later)
	}
	return trips
}

// work starts the survivor's fan-out workers, and returns what stops them.
func (m *modeFaults) work() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.survivorFanOut.Run(ctx) }()
	return func() { cancel(); <-done }
}

// repair runs the survivor's checker, its workers running, until the
// author is in a valid state with no job left, and returns that state.
func (m *modeFaults) repair(star int64, what string) modeState {
	deadline := time.Now().Add(storetest.HangWait)
	for {
		if _, err := m.checker.Check(m.survivor.ctx); err != nil {
			m.t.Logf("%s: checker: %v", what, err)
		}
		m.survivor.settle()
		st := m.survivor.state(star)
		problem := invalid(st)
		if problem == "" {
			return st
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%s: after %v of repairs the author is %+v: %s", what, storetest.HangWait, st, problem)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// invalid says what is wrong with st as a settled state (no job in
// flight): "" for push, not a celebrity, or pull, one; a drain must have
// ended once its job is done.
func invalid(st modeState) string {
	switch {
	case st.mode == "" && st.member:
		return "pushed but pulled by readers"
	case st.mode == schema.ModePull && !st.member:
		return "pulled but not a celebrity: its posts are in neither place"
	case st.mode == schema.ModeDrain:
		return "draining with its job done or gone"
	case st.mode != "" && st.mode != schema.ModePull:
		return "an unknown mode"
	case st.mode == "" && (st.drain != "" || st.job != ""):
		return "pushed with a drain's fields left"
	}
	return ""
}

// once fails the test unless fan's home timeline shows each of posts
// exactly once.
func (m *modeFaults) once(what string, fan int64, posts []int64) {
	home := m.survivor.homeIDs(fan)
	for _, p := range posts {
		if n := len(slices.DeleteFunc(slices.Clone(home), func(id int64) bool { return id != p })); n != 1 {
			s := m.survivor
			m.t.Fatalf("%s: fan %d sees post %d %d times (home %v, G %v, posts %v; follows %v)", what, fan, p, n, home,
				s.rdb.ZRange(s.ctx, s.keys.Home(fan), 0, -1).Val(), posts, s.rdb.ZRange(s.ctx, s.keys.Stars(fan), 0, -1).Val())
		}
	}
}

// lockSection is the round trips (1-based, inclusive) from the first that
// takes a mode lock (a lone SET) to the first after it that gives it back.
func lockSection(trips []string) (from, to int) {
	for i, l := range trips {
		switch {
		case from == 0 && l == "set":
			from = i + 1
		case from != 0 && strings.HasPrefix(l, "script(") && strings.Contains(l, "lock:fanout:"):
			return from, i + 1
		}
	}
	return from, len(trips)
}
