package hub

import (
	"encoding/json"

	"github.com/gorilla/websocket"

	"microblog/store"
)

// Deliver fans one event from the broker out to every local connection that
// listens to its topic, encoded once, unless the safety rule (the user's
// store.Lens) keeps the post, comment or notification it carries from that
// connection's user. Internal events are acted on and never forwarded. It
// is called from the broker's single reader and never blocks, neither on a
// client nor on Redis.
func (h *Hub) Deliver(t store.Topic, payload []byte) {
	h.m.received.Inc()
	var f store.Frame
	if err := json.Unmarshal(payload, &f); err != nil {
		h.log.Warn("live: undecodable event", "topic", t.String(), "err", err)
		return
	}
	switch f.Event {
	case store.EventStars:
		var d store.StarsData
		if t.Kind != store.TopicNotify || json.Unmarshal(f.Data, &d) != nil {
			return
		}
		// Applied in order on the control goroutine: it talks to Redis,
		// and Deliver must not wait for that.
		if h.ctx.Err() == nil {
			h.control.push(func() { h.applyStars(t.UID, d) })
		}
		return
	case store.EventSessionRevoked:
		var d store.SessionRevokedData
		if t.Kind != store.TopicNotify || json.Unmarshal(f.Data, &d) != nil {
			return
		}
		h.revoke(t.UID, d.TokenHash)
		return
	case store.EventLensChanged:
		if t.Kind == store.TopicNotify {
			h.lensChanged(t.UID)
		}
		return
	case store.EventTagsChanged:
		if t.Kind == store.TopicNotify {
			h.tagsChanged(t.UID)
		}
		return
	}
	about, err := decodeSubject(f.Event, f.Data)
	if err != nil {
		// Withheld: the safety rule cannot tell who may see it.
		h.log.Warn("live: undecodable event", "topic", t.String(), "err", err)
		return
	}
	ev := event{f: frame{shared: prepare(payload)}, about: about, src: &Event{Topic: t, Name: f.Event, Data: f.Data}}
	// Only a new post goes through the window of ids sent: a post_update
	// of a post sent already is news. One heard on the public topic is
	// not a duplicate of the same post heard on its author's: a Format
	// sends each on a stream of its own.
	switch f.Event {
	case store.EventPost:
		if t.Kind != store.TopicPublic {
			ev.postID, ev.postAt = about.post.ID, about.post.CreatedAt
		}
	case store.EventDM:
		ev.messageID = dmIDOf(f.Data)
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	tp := h.topics[t]
	if tp == nil {
		return
	}
	if ev.messageID != 0 {
		ev.late = ev.messageID < tp.msgHigh.Load()
		if !ev.late {
			tp.msgHigh.Store(ev.messageID) // one topic's events come from one reader
		}
	}
	if about != nil {
		var u *user // a tag topic's readers are no one's fans (tags.go)
		if t.Kind != store.TopicTag {
			u = h.users[t.UID]
		}
		about.approveLocked(t, u)
	}
	for u := range tp.users.all() {
		if u.holding.Load() {
			h.holdLocked(u, ev)
			continue
		}
		h.sendLocked(u, ev)
	}
}

// sendLocked hands ev to u's connections unless u's lens hides it: the
// safety rule, asked once per user. The caller holds mu.
func (h *Hub) sendLocked(u *user, ev event) {
	if ev.about.hiddenFrom(u.lens) {
		h.m.withheld.Inc()
		return
	}
	ev.offHome = u.lens.offHome(&ev)
	for c := range u.conns.all() {
		c.deliver(ev)
	}
}

// deliver queues a live event. It never blocks: a connection that cannot
// take it is closed with CloseTooSlow. A native connection gets nothing of
// the public topic, which its user may listen to for another connection.
func (c *Conn) deliver(ev event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing() || c.format == nil && ev.src != nil && ev.src.Topic.Kind == store.TopicPublic {
		return
	}
	if !c.live {
		if len(c.pending) >= c.h.opt.SendQueue {
			c.h.m.dropped.Inc()
			c.closeWith(CloseTooSlow, "too slow")
			return
		}
		c.pending = append(c.pending, ev)
		return
	}
	if c.inGapLocked() {
		c.holdForGapLocked(ev)
		return
	}
	c.pushLocked(ev)
}

// pushLocked puts ev on the send queue unless it is a post already sent,
// and makes sure a writer runs. The caller holds c.mu.
func (c *Conn) pushLocked(ev event) {
	if c.closing() {
		return
	}
	if !c.firstLocked(ev) {
		c.h.m.duplicates.Inc()
		return
	}
	// SendQueue frames may wait besides the one being written; when none
	// is, the first waiting one is as good as handed to the writer.
	if waiting := len(c.queue); waiting > c.h.opt.SendQueue || waiting == c.h.opt.SendQueue && c.writingOne {
		c.h.m.dropped.Inc()
		c.closeWith(CloseTooSlow, "too slow")
		return
	}
	n := len(c.queue)
	c.queue = c.appendFramesLocked(c.queue, ev)
	if len(c.queue) > n { // a Format may want nothing of ev
		c.kick()
	}

}

// seenWindow is how many recent post ids a connection remembers to drop
// duplicates. Duplicates only arise near a replay (on connect or after a
// gap, which looks back store.ResumeWindow), so a small window suffices and
// keeps connections cheap. It holds a client's ?seen= whole (store.MaxSeen).
const seenWindow = 128

// idWindow remembers the last seenWindow ids added, and for posts the
// second each was written in (0: unknown), from which a catch-up's floor is
// found (resume.go): 4 bytes an id, the window's cost for a busy
// connection growing from 1 KiB to 1.5. The zero value is empty.
type idWindow struct {
	ring    []int64
	at      []uint32 // beside ring, for posts: created_at in unix seconds
	next    int
	evicted int64 // the highest id that left ring: every id above it added is still there
}

// add records id, written at at, and reports whether it was new.
func (w *idWindow) add(id int64, at store.Time) bool {
	for _, x := range w.ring {
		if x == id {
			return false
		}
	}
	sec := uint32(max(0, at/1000))
	if len(w.ring) < seenWindow {
		w.ring = append(w.ring, id)
		if sec != 0 || w.at != nil {
			w.at = append(w.at, make([]uint32, len(w.ring)-len(w.at))...)
			w.at[len(w.ring)-1] = sec
		}
		return true
	}
	w.evicted = max(w.evicted, w.ring[w.next])
	w.ring[w.next] = id
	if w.at != nil || sec != 0 {
		if w.at == nil {
			w.at = make([]uint32, seenWindow)
		}
		w.at[w.next] = sec
	}
	w.next = (w.next + 1) % seenWindow
	return true
}

// encodeFrame builds a frame of one connection's own (a replay or ready).
func encodeFrame(name string, data any) (frame, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return frame{}, err
	}
	return frame{own: store.FrameOf(name, raw)}, nil
}

// ownEvent is an event of one connection's own (a catch-up), as if heard
// on t: its frame, and its source for a Format.
func ownEvent(t store.Topic, name string, data any) (event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return event{}, err
	}
	return event{f: frame{own: store.FrameOf(name, raw)}, src: &Event{Topic: t, Name: name, Data: raw}}, nil
}

// prepare wraps a frame so that its WebSocket framing is computed once,
// however many connections it goes to.
func prepare(b []byte) *websocket.PreparedMessage {
	pm, _ := websocket.NewPreparedMessage(websocket.TextMessage, b) // fails only when compressing
	return pm
}
