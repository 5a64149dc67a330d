package pubsub

import (
	"context"
	"strconv"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb"
	"microblog/store/storetest"
)

// recorder is a SubscriberHandler that hands what it gets to the test.
type recorder struct {
	msgs  chan delivered
	resub chan struct{}
}

type delivered struct {
	topic   store.Topic
	payload string
}

func newRecorder() *recorder {
	return &recorder{msgs: make(chan delivered, 100), resub: make(chan struct{}, 10)}
}

func (r *recorder) Deliver(t store.Topic, payload []byte) { r.msgs <- delivered{t, string(payload)} }
func (r *recorder) Resubscribed()                         { r.resub <- struct{}{} }
func (r *recorder) Interrupted()                          {}

func (r *recorder) next(t *testing.T) delivered {
	t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(waitLimit):
		t.Fatalf("no message delivered within %v", waitLimit)
		return delivered{}
	}
}

func (r *recorder) waitResubscribed(t *testing.T) {
	t.Helper()
	select {
	case <-r.resub:
	case <-time.After(waitLimit):
		t.Fatalf("the subscriber did not report resubscribing within %v", waitLimit)
	}
}

// waitLimit bounds the waits for what must come: a deadline against a
// hang, far above what a busy machine needs (a cold build of the whole
// suite beside this test once took more than 5 s to resubscribe).
const waitLimit = time.Minute

// startSubscriber runs a subscriber of a fresh redis-server until the test ends.
func startSubscriber(t *testing.T) (*storetest.Redis, *redisdb.Store, *Subscriber, *recorder) {
	t.Helper()
	r := storetest.Start(t)
	st := redisdb.New(r.Client(), redisdb.Options{Prefix: "t:", BcryptCost: 4})
	sub := New(st.Client(), st.Keys())
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sub.Run(ctx, rec) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, st, sub, rec
}

func subscribe(t *testing.T, sub *Subscriber, topics ...store.Topic) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := sub.Subscribe(ctx, topics...); err != nil {
		t.Fatal(err)
	}
	if err := sub.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSubscriberDeliversByTopic(t *testing.T) {
	r, st, sub, rec := startSubscriber(t)
	subscribe(t, sub, store.AuthorTopic(7), store.NotifyTopic(7), store.AuthorTopic(8))
	c, ctx := r.Client(), context.Background()
	if got := st.Keys().AuthorChannel(7); got != "t:author:7" {
		t.Fatalf("channel name %q", got)
	}
	c.Publish(ctx, "t:author:7", "a7")
	c.Publish(ctx, "t:notify:7", "n7")
	c.Publish(ctx, "t:author:9", "nobody listens")
	c.Publish(ctx, "t:author:8", "a8")
	want := []delivered{{store.AuthorTopic(7), "a7"}, {store.NotifyTopic(7), "n7"}, {store.AuthorTopic(8), "a8"}}
	for _, w := range want {
		if got := rec.next(t); got != w {
			t.Fatalf("got %+v, want %+v", got, w)
		}
	}

	ctx2, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	if err := sub.Unsubscribe(ctx2, store.AuthorTopic(8)); err != nil {
		t.Fatal(err)
	}
	if err := sub.Sync(ctx2); err != nil {
		t.Fatal(err)
	}
	c.Publish(ctx, "t:author:8", "after unsubscribe")
	c.Publish(ctx, "t:author:7", "marker")
	if got := rec.next(t); got.payload != "marker" {
		t.Fatalf("got %+v after unsubscribing author 8, want only the marker", got)
	}
}

// TestSubscriberSyncMeansSubscribed checks the barrier: once Sync returns,
// a message published from another connection is delivered.
func TestSubscriberSyncMeansSubscribed(t *testing.T) {
	r, _, sub, rec := startSubscriber(t)
	c, ctx := r.Client(), context.Background()
	for i := int64(1); i <= 50; i++ {
		subscribe(t, sub, store.AuthorTopic(i))
		if n := c.Publish(ctx, "t:author:"+strconv.FormatInt(i, 10), "x").Val(); n != 1 {
			t.Fatalf("topic %d: %d receivers right after Sync, want 1", i, n)
		}
		if got := rec.next(t); got.topic != store.AuthorTopic(i) {
			t.Fatalf("got %+v", got)
		}
	}
}

func TestSubscriberNoticesKilledConnection(t *testing.T) {
	r, _, sub, rec := startSubscriber(t)
	subscribe(t, sub, store.AuthorTopic(1))
	c, ctx := r.Client(), context.Background()
	if n := c.ClientKillByFilter(ctx, "TYPE", "pubsub").Val(); n != 1 {
		t.Fatalf("killed %d pubsub connections, want 1", n)
	}
	rec.waitResubscribed(t)
	if n := c.Publish(ctx, "t:author:1", "back").Val(); n != 1 {
		t.Fatalf("%d receivers after resubscribing, want 1", n)
	}
	if got := rec.next(t); got.payload != "back" {
		t.Fatalf("got %+v", got)
	}
}

func TestSubscriberSurvivesRedisRestart(t *testing.T) {
	r, _, sub, rec := startSubscriber(t)
	subscribe(t, sub, store.NotifyTopic(3))
	r.Restart()
	rec.waitResubscribed(t)
	c, ctx := r.Client(), context.Background()
	if n := c.Publish(ctx, "t:notify:3", "back").Val(); n != 1 {
		t.Fatalf("%d receivers after the restart, want 1", n)
	}
	if got := rec.next(t); got.payload != "back" {
		t.Fatalf("got %+v", got)
	}
	// Topics subscribed while Redis is back work as before.
	subscribe(t, sub, store.NotifyTopic(4))
	c.Publish(ctx, "t:notify:4", "new")
	if got := rec.next(t); got != (delivered{store.NotifyTopic(4), "new"}) {
		t.Fatalf("got %+v", got)
	}
}

func TestSubscriberHealthPingReplacesDeadConnection(t *testing.T) {
	r := storetest.Start(t)
	st := redisdb.New(r.Client(), redisdb.Options{BcryptCost: 4})
	sub := New(st.Client(), st.Keys())
	sub.HealthInterval = 100 * time.Millisecond
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sub.Run(ctx, rec) }()
	defer func() { cancel(); <-done }()
	subscribe(t, sub, store.AuthorTopic(1))
	// A paused Redis answers nothing: the health ping goes unanswered, the
	// subscriber gives the connection up and resubscribes once Redis is back.
	c := r.Client()
	if err := c.Do(context.Background(), "CLIENT", "PAUSE", "400", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	rec.waitResubscribed(t)
	c.Publish(context.Background(), "author:1", "alive")
	if got := rec.next(t); got.payload != "alive" {
		t.Fatalf("got %+v", got)
	}
}

func TestSubscriberStopsWithContext(t *testing.T) {
	r := storetest.Start(t)
	st := redisdb.New(r.Client(), redisdb.Options{BcryptCost: 4})
	sub := New(st.Client(), st.Keys())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sub.Run(ctx, newRecorder()) }()
	subscribe(t, sub, store.AuthorTopic(1))
	cancel()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after its context ended")
	}
	if err := sub.Subscribe(context.Background(), store.AuthorTopic(2)); err == nil {
		t.Fatal("Subscribe after Run ended succeeded")
	}
}
