package hub_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"sync"
	"time"

	"microblog/store"
)

// fakeBroker is an in-memory Broker, after centrifuge's MemoryBroker: it
// remembers the subscribed topics and hands what a test publishes to the hub
// when the topic is subscribed and the "connection" is up. Tests make it
// break and come back, stall its Subscribe and fail its Sync.
type fakeBroker struct {
	h store.SubscriberHandler // the hub; set before the first publish

	// reader makes calls into the hub one at a time, as pubsub.Subscriber
	// does.
	reader sync.Mutex

	mu       sync.Mutex
	topics   map[store.Topic]bool
	gap      chan struct{}                   // non-nil while the connection is broken; closed when it is back
	stall    chan struct{}                   // non-nil: Subscribe waits until it is closed
	syncHook func(ctx context.Context) error // replaces Sync when set
}

func newFakeBroker() *fakeBroker {
	return &fakeBroker{topics: make(map[store.Topic]bool)}
}

// Subscribe records topics at once, like pubsub.Subscriber, which subscribes
// remembered topics on reconnection even when the command failed.
func (b *fakeBroker) Subscribe(ctx context.Context, topics ...store.Topic) error {
	b.mu.Lock()
	for _, t := range topics {
		b.topics[t] = true
	}
	stall := b.stall
	b.mu.Unlock()
	if stall == nil {
		return nil
	}
	select {
	case <-stall:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *fakeBroker) Unsubscribe(ctx context.Context, topics ...store.Topic) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range topics {
		delete(b.topics, t)
	}
	return nil
}

// Sync returns at once while the connection is up. During a gap it waits
// for the gap to end and then reports it, as a barrier whose PING went down
// with the connection does.
func (b *fakeBroker) Sync(ctx context.Context) error {
	b.mu.Lock()
	gap, hook := b.gap, b.syncHook
	b.mu.Unlock()
	switch {
	case hook != nil:
		return hook(ctx)
	case gap == nil:
		return nil
	}
	select {
	case <-gap:
		return store.ErrSubscriberGap
	case <-ctx.Done():
		return ctx.Err()
	}
}

// publish sends one frame on t as the store does; it is lost when t is not
// subscribed or the connection is broken.
func (b *fakeBroker) publish(t store.Topic, event string, data any) {
	b.publishFrame(t, frame(event, data))
}

// frame encodes an event as the store publishes it.
func frame(event string, data any) []byte {
	raw, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	payload, err := json.Marshal(store.Frame{Event: event, Data: raw})
	if err != nil {
		panic(err)
	}
	return payload
}

// publishFrame is publish for a frame encoded beforehand. The hub gets its
// own copy, as it would from Redis.
func (b *fakeBroker) publishFrame(t store.Topic, payload []byte) {
	payload = bytes.Clone(payload)
	b.reader.Lock()
	defer b.reader.Unlock()
	b.mu.Lock()
	up := b.topics[t] && b.gap == nil
	b.mu.Unlock()
	if up {
		b.h.Deliver(t, payload)
	}
}

// subscribed lists the topics subscribed now.
func (b *fakeBroker) subscribed() []store.Topic {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ts []store.Topic
	for t := range b.topics {
		ts = append(ts, t)
	}
	return ts
}

// interrupt breaks the connection: what is published from now on is lost.
func (b *fakeBroker) interrupt() {
	b.mu.Lock()
	b.gap = make(chan struct{})
	b.mu.Unlock()
	b.reader.Lock()
	defer b.reader.Unlock()
	b.h.Interrupted()
}

// resubscribe ends the gap with every topic subscribed again.
func (b *fakeBroker) resubscribe() {
	b.mu.Lock()
	close(b.gap)
	b.gap = nil
	b.mu.Unlock()
	b.reader.Lock()
	defer b.reader.Unlock()
	b.h.Resubscribed()
}

// stallSubscribe makes every Subscribe wait until the returned func is called.
func (b *fakeBroker) stallSubscribe() (release func()) {
	ch := make(chan struct{})
	b.mu.Lock()
	b.stall = ch
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.stall = nil
		b.mu.Unlock()
		close(ch)
	}
}

// onSync replaces Sync with f; nil restores it.
func (b *fakeBroker) onSync(f func(ctx context.Context) error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.syncHook = f
}

// fakeTimeline is an in-memory Timeline: who follows whom, each user's
// home timeline and lens. A test can hold one call of a method for a user,
// or make it fail.
type fakeTimeline struct {
	mu     sync.Mutex
	stars  map[int64]map[int64]bool // fan → stars
	home   map[int64][]store.Post   // user → posts, oldest first
	lenses map[int64]*store.Lens    // user → what it may see; none: an empty lens
	tags   map[int64][]string       // user → followed topics' keys
	lastID int64
	gates  map[gateKey]*gate
	fails  map[gateKey]error // the next call fails with this error

	// messages are each user's private messages, oldest first, whose ids
	// come from lastMessageID (fake_dm_test.go).
	messages      map[int64][]store.DM
	lastMessageID int64
}

type gateKey struct {
	method string
	uid    int64
}

// gate holds one call: entered is closed when the call arrives. A call held
// by hold reads the timeline only once open is called; one held by
// holdAnswer reads it at once and answers only once open is called, so its
// answer is older than whatever the test changes meanwhile.
type gate struct {
	entered, released chan struct{}
	answerHeld        bool
	pastCancel        bool // waits for open even when the call's context ends
}

func (g *gate) open() { close(g.released) }

// wait closes entered and returns once the gate is open or ctx ends.
func (g *gate) wait(ctx context.Context) error {
	close(g.entered)
	if g.pastCancel {
		<-g.released
		return nil
	}
	select {
	case <-g.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func newFakeTimeline() *fakeTimeline {
	return &fakeTimeline{
		stars:  make(map[int64]map[int64]bool),
		home:   make(map[int64][]store.Post),
		lenses: make(map[int64]*store.Lens),
		gates:  make(map[gateKey]*gate),
		fails:  make(map[gateKey]error),
	}
}

// fail makes the next call of method for uid fail with err.
func (tl *fakeTimeline) fail(method string, uid int64, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.fails[gateKey{method, uid}] = err
}

// hold makes the next call of method ("Stars", "HomeSince", "Lens") for
// uid wait at its gate before it reads the timeline.
func (tl *fakeTimeline) hold(method string, uid int64) *gate {
	return tl.setGate(method, uid, false)
}

// holdAnswer makes the next call of method for uid read the timeline at
// once and wait at its gate before it answers.
func (tl *fakeTimeline) holdAnswer(method string, uid int64) *gate {
	return tl.setGate(method, uid, true)
}

// holdPastCancel is hold for a call that goes on when its context ends,
// as a Redis reply already on its way does.
func (tl *fakeTimeline) holdPastCancel(method string, uid int64) *gate {
	g := tl.setGate(method, uid, false)
	g.pastCancel = true
	return g
}

func (tl *fakeTimeline) setGate(method string, uid int64, answerHeld bool) *gate {
	g := &gate{entered: make(chan struct{}), released: make(chan struct{}), answerHeld: answerHeld}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.gates[gateKey{method, uid}] = g
	return g
}

// call answers one call of method for uid with read, run under tl.mu, and
// waits at the gate set for this call, if any, before or after reading; or
// fails it, if fail asked for that.
func call[T any](ctx context.Context, tl *fakeTimeline, method string, uid int64, read func() T) (T, error) {
	key := gateKey{method, uid}
	tl.mu.Lock()
	g, err := tl.gates[key], tl.fails[key]
	delete(tl.gates, key)
	delete(tl.fails, key)
	tl.mu.Unlock()
	var zero T
	if err != nil {
		return zero, err
	}
	if g != nil && !g.answerHeld {
		if err := g.wait(ctx); err != nil {
			return zero, err
		}
	}
	tl.mu.Lock()
	out := read()
	tl.mu.Unlock()
	if g != nil && g.answerHeld {
		if err := g.wait(ctx); err != nil {
			return zero, err
		}
	}
	return out, nil
}

// follow records that fan follows star, without any event: a snapshot the
// hub reads later sees it.
func (tl *fakeTimeline) follow(fan, star int64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.stars[fan] == nil {
		tl.stars[fan] = make(map[int64]bool)
	}
	tl.stars[fan][star] = true
}

// add writes a new post to its author's home timeline and its fans', as
// the store does before publishing it.
func (tl *fakeTimeline) add(author int64, content string) store.Post {
	return tl.addPost(store.Post{Author: store.Author{ID: author}, Content: content})
}

// addPost is add for a post made by the caller (a repost, a protected
// author's post); it gets the next id, and now as its created_at unless
// it has one.
func (tl *fakeTimeline) addPost(p store.Post) store.Post {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.lastID++
	p.ID = tl.lastID
	return tl.placeLocked(p)
}

// claim draws the next id for a post written late (addClaimed), as a post
// whose write waits on a failing master: newer posts stand before it.
func (tl *fakeTimeline) claim(author int64) store.Post {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.lastID++
	return store.Post{ID: tl.lastID, Author: store.Author{ID: author}, Content: "late",
		CreatedAt: store.Time(time.Now().UnixMilli())}
}

// addClaimed makes a claimed post stand, in id order among its timelines'.
func (tl *fakeTimeline) addClaimed(p store.Post) store.Post {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.placeLocked(p)
}

func (tl *fakeTimeline) placeLocked(p store.Post) store.Post {
	p.Kind = store.KindPost
	if p.CreatedAt == 0 {
		p.CreatedAt = store.Time(time.Now().UnixMilli())
	}
	author := p.Author.ID
	insert := func(uid int64) {
		h := tl.home[uid]
		i, _ := slices.BinarySearchFunc(h, p.ID, func(q store.Post, id int64) int { return cmp.Compare(q.ID, id) })
		tl.home[uid] = slices.Insert(h, i, p)
	}
	insert(author)
	for fan, stars := range tl.stars {
		if stars[author] && fan != author {
			insert(fan)
		}
	}
	return p
}

// setLens makes l what uid may see, without any event: a read of uid's
// lens from now on finds it.
func (tl *fakeTimeline) setLens(uid int64, l *store.Lens) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.lenses[uid] = l
}

// Lens returns what setLens made uid's lens, or an empty one.
func (tl *fakeTimeline) Lens(ctx context.Context, uid int64) (*store.Lens, error) {
	return call(ctx, tl, "Lens", uid, func() *store.Lens {
		if l := tl.lenses[uid]; l != nil {
			return l
		}
		return &store.Lens{Viewer: uid}
	})
}

// TagKeys returns uid's followed topics.
func (tl *fakeTimeline) TagKeys(ctx context.Context, uid int64) ([]string, error) {
	return call(ctx, tl, "TagKeys", uid, func() []string { return slices.Clone(tl.tags[uid]) })
}

func (tl *fakeTimeline) Stars(ctx context.Context, uid int64) ([]int64, error) {
	return call(ctx, tl, "Stars", uid, func() []int64 {
		var out []int64
		for s := range tl.stars[uid] {
			out = append(out, s)
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	})
}

// HomeSince returns the newest max posts after the id, oldest first, as
// store.Store does.
func (tl *fakeTimeline) HomeSince(ctx context.Context, uid, after int64, max int, skip []int64) ([]store.Post, error) {
	return call(ctx, tl, "HomeSince", uid, func() []store.Post {
		var out []store.Post
		for _, p := range tl.home[uid] {
			if p.ID > after && !slices.Contains(skip, p.ID) {
				out = append(out, p)
			}
		}
		return out[len(out)-min(max, len(out)):]
	})
}

// HomeSinceLast is HomeSince and the newest id, read at once as store.Store
// does; it waits at HomeSince's gate, since it reads what HomeSince reads.
func (tl *fakeTimeline) HomeSinceLast(ctx context.Context, uid, after int64, max int, skip []int64) ([]store.Post, int64, error) {
	type both struct {
		posts []store.Post
		last  int64
	}
	got, err := call(ctx, tl, "HomeSince", uid, func() both {
		var b both
		h := tl.home[uid]
		for _, p := range h {
			if p.ID > after && !slices.Contains(skip, p.ID) {
				b.posts = append(b.posts, p)
			}
		}
		b.posts = b.posts[len(b.posts)-min(max, len(b.posts)):]
		if len(h) > 0 {
			b.last = h[len(h)-1].ID
		}
		return b
	})
	return got.posts, got.last, err
}
