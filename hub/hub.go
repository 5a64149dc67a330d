package hub

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"microblog/store"
)

// Hub is one process's live fan-out. It implements store.SubscriberHandler.
// The package doc describes the life of its users and connections and the
// order of its locks.
type Hub struct {
	broker store.Broker
	tl     store.LiveTimeline
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

	// subMu serialises every change of the broker's subscriptions together
	// with the bookkeeping that decides it, so that a topic's SUBSCRIBE is
	// written before any later Sync that relies on it. Never held across a
	// Sync.
	subMu sync.Mutex

	// control applies the internal stars and lens_changed events in order
	// on its own goroutine, so that the broker's reader never waits on
	// Redis.
	control *controlQueue

	// interruptions counts the broker's Interrupted calls: a catch-up that
	// read the timeline before the latest one keeps the connection's gap
	// mark, because posts lost in that newer gap are not in what it read.
	interruptions atomic.Int64
	// resubscribes counts the broker's Resubscribed calls: a user whose
	// stars were being loaded during one reads them again, a connection
	// that was opening during one catches up on its own, and a read that
	// fails during one is left to the next round of catch-up.
	resubscribes atomic.Int64
	// resyncing and resyncAgain coalesce overlapping rounds of catch-up.
	resyncMu    sync.Mutex
	resyncing   bool
	resyncAgain bool

	stop context.CancelFunc
	ctx  context.Context // ends at Shutdown; parent of background work
	wg   sync.WaitGroup  // background goroutines and live connections
}

// New returns a hub on broker and tl. Call Shutdown to close it.
func New(broker store.Broker, tl store.LiveTimeline, opt Options) *Hub {
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

// register adds c to the hub's connections, for Shutdown to close and wait
// for, unless Shutdown has begun.
func (h *Hub) register(c *Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.conns[c] = struct{}{}
	h.m.conns.Set(float64(len(h.conns)))
	h.wg.Add(1)
	return true
}

// leave removes a closed connection; the user's last one takes the user
// with it, and the user's topics lose a listener.
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
	if c.public {
		c.public = false
		u.public--
		h.leavePublicLocked(u)
	}
	u.conns.remove(c)
	if u.conns.len() > 0 || h.users[u.id] != u {
		return
	}
	delete(h.users, u.id)
	topics := u.ownTopics()
	for s := range u.stars.all() {
		topics = append(topics, store.AuthorTopic(s))
	}
	topics = append(topics, u.tagTopicsLocked()...)
	h.removeListenerLocked(u, topics)
}
