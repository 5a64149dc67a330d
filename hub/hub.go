// Package hub is the live feed's fan-out: it keeps this process's WebSocket
// connections, subscribes (reference-counted, per user) to the live topics
// they need on the process's one subscriber connection, and forwards each
// event to every local connection that wants it, encoded once.
//
// The hub knows topics, not Redis: the Broker (store.Subscriber) turns them
// into channels and calls back Deliver and Resubscribed; the Timeline
// (store.Store) answers the reads needed to replay what a client missed.
package hub

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"microblog/store"
)

// Broker is the process's one connection to the event bus.
type Broker interface {
	// Subscribe and Unsubscribe change the topics delivered to the hub.
	Subscribe(ctx context.Context, topics ...store.Topic) error
	Unsubscribe(ctx context.Context, topics ...store.Topic) error
	// Sync returns once every earlier Subscribe is in force.
	Sync(ctx context.Context) error
}

// Timeline is what the hub reads from the store.
type Timeline interface {
	Stars(ctx context.Context, uid int64) ([]int64, error)
	HomeSince(ctx context.Context, uid, after int64, max int) ([]store.Post, error)
	LastID(ctx context.Context, uid int64) (int64, error)
}

// ErrClosed is returned for a connection that arrives after Shutdown began.
var ErrClosed = errors.New("hub: shut down")

// Hub is one process's live fan-out. It implements store.SubscriberHandler.
type Hub struct {
	broker Broker
	tl     Timeline
	opt    Options
	log    *slog.Logger
	m      *metrics

	// mu guards users, topics, conns and closed. Fan-out holds it for
	// reading; joining, leaving and (un)following hold it for writing.
	mu     sync.RWMutex
	users  map[int64]*user
	topics map[store.Topic]*topic
	conns  map[*Conn]struct{}
	closed bool

	// subMu serialises every change of the Redis subscriptions together with
	// the bookkeeping that decides it, so that a topic's SUBSCRIBE is written
	// before any later Sync that relies on it. Never held across a Sync.
	subMu sync.Mutex

	// control applies the internal stars events in order on its own
	// goroutine, so that the broker's reader never waits on Redis.
	control *controlQueue
	// gen counts the gaps of the subscriber connection; a connection that
	// was starting during one catches up once it is live.
	gen atomic.Int64
	// breaks counts the subscriber connection's breaks as they are noticed:
	// a catch-up that raced a newer break keeps the connection's gap mark.
	breaks atomic.Int64
	// resyncing and resyncAgain coalesce overlapping gap recoveries.
	resyncMu    sync.Mutex
	resyncing   bool
	resyncAgain bool

	stop context.CancelFunc
	ctx  context.Context // ends at Shutdown; parent of background work
	wg   sync.WaitGroup  // background goroutines and live connections
}

// user is one user with connections in this process. All its connections
// share its topics: notify:<id>, author:<id> and author:<star> per star.
type user struct {
	id    int64
	conns map[*Conn]struct{} // guarded by Hub.mu
	stars map[int64]struct{} // guarded by Hub.mu; the stars whose topics it listens to

	// loaded is closed once the user's topics are subscribed and in force;
	// loadErr says whether that worked. starEvents records the stars events
	// that arrive while loading (nil after), which win over the snapshot.
	loaded     chan struct{}
	loadErr    error
	starEvents map[int64]bool // guarded by Hub.mu
}

// topic is one subscribed topic and the local users listening to it.
type topic struct {
	users  map[*user]struct{}
	linger *time.Timer // pending unsubscribe while no one listens
}

// New returns a hub on broker and tl. Call Shutdown to close it.
func New(broker Broker, tl Timeline, opt Options) *Hub {
	opt.setDefaults()
	ctx, stop := context.WithCancel(context.Background())
	h := &Hub{
		broker:  broker,
		tl:      tl,
		opt:     opt,
		log:     opt.Logger,
		m:       newMetrics(opt.Registerer),
		users:   make(map[int64]*user),
		topics:  make(map[store.Topic]*topic),
		conns:   make(map[*Conn]struct{}),
		control: newControlQueue(),
		ctx:     ctx,
		stop:    stop,
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.control.run(h.ctx)
	}()
	return h
}

// Shutdown closes every connection with 1001 (going away) and waits, until
// ctx ends, for their goroutines and the hub's own to finish.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	for c := range h.conns {
		c.closeWith(closeGoingAway, "server shutting down")
	}
	for _, t := range h.topics {
		if t.linger != nil {
			t.linger.Stop()
		}
	}
	h.mu.Unlock()
	h.stop()
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Connections is the number of open connections.
func (h *Hub) Connections() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.conns)
}

// join adds c to its user, subscribing the user's topics if c is the user's
// first connection here, and returns once they are in force.
func (h *Hub) join(ctx context.Context, c *Conn) error {
	h.mu.Lock()
	u, ok := h.users[c.uid]
	if !ok {
		u = &user{
			id:         c.uid,
			conns:      make(map[*Conn]struct{}),
			stars:      make(map[int64]struct{}),
			loaded:     make(chan struct{}),
			starEvents: make(map[int64]bool),
		}
		h.users[c.uid] = u
	}
	u.conns[c] = struct{}{}
	c.user = u
	h.mu.Unlock()

	if !ok {
		u.loadErr = h.load(ctx, u)
		close(u.loaded)
		return u.loadErr
	}
	select {
	case <-u.loaded:
	case <-ctx.Done():
		return ctx.Err()
	}
	if u.loadErr != nil {
		return u.loadErr
	}
	// The user's topics may have been subscribed by a connection that is
	// itself still waiting for them to be in force.
	return h.sync(ctx)
}

// syncAttempts is how many times a Sync cut short by a break of the
// subscriber connection is tried again: the subscriptions come back with it.
const syncAttempts = 3

// sync waits until the broker's subscriptions are in force.
func (h *Hub) sync(ctx context.Context) error {
	var err error
	for range syncAttempts {
		if err = h.broker.Sync(ctx); !errors.Is(err, store.ErrSubscriberGap) {
			return err
		}
	}
	return err
}

// load subscribes a newly joined user's own topics, then reads its stars and
// subscribes theirs. Its own notify topic comes first so that no follow or
// unfollow can fall between the read and the subscription.
func (h *Hub) load(ctx context.Context, u *user) error {
	err := h.changeTopics(ctx, func() (add, remove []store.Topic) {
		return []store.Topic{store.NotifyTopic(u.id), store.AuthorTopic(u.id)}, nil
	}, u)
	if err == nil {
		err = h.sync(ctx)
	}
	if err != nil {
		return err
	}
	stars, err := h.tl.Stars(ctx, u.id)
	if err != nil {
		return err
	}
	err = h.changeTopics(ctx, func() (add, remove []store.Topic) {
		want := make(map[int64]struct{}, len(stars))
		for _, s := range stars {
			want[s] = struct{}{}
		}
		for s, following := range u.starEvents {
			if following {
				want[s] = struct{}{}
			} else {
				delete(want, s)
			}
		}
		u.starEvents = nil
		return h.diffStarsLocked(u, want)
	}, u)
	if err == nil {
		err = h.sync(ctx)
	}
	return err
}

// diffStarsLocked makes want the user's stars and returns the topics to add
// and remove. The caller holds mu.
func (h *Hub) diffStarsLocked(u *user, want map[int64]struct{}) (add, remove []store.Topic) {
	delete(want, u.id)
	for s := range want {
		if _, ok := u.stars[s]; !ok {
			add = append(add, store.AuthorTopic(s))
		}
	}
	for s := range u.stars {
		if _, ok := want[s]; !ok {
			remove = append(remove, store.AuthorTopic(s))
		}
	}
	u.stars = want
	return add, remove
}

// changeTopics runs decide under subMu and mu, makes u listen to the topics
// it adds and stop listening to those it removes, and subscribes the topics
// that had no listener. Unsubscribing waits for Linger.
func (h *Hub) changeTopics(ctx context.Context, decide func() (add, remove []store.Topic), u *user) error {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.mu.Lock()
	add, remove := decide()
	var fresh []store.Topic
	for _, t := range add {
		tp, ok := h.topics[t]
		if !ok {
			tp = &topic{users: make(map[*user]struct{})}
			h.topics[t] = tp
			fresh = append(fresh, t)
		}
		if tp.linger != nil {
			tp.linger.Stop()
			tp.linger = nil
		}
		tp.users[u] = struct{}{}
	}
	h.removeListenerLocked(u, remove)
	h.m.topics.Set(float64(len(h.topics)))
	h.mu.Unlock()
	return h.broker.Subscribe(ctx, fresh...)
}

// removeListenerLocked takes u off topics and schedules the unsubscribing
// of those left without listeners. The caller holds mu.
func (h *Hub) removeListenerLocked(u *user, topics []store.Topic) {
	for _, t := range topics {
		tp, ok := h.topics[t]
		if !ok {
			continue
		}
		delete(tp.users, u)
		if len(tp.users) == 0 && tp.linger == nil && !h.closed {
			tp.linger = time.AfterFunc(h.opt.Linger, func() { h.expire(t, tp) })
		}
	}
}

// expire unsubscribes a topic that stayed without listeners for Linger.
func (h *Hub) expire(t store.Topic, tp *topic) {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.mu.Lock()
	gone := h.topics[t] == tp && len(tp.users) == 0 && !h.closed
	if gone {
		delete(h.topics, t)
		h.m.topics.Set(float64(len(h.topics)))
	}
	h.mu.Unlock()
	if gone {
		ctx, cancel := context.WithTimeout(h.ctx, h.opt.WriteWait)
		defer cancel()
		if err := h.broker.Unsubscribe(ctx, t); err != nil {
			h.log.Warn("live: unsubscribe", "topic", t.String(), "err", err)
		}
	}
}

// leave removes a closed connection; the user's last one takes the user's
// topics with it.
func (h *Hub) leave(c *Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.conns[c]; !ok {
		return
	}
	delete(h.conns, c)
	h.m.conns.Set(float64(len(h.conns)))
	u := c.user
	if u == nil {
		return
	}
	delete(u.conns, c)
	if len(u.conns) > 0 || h.users[u.id] != u {
		return
	}
	delete(h.users, u.id)
	topics := []store.Topic{store.NotifyTopic(u.id), store.AuthorTopic(u.id)}
	for s := range u.stars {
		topics = append(topics, store.AuthorTopic(s))
	}
	h.removeListenerLocked(u, topics)
}

// applyStars follows or unfollows star for uid's connections here. It runs
// on the control goroutine.
func (h *Hub) applyStars(uid int64, d store.StarsData) {
	h.mu.RLock()
	u := h.users[uid]
	h.mu.RUnlock()
	if u == nil {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, h.opt.WriteWait)
	defer cancel()
	err := h.changeTopics(ctx, func() (add, remove []store.Topic) {
		if h.users[uid] != u {
			return nil, nil
		}
		if u.starEvents != nil { // still loading: the event wins over the snapshot
			u.starEvents[d.StarID] = d.Following
			return nil, nil
		}
		want := make(map[int64]struct{}, len(u.stars)+1)
		for s := range u.stars {
			want[s] = struct{}{}
		}
		if d.Following {
			want[d.StarID] = struct{}{}
		} else {
			delete(want, d.StarID)
		}
		return h.diffStarsLocked(u, want)
	}, u)
	if err != nil {
		// The topic is remembered by the broker and subscribed on reconnection.
		h.log.Warn("live: subscribe to new star", "user", uid, "star", d.StarID, "err", err)
	}
}

// revoke closes uid's connections opened with the session tokenHash.
func (h *Hub) revoke(uid int64, tokenHash string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	u := h.users[uid]
	if u == nil {
		return
	}
	for c := range u.conns {
		if c.tokenHash == tokenHash {
			c.closeWith(CloseLoggedOut, "logged out")
		}
	}
}
