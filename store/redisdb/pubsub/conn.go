package pubsub

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// subConn is one pub/sub connection of a Subscriber and its reader: the
// only one on a single Redis, or the sharded connection of one live
// partition on a cluster, open while the partition has channels.
type subConn struct {
	sub  *Subscriber
	part int // the live partition; -1 on a single Redis

	mu     sync.Mutex
	ps     *redis.PubSub          // nil while a partition has no channel; go-redis serialises its writes
	topics map[string]store.Topic // subscribed channel name → topic, to decode what arrives
	unsubs map[string]int         // SUNSUBSCRIBEs sent, not yet confirmed, by channel (sharded)
	opened chan struct{}          // signalled when ps is opened (sharded)

	wMu    sync.Mutex            // guards waiter
	waiter map[string]chan error // Sync barriers waiting for their PONG, by payload

	inGap bool // broken and not back yet; guarded by Subscriber.hMu
}

func newSubConn(sub *Subscriber, part int, ps *redis.PubSub) *subConn {
	return &subConn{
		sub:    sub,
		part:   part,
		ps:     ps,
		topics: make(map[string]store.Topic),
		unsubs: make(map[string]int),
		opened: make(chan struct{}, 1),
		waiter: make(map[string]chan error),
	}
}

func (c *subConn) sharded() bool { return c.part >= 0 }

// masterAttr names, for a log line, the master that the client's map of
// the slots says serves the partition now: the node a connection opened
// just now went to (a restored partition that hears nothing is looked
// into from it). Nothing on a single Redis.
func (c *subConn) masterAttr(ctx context.Context) []any {
	if !c.sharded() {
		return nil
	}
	c.mu.Lock()
	var channel string
	for ch := range c.topics {
		channel = ch
		break
	}
	c.mu.Unlock()
	if channel == "" {
		return nil
	}
	node, err := c.sub.cluster.MasterForKey(ctx, channel)
	if err != nil {
		return []any{"master", err.Error()}
	}
	return []any{"master", node.Options().Addr}
}

// pubsub is the connection's current *redis.PubSub, nil if none is open.
func (c *subConn) pubsub() *redis.PubSub {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ps
}

// change records chans as wanted (or not) and sends the command. A
// partition's connection is opened with its first channel and closed with
// its last: closing unsubscribes, and a sharded connection that serves no
// channel would lose track of its slot's master.
func (c *subConn) change(ctx context.Context, subscribe bool, chans map[string]store.Topic) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sub.closed.Load() {
		return redis.ErrClosed
	}
	names := slices.Collect(maps.Keys(chans))
	if subscribe {
		maps.Copy(c.topics, chans)
		if !c.sharded() {
			return c.ps.Subscribe(ctx, names...)
		}
		if c.ps == nil {
			// Opened with its channels, so that go-redis routes it to the
			// master of their slot.
			c.ps = c.sub.cluster.SSubscribe(ctx)
			select {
			case c.opened <- struct{}{}:
			default:
			}
		}
		return c.ps.SSubscribe(ctx, names...)
	}
	for _, ch := range names {
		delete(c.topics, ch)
	}
	if !c.sharded() {
		return c.ps.Unsubscribe(ctx, names...)
	}
	if c.ps == nil {
		return nil
	}
	if len(c.topics) == 0 {
		c.closeLocked()
		return nil
	}
	for _, ch := range names {
		c.unsubs[ch]++
	}
	return c.ps.SUnsubscribe(ctx, names...)
}

// closeLocked closes a partition's connection: its Sync barriers are met,
// as nothing is subscribed there any more. The caller holds mu.
func (c *subConn) closeLocked() {
	ps := c.ps
	c.ps = nil
	clear(c.unsubs)
	ps.Close()
	c.endWaiters(nil)
}

// close closes the connection for good (Run is over).
func (c *subConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ps != nil {
		c.ps.Close()
	}
}

// ping registers a Sync barrier and sends its PING. It returns nil, nil
// when the connection is not open (a partition without channels).
func (c *subConn) ping(ctx context.Context, payload string) (<-chan error, error) {
	ps := c.pubsub()
	if ps == nil {
		return nil, nil
	}
	done := make(chan error, 1)
	c.wMu.Lock()
	c.waiter[payload] = done
	c.wMu.Unlock()
	if err := ps.Ping(ctx, payload); err != nil {
		c.forget(payload)
		return nil, err
	}
	return done, nil
}

// ponged meets the Sync barrier whose PING payload answers (a health
// ping's meets none).
func (c *subConn) ponged(payload string) {
	c.wMu.Lock()
	defer c.wMu.Unlock()
	if ch, ok := c.waiter[payload]; ok {
		ch <- nil
		delete(c.waiter, payload)
	}
}

// forget drops a Sync barrier.
func (c *subConn) forget(payload string) {
	c.wMu.Lock()
	defer c.wMu.Unlock()
	delete(c.waiter, payload)
}

// endWaiters ends every pending Sync with err: store.ErrSubscriberGap when
// its PING went down with the connection.
func (c *subConn) endWaiters(err error) {
	c.wMu.Lock()
	defer c.wMu.Unlock()
	for p, ch := range c.waiter {
		ch <- err
		delete(c.waiter, p)
	}
}

// topic is the topic of a subscribed channel; false if it is not subscribed.
func (c *subConn) topic(channel string) (store.Topic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.topics[channel]
	return t, ok
}

// movedAway tells whether a SUNSUBSCRIBE of channel came from Redis (the
// slot moved) rather than answering one of ours.
func (c *subConn) movedAway(channel string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unsubs[channel] > 0 {
		c.unsubs[channel]--
		if c.unsubs[channel] == 0 {
			delete(c.unsubs, channel)
		}
		return false
	}
	_, wanted := c.topics[channel]
	return wanted
}

// replace closes a connection that stopped answering, or whose partition
// moved, and opens a new one on every current channel; on a cluster,
// SSubscribe routes it to the master that serves the partition now.
func (c *subConn) replace(ctx context.Context) {
	c.mu.Lock()
	if c.sub.closed.Load() || c.ps == nil {
		c.mu.Unlock()
		return
	}
	chans := slices.Collect(maps.Keys(c.topics))
	old := c.ps
	if c.sharded() {
		c.ps = c.sub.cluster.SSubscribe(ctx, chans...)
	} else {
		c.ps = c.sub.rdb.Subscribe(ctx, chans...)
	}
	clear(c.unsubs)
	c.mu.Unlock()
	old.Close()
	c.endWaiters(store.ErrSubscriberGap) // their PINGs went on the old one
}
