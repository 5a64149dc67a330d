package pubsub

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

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

// read is the connection's reader, until ctx ends. It notices every break
// of the connection (an error from Redis, or silence with a health ping
// unanswered; on a cluster also a SUNSUBSCRIBE from Redis or a refused
// SSUBSCRIBE, when the partition's slot moved) and tells the Subscriber,
// then again once the subscriptions are back.
func (c *subConn) read(ctx context.Context, h store.SubscriberHandler, log *slog.Logger, health time.Duration) {
	if c.sharded() {
		log = log.With("partition", c.part)
	}
	var (
		gap         bool // the connection broke since the last message
		pingPending bool // a health ping is unanswered
		backoff     = minBackoff
	)
	// broke reports a break of the connection, once per gap.
	broke := func() {
		if !gap {
			c.sub.interrupted(c, h)
		}
		gap, pingPending = true, false
		c.endWaiters(store.ErrSubscriberGap)
		// Our SUNSUBSCRIBEs on the broken connection are never confirmed.
		c.mu.Lock()
		clear(c.unsubs)
		c.mu.Unlock()
	}
	defer func() {
		// Run is ending: no Sync may wait for a reader any more.
		c.sub.closed.Store(true)
		c.endWaiters(store.ErrSubscriberGap)
	}()
	for {
		if ctx.Err() != nil || c.sub.closed.Load() {
			return
		}
		ps := c.pubsub()
		if ps == nil {
			// A partition without channels: nothing is missing from it.
			if gap {
				gap = false
				c.sub.resubscribed(c, h, log)
			}
			select {
			case <-c.opened:
			case <-ctx.Done():
			}
			continue
		}
		msg, err := ps.ReceiveTimeout(ctx, health)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if c.pubsub() != ps {
				continue // closed with its last channel: not a break
			}
			var netErr net.Error
			var redisErr redis.Error
			replace := false
			switch {
			case errors.As(err, &netErr) && netErr.Timeout():
				if !pingPending {
					pingPending = true
					if err := ps.Ping(ctx, "health"); err == nil {
						continue
					}
				}
				// Silence and no answer to the ping: abandon the connection.
				log.Warn("live subscriber: redis connection unresponsive, reconnecting")
				c.replace(ctx)
			case c.sharded() && errors.As(err, &redisErr):
				// The SSUBSCRIBE was refused (MOVED after a slot migration or
				// failover, CLUSTERDOWN): the connection is fine but serves
				// nothing. A fresh one is routed by the cluster's new map.
				log.Warn("live subscriber: redis refused the partition's subscriptions, resubscribing", "err", err)
				replace = true
			case !gap:
				log.Warn("live subscriber: redis connection lost", "err", err)
			}
			broke()
			if c.sharded() {
				// go-redis routes a reconnection by its map of the slots.
				c.sub.cluster.ReloadState(ctx)
			}
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			backoff = min(2*backoff, maxBackoff)
			if replace {
				c.replace(ctx)
			}
			continue
		}
		pingPending = false
		backoff = minBackoff
		if gap {
			gap = false
			log.Info("live subscriber: redis connection back, subscriptions restored")
			c.sub.resubscribed(c, h, log)
		}
		switch m := msg.(type) {
		case *redis.Message:
			c.mu.Lock()
			t, ok := c.topics[m.Channel]
			c.mu.Unlock()
			if ok {
				c.sub.deliver(h, c, m.Channel, t, []byte(m.Payload))
			}
		case *redis.Pong:
			c.wMu.Lock()
			if ch, ok := c.waiter[m.Payload]; ok {
				ch <- nil
				delete(c.waiter, m.Payload)
			}
			c.wMu.Unlock()
		case *redis.Subscription:
			if m.Kind == "sunsubscribe" && c.movedAway(m.Channel) {
				// Redis unsubscribes a slot's shard channels when the slot
				// leaves the master: what is published meanwhile is lost.
				log.Warn("live subscriber: redis moved the partition, resubscribing", "err", errMoved)
				broke()
				c.sub.cluster.ReloadState(ctx)
				c.replace(ctx)
			}
		}
	}
}

// wants tells whether channel is subscribed.
func (c *subConn) wants(channel string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.topics[channel]
	return ok
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
