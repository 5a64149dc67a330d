package hub

import (
	"context"
	"sync/atomic"
	"time"

	"microblog/store"
)

// topic is one subscribed topic and the local users listening to it.
type topic struct {
	users  smallSet[*user]
	linger *time.Timer // pending unsubscribe while no one listens
	// msgHigh is the highest private message id heard on the topic (a
	// user's notify topic) since it was subscribed: a message heard below
	// it came late, after a newer one (dm.go).
	msgHigh atomic.Int64
}

// changeTopics runs decide under subMu and mu, makes u listen to the topics
// it adds and stop listening to those it removes, and subscribes the topics
// that had no listener. Unsubscribing waits for Linger.
func (h *Hub) changeTopics(ctx context.Context, u *user, decide func() (add, remove []store.Topic)) error {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.mu.Lock()
	add, remove := decide()
	var fresh []store.Topic
	for _, t := range add {
		tp, ok := h.topics[t]
		if !ok {
			tp = &topic{}
			h.topics[t] = tp
			fresh = append(fresh, t)
		}
		if tp.linger != nil {
			tp.linger.Stop()
			tp.linger = nil
		}
		tp.users.add(u)
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
		tp.users.remove(u)
		if tp.users.len() == 0 && tp.linger == nil && !h.closed {
			tp.linger = time.AfterFunc(h.opt.Linger, func() { h.expire(t, tp) })
		}
	}
}

// expire unsubscribes a topic that stayed without listeners for Linger.
func (h *Hub) expire(t store.Topic, tp *topic) {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.mu.Lock()
	gone := h.topics[t] == tp && tp.users.len() == 0 && !h.closed
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
