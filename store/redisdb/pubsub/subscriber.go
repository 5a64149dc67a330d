// Package pubsub is the live feed's transport: a process's subscription to
// the live channels the store publishes on (schema.Keys.AuthorChannel and
// NotifyChannel), and its reader, which hands what it reads to a
// store.SubscriberHandler (the hub) and tells it of every gap. It reaches
// Redis through the store's client and names channels through the store's
// Keys, so that publisher and subscriber spell them alike.
package pubsub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

const (
	// healthInterval is how long the subscriber waits for a
	// message before it pings Redis to check the connection; a second quiet
	// interval with the ping unanswered means the connection is dead.
	healthInterval = 15 * time.Second
	// minBackoff and maxBackoff bound the wait between
	// reconnection attempts while Redis is unreachable.
	minBackoff = 20 * time.Millisecond
	maxBackoff = time.Second
	// holdMax bounds the messages held while a connection is in a
	// gap (a cluster's other partitions go on reading).
	holdMax = 10000
)

// heldMessage is a message read during another connection's gap.
type heldMessage struct {
	conn    *subConn
	channel string
	topic   store.Topic
	payload []byte
}

// Subscriber is a process's subscription to the live feed. On a single
// Redis it is one pub/sub connection (SUBSCRIBE). On a cluster it is one
// sharded connection (SSUBSCRIBE) per live partition that has channels
// (schema.LivePartition), opened on the partition's first Subscribe, to the master
// that serves it; so no node carries every event. Each connection has its
// own reader while Run runs.
//
// The handler hears of every break of any connection: Interrupted when the
// first one breaks, Resubscribed once every one is back, so that the gap it
// catches up on covers them all. Meanwhile what the other connections read
// is held and handed over right after Resubscribed: as with one connection,
// nothing is delivered between Interrupted and Resubscribed, so the handler
// may take a timeline read during the gap as covering it (the hub does).
// Past holdMax messages the rest are dropped, like those
// published to a broken connection. The handler's calls are made one at a
// time.
//
// Subscribe and Unsubscribe may be called from any goroutine; Run reads and
// must be running for Sync to return.
type Subscriber struct {
	rdb     redis.UniversalClient
	cluster *redis.ClusterClient // set on a cluster: the subscriber's own client (mastersOnly), for sharded connections
	keys    schema.Keys
	conns   []*subConn // the one connection, or one per partition on a cluster
	closed  atomic.Bool
	seq     atomic.Uint64 // numbers the Sync barriers

	hMu     sync.Mutex // serialises the handler's calls; guards broken, held and each subConn's inGap
	broken  int        // connections in a gap: Resubscribed once it is 0 again
	held    []heldMessage
	dropped int // messages not held for want of room, in this gap

	// HealthInterval overrides healthInterval (tests).
	HealthInterval time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// New returns the live-feed subscriber of the Redis that rdb reaches, whose
// channels keys names: the store's client and keys (redisdb.Store.Client
// and Keys), so that it hears what the store publishes. It opens no
// connection until the first Subscribe or Run. On a cluster it opens its
// connections through a client of its own, which takes masters only
// (mastersOnly) and is closed when Run returns.
func New(rdb redis.UniversalClient, keys schema.Keys) *Subscriber {
	sub := &Subscriber{rdb: rdb, keys: keys}
	if cc, ok := rdb.(*redis.ClusterClient); ok && keys.Cluster() {
		sub.cluster = mastersOnly(cc)
		sub.conns = make([]*subConn, schema.LivePartitions)
		for i := range sub.conns {
			sub.conns[i] = newSubConn(sub, i, nil)
		}
	} else {
		sub.conns = []*subConn{newSubConn(sub, -1, rdb.Subscribe(context.Background()))}
	}
	return sub
}

// channel is the name of t's channel.
func (sub *Subscriber) channel(t store.Topic) string {
	switch t.Kind {
	case store.TopicNotify:
		return sub.keys.NotifyChannel(t.UID)
	case store.TopicPublic:
		return sub.keys.PublicChannel()
	case store.TopicTag:
		return sub.keys.TagChannel(t.Tag)
	}
	return sub.keys.AuthorChannel(t.UID)
}

// connOf is the connection that carries t.
func (sub *Subscriber) connOf(t store.Topic) *subConn {
	if sub.cluster == nil {
		return sub.conns[0]
	}
	if t.Kind == store.TopicTag {
		return sub.conns[schema.TagPartition(t.Tag)]
	}
	return sub.conns[schema.LivePartition(t.UID)]
}

// Subscribe adds topics to the connections. It returns once the commands
// are written; Sync waits until Redis has acted on them. Even when it fails
// (Redis unreachable) the topics are remembered and subscribed on
// reconnection.
func (sub *Subscriber) Subscribe(ctx context.Context, topics ...store.Topic) error {
	return sub.change(ctx, true, topics)
}

// Unsubscribe removes topics from the connections; nothing more is delivered
// for them, even if Redis had already sent it.
func (sub *Subscriber) Unsubscribe(ctx context.Context, topics ...store.Topic) error {
	return sub.change(ctx, false, topics)
}

// change records topics as wanted (or not) and sends the (UN)SUBSCRIBEs,
// one command per connection concerned.
func (sub *Subscriber) change(ctx context.Context, subscribe bool, topics []store.Topic) error {
	if len(topics) == 0 {
		return nil
	}
	byConn := make(map[*subConn]map[string]store.Topic)
	for _, t := range topics {
		c := sub.connOf(t)
		if byConn[c] == nil {
			byConn[c] = make(map[string]store.Topic)
		}
		byConn[c][sub.channel(t)] = t
	}
	var first error
	for c, chans := range byConn {
		if err := c.change(ctx, subscribe, chans); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		if subscribe {
			return fmt.Errorf("store: subscribe: %w", first)
		}
		return fmt.Errorf("store: unsubscribe: %w", first)
	}
	return nil
}

// Sync returns once Redis has processed every Subscribe written before it,
// so a message published from then on will be delivered. It is a PING on
// every connection in use: Redis answers commands on one connection in
// order. A connection that breaks before its PONG is pinged again once
// go-redis has reconnected it (with all its channels), and Sync returns
// only when, its PONGs in, no connection is in a gap: as with one
// connection, a Sync that returns means the subscriptions are whole, so a
// timeline read after it covers any gap before it (the hub relies on
// that). It fails when a connection cannot be reached, or with ctx.
func (sub *Subscriber) Sync(ctx context.Context) error {
	pending := sub.conns
	for {
		if sub.closed.Load() {
			return fmt.Errorf("store: subscriber sync: %w", redis.ErrClosed)
		}
		broken, waited, err := sub.barrier(ctx, pending)
		if err != nil {
			return err
		}
		if len(broken) == 0 {
			// Answered, but another may have broken meanwhile: its PONG
			// after it is back is the barrier.
			if broken = sub.inGap(); len(broken) == 0 {
				return nil
			}
			if !waited {
				// Closed with its last channel: its reader is about to
				// notice. Do not spin meanwhile.
				select {
				case <-time.After(minBackoff):
				case <-ctx.Done():
					return fmt.Errorf("store: subscriber sync: %w", ctx.Err())
				}
			}
		}
		pending = broken
	}
}

// barrier pings conns and waits for their PONGs. It returns the
// connections that broke before answering, and whether any was pinged (a
// partition without channels has no connection).
func (sub *Subscriber) barrier(ctx context.Context, conns []*subConn) (broken []*subConn, waited bool, err error) {
	payload := "sync:" + strconv.FormatUint(sub.seq.Add(1), 10)
	type pending struct {
		c    *subConn
		done <-chan error
	}
	var waits []pending
	defer func() {
		for _, w := range waits {
			w.c.forget(payload)
		}
	}()
	for _, c := range conns {
		done, err := c.ping(ctx, payload)
		if err != nil {
			return nil, false, fmt.Errorf("store: subscriber sync: %w", err)
		}
		if done != nil {
			waits = append(waits, pending{c, done})
		}
	}
	for _, w := range waits {
		select {
		case err := <-w.done:
			if errors.Is(err, store.ErrSubscriberGap) {
				broken = append(broken, w.c)
			} else if err != nil {
				return nil, false, err
			}
		case <-ctx.Done():
			return nil, false, fmt.Errorf("store: subscriber sync: %w", ctx.Err())
		}
	}
	return broken, len(waits) > 0, nil
}

// Run reads every connection until ctx ends, handing messages to h. It
// notices every break of a connection (an error from Redis, silence with a
// health ping unanswered, or on a cluster a partition's slot moving away)
// and, once the subscriptions of every connection are back, calls
// h.Resubscribed. It uses Receive rather than Channel because Channel
// reconnects silently and would hide the gap.
func (sub *Subscriber) Run(ctx context.Context, h store.SubscriberHandler) error {
	var once sync.Once
	shut := func() {
		once.Do(func() {
			sub.closed.Store(true)
			for _, c := range sub.conns {
				c.close()
			}
			if sub.cluster != nil {
				sub.cluster.Close()
			}
		})
	}
	// The context's end interrupts a blocked read; Run's return closes too,
	// so that no Subscribe succeeds after Run has returned.
	stop := context.AfterFunc(ctx, shut)
	defer func() {
		stop()
		shut()
	}()
	log := sub.Logger
	if log == nil {
		log = slog.Default()
	}
	health := sub.HealthInterval
	if health <= 0 {
		health = healthInterval
	}
	var wg sync.WaitGroup
	for _, c := range sub.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.read(ctx, h, log, health)
		}()
	}
	wg.Wait()
	return nil
}

// interrupted reports a break of connection c: the handler hears of the
// first one only.
func (sub *Subscriber) interrupted(c *subConn, h store.SubscriberHandler) {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	c.inGap = true
	sub.broken++
	if sub.broken == 1 {
		h.Interrupted()
	}
}

// inGap is the connections in a gap.
func (sub *Subscriber) inGap() []*subConn {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	var out []*subConn
	if sub.broken > 0 {
		for _, c := range sub.conns {
			if c.inGap {
				out = append(out, c)
			}
		}
	}
	return out
}

// resubscribed reports that one broken connection is back: the handler
// hears of it once none is broken, and then gets what was held meanwhile.
func (sub *Subscriber) resubscribed(c *subConn, h store.SubscriberHandler, log *slog.Logger) {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	c.inGap = false
	sub.broken--
	if sub.broken > 0 {
		return
	}
	h.Resubscribed()
	for _, m := range sub.held {
		if _, ok := m.conn.topic(m.channel); ok { // not unsubscribed meanwhile
			h.Deliver(m.topic, m.payload)
		}
	}
	if sub.dropped > 0 {
		log.Warn("live subscriber: messages dropped while a connection was away", "held", len(sub.held), "dropped", sub.dropped)
	}
	clear(sub.held)
	sub.held, sub.dropped = sub.held[:0], 0
}

// deliver hands one message to h, one call at a time across connections,
// or holds it while a connection is in a gap.
func (sub *Subscriber) deliver(h store.SubscriberHandler, c *subConn, channel string, t store.Topic, payload []byte) {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	switch {
	case sub.broken == 0:
		h.Deliver(t, payload)
	case len(sub.held) < holdMax:
		sub.held = append(sub.held, heldMessage{c, channel, t, payload})
	default:
		sub.dropped++
	}
}

// errMoved is the cause logged when a partition's slot moved away.
var errMoved = errors.New("the partition's slot moved to another master")
