package redisdb

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
)

const (
	// subscriberHealthInterval is how long the subscriber waits for a
	// message before it pings Redis to check the connection; a second quiet
	// interval with the ping unanswered means the connection is dead.
	subscriberHealthInterval = 15 * time.Second
	// subscriberMinBackoff and subscriberMaxBackoff bound the wait between
	// reconnection attempts while Redis is unreachable.
	subscriberMinBackoff = 20 * time.Millisecond
	subscriberMaxBackoff = time.Second
)

// Subscriber is a process's subscription to the live feed. On a single
// Redis it is one pub/sub connection (SUBSCRIBE). On a cluster it is one
// sharded connection (SSUBSCRIBE) per live partition that has channels
// (partition.go), opened on the partition's first Subscribe, to the master
// that serves it; so no node carries every event. Each connection has its
// own reader while Run runs.
//
// The handler hears of every break of any connection: Interrupted when the
// first one breaks, Resubscribed once every one is back, so that the gap it
// catches up on covers them all. Its calls are made one at a time.
//
// Subscribe and Unsubscribe may be called from any goroutine; Run reads and
// must be running for Sync to return.
type Subscriber struct {
	rdb     redis.UniversalClient
	cluster *redis.ClusterClient // set on a cluster: sharded connections
	keys    Keys
	conns   []*subConn // the one connection, or one per partition on a cluster
	closed  atomic.Bool
	seq     atomic.Uint64 // numbers the Sync barriers

	hMu    sync.Mutex // serialises the handler's calls; guards broken
	broken int        // connections in a gap: Resubscribed once it is 0 again

	// HealthInterval overrides subscriberHealthInterval (tests).
	HealthInterval time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// NewSubscriber returns the live-feed subscriber of the store's Redis. It
// opens no connection until the first Subscribe or Run.
func (s *Store) NewSubscriber() *Subscriber {
	sub := &Subscriber{rdb: s.rdb, keys: s.keys}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok && s.keys.cluster {
		sub.cluster = cc
		sub.conns = make([]*subConn, livePartitions)
		for i := range sub.conns {
			sub.conns[i] = newSubConn(sub, i, nil)
		}
	} else {
		sub.conns = []*subConn{newSubConn(sub, -1, s.rdb.Subscribe(context.Background()))}
	}
	return sub
}

func (sub *Subscriber) channel(t store.Topic) string {
	if t.Kind == store.TopicNotify {
		return sub.keys.NotifyChannel(t.UID)
	}
	return sub.keys.AuthorChannel(t.UID)
}

// connOf is the connection that carries t.
func (sub *Subscriber) connOf(t store.Topic) *subConn {
	if sub.cluster == nil {
		return sub.conns[0]
	}
	return sub.conns[livePartition(t.UID)]
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
// order. If a connection breaks before its PONG, it returns
// store.ErrSubscriberGap.
func (sub *Subscriber) Sync(ctx context.Context) error {
	if sub.closed.Load() {
		return fmt.Errorf("store: subscriber sync: %w", redis.ErrClosed)
	}
	payload := "sync:" + strconv.FormatUint(sub.seq.Add(1), 10)
	type barrier struct {
		c    *subConn
		done <-chan error
	}
	var barriers []barrier
	defer func() {
		for _, b := range barriers {
			b.c.forget(payload)
		}
	}()
	for _, c := range sub.conns {
		done, err := c.ping(ctx, payload)
		if err != nil {
			return fmt.Errorf("store: subscriber sync: %w", err)
		}
		if done != nil {
			barriers = append(barriers, barrier{c, done})
		}
	}
	for _, b := range barriers {
		select {
		case err := <-b.done:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return fmt.Errorf("store: subscriber sync: %w", ctx.Err())
		}
	}
	return nil
}

// Run reads every connection until ctx ends, handing messages to h. It
// notices every break of a connection (an error from Redis, silence with a
// health ping unanswered, or on a cluster a partition's slot moving away)
// and, once the subscriptions of every connection are back, calls
// h.Resubscribed. It uses Receive rather than Channel because Channel
// reconnects silently and would hide the gap.
func (sub *Subscriber) Run(ctx context.Context, h store.SubscriberHandler) error {
	shut := func() {
		sub.closed.Store(true)
		for _, c := range sub.conns {
			c.close()
		}
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
		health = subscriberHealthInterval
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

// interrupted reports a break of one connection: the handler hears of the
// first one only.
func (sub *Subscriber) interrupted(h store.SubscriberHandler) {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	sub.broken++
	if sub.broken == 1 {
		h.Interrupted()
	}
}

// resubscribed reports that one broken connection is back: the handler
// hears of it once none is broken.
func (sub *Subscriber) resubscribed(h store.SubscriberHandler) {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	sub.broken--
	if sub.broken == 0 {
		h.Resubscribed()
	}
}

// deliver hands one message to h, one call at a time across connections.
func (sub *Subscriber) deliver(h store.SubscriberHandler, t store.Topic, payload []byte) {
	sub.hMu.Lock()
	defer sub.hMu.Unlock()
	h.Deliver(t, payload)
}

// errMoved is the cause logged when a partition's slot moved away.
var errMoved = errors.New("the partition's slot moved to another master")
