package hub

import (
	"context"
	"encoding/json"

	"microblog/store"
)

// Private messages reach a user on its notify:<id> topic, as message,
// message_delete and conversation_read events, which pass the safety rule
// as they are (the store refuses a message between users who block one
// another). They get the care posts get: a connection opened with
// ?messages_after= replays the messages it missed (LiveTimeline's
// DMsSince) before ready, which carries last_message_id; message
// events that arrive while it opens are held and merged with the replay
// by id; and after a gap of the broker each connection catches up on
// them. Message ids are a sequence of their own, so a connection
// remembers them apart from posts: msgSeen, msgHigh and its own gap mark.

// dmIDOf is the id of a message event's data (a Message), 0 if none.
func dmIDOf(data json.RawMessage) int64 {
	var m struct {
		ID int64 `json:"id"`
	}
	json.Unmarshal(data, &m)
	return m.ID
}

// firstLocked tells whether ev is new to c, a post or a message not sent to
// it yet (any other event is), and notes it sent. The caller holds c.mu.
func (c *Conn) firstLocked(ev event) bool {
	switch {
	case ev.postID != 0:
		if !c.seen.add(ev.postID, ev.postAt) {
			return false
		}
		c.high = max(c.high, ev.postID)
	case ev.messageID != 0:
		if !c.msgSeen.add(ev.messageID, 0) {
			return false
		}
		c.msgHigh = max(c.msgHigh, ev.messageID)
	}
	return true
}

// hadDMLocked tells whether ev, a message event held while c opened,
// is one the client says it has: at or below ?messages_after=, heard in
// order on a topic that was subscribed before c registered. Such an event
// was published before the client got the message of its mark (on one
// topic, a message published after a newer one is heard late), so the
// client got it then, from a replay that read it before its event reached
// this hub, or live. A late message, or one heard on a topic subscribed
// for c, may be news to the client and goes out; a message below the mark
// that the client got by a replay and whose event comes late after all is
// the one repeat left.
//
// The message of the mark itself is dropped whenever its event comes, on
// such a topic: goLive puts it among those sent (msgSeen). On a cluster
// a message's event is published after its write, so a replay may read it
// before its event is even sent; a client that got it so, as the last
// message of its connection, and reconnected at once was sent it again
// when the event reached the hub after the new connection had gone live
// (TestWSDMsDuringReconnect, once in a loaded make test). Below the mark
// that cannot happen to one sender's messages: each one's event is
// published before the next is written, so it was heard before the
// Sync that ends c's join, and was held with the rest while c opened.
// The caller holds c.mu.
func (c *Conn) hadDMLocked(ev event) bool {
	return ev.messageID != 0 && c.hasDMsAfter && c.notifyWarm && !ev.late &&
		ev.messageID <= c.dmsAfter
}

// readDMReplay reads, while c opens, the messages it missed (when it
// asked with ?messages_after=) and the newest message id of its user.
func (h *Hub) readDMReplay(ctx context.Context, c *Conn, r *replay) error {
	var err error
	if c.hasDMsAfter {
		if r.messages, err = h.tl.DMsSince(ctx, c.uid, c.dmsAfter, h.opt.ReplayMax); err != nil {
			return err
		}
	}
	r.lastDM, err = h.tl.LastDMID(ctx, c.uid)
	return err
}

// catchUpDMs queues the private messages newer than the last one c
// has, dropping those it already got, as catchUpAfter does posts. If more
// were missed than the queue can take, c is asked to reconnect.
func (h *Hub) catchUpDMs(ctx context.Context, c *Conn) {
	c.mu.Lock()
	after, live := c.msgHigh, c.live
	if c.msgGapMarked {
		after = c.msgGapFrom
	}
	c.mu.Unlock()
	if !live || c.closing() {
		return
	}
	limit := max(1, min(h.opt.ReplayMax, h.opt.SendQueue/2))
	resubscribes, interruptions := h.resubscribes.Load(), h.interruptions.Load()
	msgs, err := h.tl.DMsSince(ctx, c.uid, after, limit)
	if err != nil && h.resubscribes.Load() != resubscribes {
		return // the broker broke again: the next round catches up
	}
	if err != nil || len(msgs) >= limit {
		c.closeWith(CloseResume, "live feed interrupted, reconnect with ?messages_after")
		return
	}
	evs := make([]event, 0, len(msgs))
	for _, m := range msgs {
		if ev, err := ownEvent(store.NotifyTopic(c.uid), store.EventDM, m); err == nil {
			evs = append(evs, event{messageID: m.ID, f: ev.f, src: ev.src})
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.interruptions.Load() == interruptions { // as in catchUpAfter
		c.msgGapMarked = false
	}
	for _, ev := range evs {
		c.pushLocked(ev)
	}
	h.m.replayed.Add(float64(len(evs)))
	c.releaseHeldLocked()
}
