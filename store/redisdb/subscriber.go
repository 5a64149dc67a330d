package redisdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
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

// Subscriber is a process's one Redis pub/sub connection for the live feed.
// Subscribe and Unsubscribe may be called from any goroutine; Run is the
// single reader and must be running for Sync to return.
type Subscriber struct {
	rdb  redis.UniversalClient
	keys Keys

	mu     sync.Mutex    // guards ps and closed
	ps     *redis.PubSub // the connection, replaced when a dead one is abandoned; go-redis serialises its writes
	closed bool          // set when Run ends; no more commands

	chMu   sync.RWMutex           // guards topics
	topics map[string]store.Topic // subscribed channel name → topic, to decode what arrives

	wMu    sync.Mutex            // guards waiter
	waiter map[string]chan error // Sync barriers waiting for their PONG, by payload
	seq    atomic.Uint64         // numbers the Sync barriers

	// HealthInterval overrides subscriberHealthInterval (tests).
	HealthInterval time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// NewSubscriber returns the live-feed subscriber of the store's Redis. It
// opens no connection until the first Subscribe or Run.
func (s *Store) NewSubscriber() *Subscriber {
	return &Subscriber{
		rdb:    s.rdb,
		keys:   s.keys,
		ps:     s.rdb.Subscribe(context.Background()),
		topics: make(map[string]store.Topic),
		waiter: make(map[string]chan error),
	}
}

func (sub *Subscriber) channel(t store.Topic) string {
	if t.Kind == store.TopicNotify {
		return sub.keys.NotifyChannel(t.UID)
	}
	return sub.keys.AuthorChannel(t.UID)
}

func (sub *Subscriber) pubsub() (*redis.PubSub, error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.closed {
		return nil, redis.ErrClosed
	}
	return sub.ps, nil
}

// Subscribe adds topics to the connection. It returns once the command is
// written; Sync waits until Redis has acted on it. Even when it fails (Redis
// unreachable) the topics are remembered and subscribed on reconnection.
func (sub *Subscriber) Subscribe(ctx context.Context, topics ...store.Topic) error {
	return sub.change(ctx, true, topics)
}

// Unsubscribe removes topics from the connection; nothing more is delivered
// for them, even if Redis had already sent it.
func (sub *Subscriber) Unsubscribe(ctx context.Context, topics ...store.Topic) error {
	return sub.change(ctx, false, topics)
}

// change records topics as wanted (or not) and sends the (UN)SUBSCRIBE.
func (sub *Subscriber) change(ctx context.Context, subscribe bool, topics []store.Topic) error {
	if len(topics) == 0 {
		return nil
	}
	chans := make([]string, len(topics))
	sub.chMu.Lock()
	for i, t := range topics {
		chans[i] = sub.channel(t)
		if subscribe {
			sub.topics[chans[i]] = t
		} else {
			delete(sub.topics, chans[i])
		}
	}
	sub.chMu.Unlock()
	ps, err := sub.pubsub()
	if err == nil {
		if subscribe {
			err = ps.Subscribe(ctx, chans...)
		} else {
			err = ps.Unsubscribe(ctx, chans...)
		}
	}
	if err != nil {
		if subscribe {
			return fmt.Errorf("store: subscribe: %w", err)
		}
		return fmt.Errorf("store: unsubscribe: %w", err)
	}
	return nil
}

// Sync returns once Redis has processed every Subscribe written before it,
// so a message published from then on will be delivered. It is a PING on the
// subscriber connection: Redis answers commands on one connection in order.
func (sub *Subscriber) Sync(ctx context.Context) error {
	payload := "sync:" + strconv.FormatUint(sub.seq.Add(1), 10)
	done := make(chan error, 1)
	sub.wMu.Lock()
	sub.waiter[payload] = done
	sub.wMu.Unlock()
	defer func() {
		sub.wMu.Lock()
		delete(sub.waiter, payload)
		sub.wMu.Unlock()
	}()
	ps, err := sub.pubsub()
	if err == nil {
		err = ps.Ping(ctx, payload)
	}
	if err != nil {
		return fmt.Errorf("store: subscriber sync: %w", err)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("store: subscriber sync: %w", ctx.Err())
	}
}

// failWaiters ends every pending Sync: its PING went down with the connection.
func (sub *Subscriber) failWaiters() {
	sub.wMu.Lock()
	defer sub.wMu.Unlock()
	for p, ch := range sub.waiter {
		ch <- store.ErrSubscriberGap
		delete(sub.waiter, p)
	}
}

// Run reads the connection until ctx ends, handing messages to h. It notices
// every break of the connection (an error from Redis, or silence with a
// health ping unanswered) and, once the subscriptions are back, calls
// h.Resubscribed. It uses Receive rather than Channel because Channel
// reconnects silently and would hide the gap.
func (sub *Subscriber) Run(ctx context.Context, h store.SubscriberHandler) error {
	shut := func() {
		sub.mu.Lock()
		sub.closed = true
		ps := sub.ps
		sub.mu.Unlock()
		ps.Close()
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
	var (
		gap         bool // the connection broke since the last message
		pingPending bool // a health ping is unanswered
		backoff     = subscriberMinBackoff
	)
	for {
		ps, err := sub.pubsub()
		if err != nil || ctx.Err() != nil {
			sub.failWaiters()
			return nil
		}
		msg, err := ps.ReceiveTimeout(ctx, health)
		if ctx.Err() != nil {
			sub.failWaiters()
			return nil
		}
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				if !pingPending {
					pingPending = true
					if err := ps.Ping(ctx, "health"); err == nil {
						continue
					}
				}
				// Silence and no answer to the ping: abandon the connection.
				log.Warn("live subscriber: redis connection unresponsive, reconnecting")
				sub.replace(ctx)
			} else if !gap {
				log.Warn("live subscriber: redis connection lost", "err", err)
			}
			if !gap {
				h.Interrupted()
			}
			pingPending = false
			gap = true
			sub.failWaiters()
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			backoff = min(2*backoff, subscriberMaxBackoff)
			continue
		}
		pingPending = false
		backoff = subscriberMinBackoff
		if gap {
			gap = false
			log.Info("live subscriber: redis connection back, subscriptions restored")
			h.Resubscribed()
		}
		switch m := msg.(type) {
		case *redis.Message:
			sub.chMu.RLock()
			t, ok := sub.topics[m.Channel]
			sub.chMu.RUnlock()
			if ok {
				h.Deliver(t, []byte(m.Payload))
			}
		case *redis.Pong:
			sub.wMu.Lock()
			if ch, ok := sub.waiter[m.Payload]; ok {
				ch <- nil
				delete(sub.waiter, m.Payload)
			}
			sub.wMu.Unlock()
		}
	}
}

// replace closes a connection that stopped answering and opens a new one on
// every current channel.
func (sub *Subscriber) replace(ctx context.Context) {
	sub.mu.Lock()
	if sub.closed {
		sub.mu.Unlock()
		return
	}
	sub.chMu.RLock()
	chans := make([]string, 0, len(sub.topics))
	for ch := range sub.topics {
		chans = append(chans, ch)
	}
	sub.chMu.RUnlock()
	old := sub.ps
	sub.ps = sub.rdb.Subscribe(ctx, chans...)
	sub.mu.Unlock()
	old.Close()
}
