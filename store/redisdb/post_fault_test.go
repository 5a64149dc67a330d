package redisdb

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestPostFaultAtEveryRoundTrip takes Redis away at every round trip of a
// post sent with an Idempotency-Key, before the round trip is sent (the
// commands never reach Redis) and after (Redis does them, the reply is
// lost), and keeps it away a while, as a restart or a failover would; on
// one Redis, a plain post also has the redis-server killed (SIGKILL) before
// each round trip and started again on its data. Each
// time the client retries with the same key, as the contract asks, once
// Redis is back: a retry is served within moments (never 409 for the
// claimTTL of a claim nobody will finish), the post exists exactly once,
// and every post a live subscriber was shown exists afterwards. On one
// Redis and, with MICROBLOG_TEST_REDIS=cluster, on the cluster.
func TestPostFaultAtEveryRoundTrip(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	rdb := serverLikeClient(t, b)
	faults := &faultHook{}
	rdb.AddHook(faults)
	modes := []faultMode{unsent, replyLost}
	if r := b.Single; r != nil {
		modes = append(modes, killed)
		faults.killing(t, r)
	}
	s := newTestStoreOn(t, rdb, Options{})
	alice, bob := s.user("alice"), s.user("bob")
	seen := subscribePosts(t, b, s.keys.AuthorChannel(alice), s.keys.NotifyChannel(bob))
	written := 0
	for _, kind := range []struct {
		name string
		post func(key string) store.NewPost
	}{
		{"post", func(key string) store.NewPost {
			return store.NewPost{Author: alice, Content: "a post " + key, IdempotencyKey: key}
		}},
		{"comment", func(key string) store.NewPost {
			parent := s.post(store.NewPost{Author: bob, Content: "to comment on"})
			return store.NewPost{Author: alice, Content: "a comment " + key, Parent: parent.ID, IdempotencyKey: key}
		}},
		{"repost", func(key string) store.NewPost {
			orig := s.post(store.NewPost{Author: bob, Content: "to repost"})
			return store.NewPost{Author: alice, RepostOf: orig.ID, IdempotencyKey: key}
		}},
	} {
		// One without faults, to count its round trips.
		faults.count()
		if _, err := s.Create(faults.marked(s.ctx), kind.post(kind.name)); err != nil {
			t.Fatal(err)
		}
		trips := faults.counted()
		t.Logf("a %s makes %d round trips:\n%s", kind.name, len(trips), strings.Join(trips, "\n"))
		written++
		// Every round trip of a post; of a comment or a repost, those from
		// the claim to the last write and the one after (the reads before
		// and the notifications after are the post's).
		from, to := 1, len(trips)
		if kind.name != "post" {
			from, to = 0, 0
			for i, l := range trips {
				if strings.Contains(l, "idem:") {
					from, to = cmp.Or(from, i+1), min(len(trips), i+2)
				}
			}
		}
		for at := from; at <= to; at++ {
			for _, mode := range modes {
				if mode == killed && kind.name != "post" {
					continue
				}
				what := fmt.Sprintf("%s, round trip %d, %s", kind.name, at, mode)
				np := kind.post(what)
				down := 200 * time.Millisecond
				if mode == killed {
					// Longer than go-redis's dial retries (5, 100 ms apart)
					// take on a busy machine: at 1 s a retry once reached
					// the Redis started again, and the attempt met no fault.
					down = 3 * time.Second
				}
				faults.arm(at, mode, down)
				first, err := s.Create(faults.marked(s.ctx), np)
				if err != nil && !errors.Is(err, store.ErrUnavailable) {
					t.Fatalf("%s: the faulty attempt answers %v, want 503 or its post", what, err)
				}
				back := faults.waitBack()
				if mode == killed && err == nil {
					t.Fatalf("%s: the attempt did not meet the dead Redis", what)
				}
				p := retryUntilServed(t, s, np, back, what)
				if err == nil && p.ID != first.ID {
					t.Fatalf("%s: the retry made %d beside the acknowledged %d", what, p.ID, first.ID)
				}
				// What the failed attempt still does once Redis is back (see
				// settle) is done by now, and changes nothing for its retries.
				time.Sleep(time.Until(back.Add(600 * time.Millisecond)))
				written++
				if got := s.dmsOf(alice); len(got) != written {
					t.Fatalf("%s: alice has messages %v, want %d", what, got, written)
				}
				if again := s.post(np); again.ID != p.ID {
					t.Fatalf("%s: the next retry made %d, want %d", what, again.ID, p.ID)
				}
			}
		}
	}
	s.checkCounts(alice)
	for _, mid := range seen() {
		if _, err := s.Post(s.ctx, mid, alice); err != nil {
			t.Errorf("message %d was shown live but is not stored: %v", mid, err)
		}
	}
}

// serverLikeClient is a client of b as the server's: on one Redis it never
// sends a command again (a fault test's command must meet its fault once).
func serverLikeClient(t *testing.T, b *storetest.Backend) redis.UniversalClient {
	if b.Single == nil {
		return b.Client()
	}
	rdb := redis.NewClient(&redis.Options{Addr: b.Single.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// retryUntilServed retries np, as a client would after a 503, from when
// Redis is back, until it is served; it fails the test if a retry is
// refused for more than a moment after that.
func retryUntilServed(t *testing.T, s testStore, np store.NewPost, back time.Time, what string) store.Post {
	t.Helper()
	for {
		p, err := s.Create(s.ctx, np)
		if err == nil {
			if late := time.Since(back); late > 100*time.Millisecond {
				t.Logf("%s: served %v after Redis was back", what, late.Round(time.Millisecond))
			}
			return p
		}
		if !errors.Is(err, store.ErrInProgress) {
			t.Fatalf("%s: a retry once Redis is back answers %v", what, err)
		}
		// Well short of the claim's TTL, which a claim nothing released
		// would hold (a busy machine may take a second or more to answer).
		if late := time.Since(back); late > schema.ClaimTTL/2 {
			t.Fatalf("%s: retries still refused as in progress %v after Redis was back", what, late)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// subscribePosts listens to channels on a client of its own (no faults) and
// returns what lists the ids of the posts and comments published on them so
// far.
func subscribePosts(t *testing.T, b *storetest.Backend, channels ...string) func() []int64 {
	t.Helper()
	return subscribeEvents(t, b, []string{store.EventPost, store.EventComment}, channels...)
}

// subscribeEvents is subscribePosts for the events named.
func subscribeEvents(t *testing.T, b *storetest.Backend, events []string, channels ...string) func() []int64 {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var ids []int64
	for _, channel := range channels { // one subscription each: on a cluster they are on different nodes
		var sub *redis.PubSub
		if b.Cluster != nil {
			cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{b.Cluster.Masters[0].Addr()}})
			t.Cleanup(func() { cc.Close() })
			sub = cc.SSubscribe(ctx, channel)
		} else {
			rdb := redis.NewClient(&redis.Options{Addr: b.Single.Addr()})
			t.Cleanup(func() { rdb.Close() })
			sub = rdb.Subscribe(ctx, channel)
		}
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatalf("subscribe %s: %v", channel, err)
		}
		t.Cleanup(func() { sub.Close() })
		go func() {
			for m := range sub.Channel() {
				var f struct {
					Event string `json:"event"`
					Data  struct {
						ID int64 `json:"id"`
					} `json:"data"`
				}
				if json.Unmarshal([]byte(m.Payload), &f) == nil && slices.Contains(events, f.Event) {
					mu.Lock()
					ids = append(ids, f.Data.ID)
					mu.Unlock()
				}
			}
		}()
	}
	return func() []int64 {
		time.Sleep(100 * time.Millisecond) // what was published has arrived
		mu.Lock()
		defer mu.Unlock()
		return append([]int64(nil), ids...)
	}
}

// faultHook takes Redis away for a client. Armed, it counts the round trips
// (a command sent alone, a pipeline, a transaction) made under a context
// from marked; at the at-th it fails that one, unsent or with its reply
// lost, and then fails every round trip of the client, unsent, for down;
// or it kills Redis for down (kill) and sends that round trip to the dead
// server.
type faultHook struct {
	mu       sync.Mutex
	counting bool
	n, at    int
	trips    []string
	mode     faultMode
	// kill kills Redis and starts it again after down; ready waits until
	// it answers.
	kill  func(down time.Duration)
	ready func()
	down  time.Duration
	until time.Time
}

type faultMark struct{}

// marked is ctx with the mark of the requests whose round trips count.
func (h *faultHook) marked(ctx context.Context) context.Context {
	return context.WithValue(ctx, faultMark{}, true)
}

// count counts every round trip from now on, with no fault.
func (h *faultHook) count() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.counting, h.n, h.at, h.trips = true, 0, 0, nil
}

// counted lists the round trips counted, each by its commands' names, and
// stops counting.
func (h *faultHook) counted() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.counting = false
	return h.trips
}

// label names a round trip by its commands (and a script call by its first key).
func label(cmds []redis.Cmder) string {
	var names []string
	for _, c := range cmds {
		name := c.Name()
		if (name == "evalsha" || name == "eval") && len(c.Args()) > 3 {
			name = fmt.Sprint("script(", c.Args()[3], ")")
		}
		names = append(names, name)
	}
	return strings.Join(names, " ")
}

// faultMode is what a faultHook does at its round trip.
type faultMode int

const (
	unsent    faultMode = iota // the round trip fails unsent
	replyLost                  // it runs, and its reply is lost
	killed                     // Redis is killed first
	// died is the client's process dying after the round trip: it runs,
	// its reply is lost, and the client sends nothing more while down.
	died
)

func (m faultMode) String() string {
	return [...]string{"unsent", "reply lost", "Redis killed", "process died"}[m]
}

// killing makes the hook's killed mode kill r (SIGKILL) and start it again
// on its data. A test that ends while r is down waits for it to be back
// before r's folder goes (a restart after that failed the finished test).
func (h *faultHook) killing(t testing.TB, r *storetest.Redis) {
	var restarts sync.WaitGroup
	t.Cleanup(restarts.Wait)
	h.kill = func(down time.Duration) { r.Stop(); restarts.Go(func() { r.RestartAfter(down) }) }
	h.ready = func() {
		c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
		defer c.Close()
		for c.Ping(context.Background()).Err() != nil {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func (h *faultHook) arm(at int, mode faultMode, down time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.counting, h.n, h.at, h.mode, h.down, h.until = false, 0, at, mode, down, time.Time{}
}

// disarm takes back a fault armed and not come yet: a step the code under
// test left to a goroutine of its own (still under the marked context) may
// take the armed round trip's number after the trigger returned, and its
// fault then struck the steps that follow instead (Redis killed while the
// survivor posted, in a loaded make test).
func (h *faultHook) disarm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.counting {
		h.at = 0
	}
}

// waitBack waits until Redis is back and returns when it came back.
func (h *faultHook) waitBack() time.Time {
	h.mu.Lock()
	until := h.until
	h.mu.Unlock()
	time.Sleep(time.Until(until))
	if h.mode == killed {
		h.ready()
		return time.Now()
	}
	return until
}

// fault tells what to do with one round trip: fail it unsent (down), or
// send it and lose its reply (lose).
func (h *faultHook) fault(ctx context.Context, cmds []redis.Cmder) (down, lose bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Now().Before(h.until) && h.mode != killed {
		return true, false
	}
	if ctx.Value(faultMark{}) == nil || (!h.counting && h.at == 0) {
		return false, false
	}
	if !slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return !opensConn(c) }) {
		// A new connection's opening (HELLO, CLIENT SETINFO), sent when
		// the pool had no idle one: a step of the load, not of the code
		// under test, so it is neither counted nor failed (a busy machine
		// made the steps of one run differ from the next).
		return false, false
	}
	h.n++
	if h.counting {
		h.trips = append(h.trips, label(cmds))
	}
	if h.counting || h.n != h.at {
		return false, false
	}
	h.at, h.until = 0, time.Now().Add(h.down)
	if h.mode == killed {
		h.kill(h.down)
	}
	return h.mode == unsent, h.mode == replyLost || h.mode == died
}

var errRedisGone = fmt.Errorf("connection lost (test): %w", io.EOF)

func (*faultHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *faultHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return h.run(ctx, []redis.Cmder{cmd}, func() error { return next(ctx, cmd) })
	}
}

func (h *faultHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return h.run(ctx, cmds, func() error { return next(ctx, cmds) })
	}
}

func (h *faultHook) run(ctx context.Context, cmds []redis.Cmder, send func() error) error {
	down, lose := h.fault(ctx, cmds)
	if !down && !lose {
		return send()
	}
	if lose {
		send()
	}
	for _, c := range cmds {
		c.SetErr(errRedisGone)
	}
	return errRedisGone
}

// TestCheckerRemovesWriteThatLostItsKey: a write that lands after its
// request gave up and gave its Idempotency-Key back, when the retry holds
// the key by now, is a second post; the checker takes it out (it was never
// shown live: its finish found the retry's claim), and leaves alone a post
// that holds its key, or whose key has expired.
func TestCheckerRemovesWriteThatLostItsKey(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	late := s.post(store.NewPost{Author: alice, Content: "landed late", IdempotencyKey: "late"})
	kept := s.post(store.NewPost{Author: alice, Content: "stands", IdempotencyKey: "kept"})
	expired := s.post(store.NewPost{Author: alice, Content: "key expired", IdempotencyKey: "expired"})
	lateKey := s.keys.Idempotency(alice, store.TokenHash("late"))
	retry := schema.ClaimValue("the-retry", "its-hash")
	s.rdb.Set(s.ctx, lateKey, retry, schema.ClaimTTL)
	s.rdb.Del(s.ctx, s.keys.Idempotency(alice, store.TokenHash("expired")))

	n, err := runner.NewChecker(s.Store, runner.CheckerOptions{Grace: time.Nanosecond}).Check(s.ctx)
	if err != nil || n != 1 {
		t.Fatalf("the checker made %d repairs (%v), want 1", n, err)
	}
	if got := s.dmsOf(alice); !slices.Equal(got, []int64{kept.ID, expired.ID}) && !slices.Equal(got, []int64{expired.ID, kept.ID}) {
		t.Fatalf("alice has messages %v, want %d and %d (not %d)", got, kept.ID, expired.ID, late.ID)
	}
	if v := s.rdb.Get(s.ctx, lateKey).Val(); v != retry {
		t.Fatalf("the retry's claim became %q", v)
	}
	s.checkCounts(alice, kept.ID, expired.ID)
}

// TestWriteReplyLostOnTheWire: the connection is cut after the transaction
// that writes a post reached Redis, its reply lost (go-redis not sending it
// again): the request answers 503 though its post was written whole and
// shown live. The post stays, and the retry with the same key gets it; the
// key is not given back, so no retry makes a second one.
func TestWriteReplyLostOnTheWire(t *testing.T) {
	parallel(t)
	r := storetest.Start(t)
	proxy := newLossyProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: proxy.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")
	seen := subscribePosts(t, storetest.SingleBackend(t, r), s.keys.AuthorChannel(alice))

	np := store.NewPost{Author: alice, Content: "written, unanswered", IdempotencyKey: "k"}
	proxy.loseReplyTo(containing("\r\nexec\r\n"))
	if _, err := s.Create(s.ctx, np); !errors.Is(err, store.ErrUnavailable) || proxy.lost.Load() != 1 {
		t.Fatalf("the write whose reply was lost answers %v (%d replies lost), want 503", err, proxy.lost.Load())
	}
	time.Sleep(200 * time.Millisecond) // the failed request settles
	p := s.post(np)
	if got := s.dmsOf(alice); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("alice has messages %v, want the one %d", got, p.ID)
	}
	if live := seen(); !slices.Equal(live, []int64{p.ID}) {
		t.Fatalf("the live feed showed %v, want %d once", live, p.ID)
	}
	s.checkCounts(alice)
}

// TestDMFaultAtEveryRoundTrip is TestPostFaultAtEveryRoundTrip's
// fault for a private message: Redis away at each round trip of a message
// sent with an Idempotency-Key; the retry once Redis is back is served
// within moments, and the conversation holds the message once.
func TestDMFaultAtEveryRoundTrip(t *testing.T) {
	parallel(t)
	b := storetest.NewBackend(t)
	rdb := b.Client()
	faults := &faultHook{}
	rdb.AddHook(faults)
	s := newTestStoreOn(t, rdb, Options{})
	alice, bob := s.user("alice"), s.user("bob")
	send := func(ctx context.Context, key string) (store.DM, error) {
		return s.SendDM(ctx, store.NewDM{From: alice, To: bob, Content: "sent " + key, IdempotencyKey: key})
	}
	faults.count()
	if _, err := send(faults.marked(s.ctx), "counted"); err != nil {
		t.Fatal(err)
	}
	trips := faults.counted()
	sent := 1
	for at := 1; at <= len(trips); at++ {
		for _, mode := range []faultMode{unsent, replyLost} {
			what := fmt.Sprintf("round trip %d (%s), %s", at, trips[at-1], mode)
			faults.arm(at, mode, 200*time.Millisecond)
			first, err := send(faults.marked(s.ctx), what)
			if err != nil && !errors.Is(err, store.ErrUnavailable) {
				t.Fatalf("%s: the faulty attempt answers %v", what, err)
			}
			back := faults.waitBack()
			var m store.DM
			for {
				if m, err = send(s.ctx, what); !errors.Is(err, store.ErrInProgress) {
					break
				}
				if time.Since(back) > schema.ClaimTTL/2 { // as above
					t.Fatalf("%s: retries still refused as in progress %v after Redis was back", what, time.Since(back))
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil || (first.ID != 0 && m.ID != first.ID) {
				t.Fatalf("%s: the retry answers %d, %v (the attempt %d)", what, m.ID, err, first.ID)
			}
			time.Sleep(time.Until(back.Add(600 * time.Millisecond)))
			sent++
			page, err := s.ConversationDMs(s.ctx, alice, bob, store.PageQuery{Limit: 100, Viewer: alice})
			if err != nil || len(page.Items) != sent {
				t.Fatalf("%s: the conversation holds %d messages (%v), want %d", what, len(page.Items), err, sent)
			}
			if again, err := send(s.ctx, what); err != nil || again.ID != m.ID {
				t.Fatalf("%s: the next retry answers %d, %v; want %d", what, again.ID, err, m.ID)
			}
		}
	}
}
