package pubsub

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// reader is the reader of one connection, and what it remembers from one
// read to the next. Only its goroutine (read) uses it.
type reader struct {
	c      *subConn
	h      store.SubscriberHandler
	log    *slog.Logger
	health time.Duration

	gap         bool          // the connection broke since the last message
	pingPending bool          // a health ping is unanswered
	backoff     time.Duration // the wait after the next break
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
	r := &reader{c: c, h: h, log: log, health: health, backoff: minBackoff}
	defer func() {
		// Run is ending: no Sync may wait for a reader any more.
		c.sub.closed.Store(true)
		c.endWaiters(store.ErrSubscriberGap)
	}()
	for ctx.Err() == nil && !c.sub.closed.Load() {
		ps := c.pubsub()
		if ps == nil {
			r.idle(ctx)
			continue
		}
		msg, err := ps.ReceiveTimeout(ctx, health)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.failed(ctx, ps, err)
		default:
			r.received(ctx, msg)
		}
	}
}

// idle waits for a partition without channels to have a connection again.
// Nothing is missing from such a partition, so a gap it was in is over.
func (r *reader) idle(ctx context.Context) {
	if r.gap {
		r.gap = false
		r.c.sub.resubscribed(r.c, r.h, r.log)
	}
	select {
	case <-r.c.opened:
	case <-ctx.Done():
	}
}

// failed handles a read of ps that failed with err: silence is answered
// with a health ping, once; anything else is a break, after which the
// reader waits its backoff while go-redis reconnects (on a cluster, routed
// by a fresh map of the slots, or on a new connection).
func (r *reader) failed(ctx context.Context, ps *redis.PubSub, err error) {
	c := r.c
	if c.pubsub() != ps {
		return // closed with its last channel: not a break
	}
	var netErr net.Error
	var redisErr redis.Error
	replace := false
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		if !r.pingPending {
			r.pingPending = true
			if err := ps.Ping(ctx, "health"); err == nil {
				return
			}
		}
		// Silence and no answer to the ping: abandon the connection.
		r.log.Warn("live subscriber: redis connection unresponsive, reconnecting")
		c.replace(ctx)
	case c.sharded() && errors.As(err, &redisErr):
		// The SSUBSCRIBE was refused (MOVED after a slot migration or
		// failover, CLUSTERDOWN): the connection is fine but serves
		// nothing. A fresh one is routed by the cluster's new map.
		r.log.Warn("live subscriber: redis refused the partition's subscriptions, resubscribing", "err", err)
		replace = true
	case !r.gap:
		r.log.Warn("live subscriber: redis connection lost", "err", err)
	}
	r.broke()
	if c.sharded() {
		// go-redis routes a reconnection by its map of the slots.
		c.sub.cluster.ReloadState(ctx)
	}
	select {
	case <-time.After(r.backoff):
	case <-ctx.Done():
	}
	r.backoff = min(2*r.backoff, maxBackoff)
	if replace {
		c.replace(ctx)
	}
}

// received handles what a read returned: the connection is alive (and
// back, if it was in a gap), and msg is a message to deliver, the PONG of
// a Sync barrier, or news of a subscription.
func (r *reader) received(ctx context.Context, msg any) {
	c := r.c
	r.pingPending = false
	r.backoff = minBackoff
	if r.gap {
		r.gap = false
		r.log.Info("live subscriber: redis connection back, subscriptions restored", c.masterAttr(ctx)...)
		c.sub.resubscribed(c, r.h, r.log)
	}
	switch m := msg.(type) {
	case *redis.Message:
		if t, ok := c.topic(m.Channel); ok {
			c.sub.deliver(r.h, c, m.Channel, t, []byte(m.Payload))
		}
	case *redis.Pong:
		c.ponged(m.Payload)
	case *redis.Subscription:
		if m.Kind == "sunsubscribe" && c.movedAway(m.Channel) {
			// Redis unsubscribes a slot's shard channels when the slot
			// leaves the master: what is published meanwhile is lost.
			r.log.Warn("live subscriber: redis moved the partition, resubscribing", "err", errMoved)
			r.broke()
			c.sub.cluster.ReloadState(ctx)
			c.replace(ctx)
		}
	}
}

// broke reports a break of the connection: to the Subscriber once per gap,
// and to the Sync barriers waiting on it every time.
func (r *reader) broke() {
	c := r.c
	if !r.gap {
		c.sub.interrupted(c, r.h)
	}
	r.gap, r.pingPending = true, false
	c.endWaiters(store.ErrSubscriberGap)
	// Our SUNSUBSCRIBEs on the broken connection are never confirmed.
	c.mu.Lock()
	clear(c.unsubs)
	c.mu.Unlock()
}
