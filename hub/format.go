package hub

import (
	"context"
	"encoding/json"
	"sync"

	"microblog/store"
)

// Format speaks another protocol than the live feed's own over a
// connection (the Mastodon streaming API): the connection gets the frames
// it makes of the hub's events instead of the native frames. The events
// reach it through the same topics, safety rule and queue as the native
// feed's; ready and internal events are not given to it, and replayed posts
// (Client.After) come as if heard on their authors' topics.
//
// A Format is one connection's. AppendFrames is called under the hub's
// locks and must not block; Receive is called on the connection's reader.
type Format interface {
	// AppendFrames appends to dst the frames the connection sends for ev,
	// none when it wants none. The work that does not depend on the
	// connection is done once per event through ev.Shared. offHome says
	// that ev is a post (or its edit) by a member of one of the user's
	// exclusive lists: not for its home feed, only for those lists.
	AppendFrames(dst []Frame, ev *Event, offHome bool) []Frame
	// Receive is one text message from the client, read once the
	// connection is open and before the next one is read: what Receive
	// changes (c.ListenPublic) is in force when the client's next frame,
	// a ping for instance, is answered.
	Receive(c *Conn, msg []byte)
}

// Event is one event as a Format sees it: the topic it was heard on (the
// author's topic for a post caught up after a gap) and its frame's name
// and data, as the store published them. It is shared by every connection
// that gets it, and read only.
type Event struct {
	Topic store.Topic
	Name  string
	Data  json.RawMessage

	// memo holds what Shared built, by key; mu guards it. It is taken under
	// Conn.mu, with no lock inside it: Shared builds without it.
	mu   sync.Mutex
	memo []memoEntry
}

type memoEntry struct {
	key   any
	value any
}

// Shared returns what build makes for key (a comparable value), built
// once for the event however many connections ask for it: the encoding
// of a frame in a Format's protocol, for instance. build runs without the
// event's lock, so it may ask for other keys; if two callers build the
// same key at once, the first value kept is the one both get.
func (e *Event) Shared(key any, build func() any) any {
	if v, ok := e.lookup(key); ok {
		return v
	}
	v := build()
	e.mu.Lock()
	defer e.mu.Unlock()
	if kept, ok := e.findLocked(key); ok {
		return kept
	}
	e.memo = append(e.memo, memoEntry{key, v})
	return v
}

// lookup is what Shared kept for key, if any.
func (e *Event) lookup(key any) (any, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.findLocked(key)
}

// findLocked is lookup for a caller that holds e.mu.
func (e *Event) findLocked(key any) (any, bool) {
	for _, m := range e.memo {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// Send queues a frame of c's own, an answer to what the client sent. A
// client that sends more than it reads is closed with CloseTooSlow.
func (c *Conn) Send(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing() {
		return
	}
	if len(c.queue) >= c.h.opt.SendQueue {
		c.closeWith(CloseTooSlow, "too slow")
		return
	}
	c.queue = append(c.queue, frame{own: b})
	c.kick()
}

// Frame is one frame a Format makes for a connection.
type Frame = frame

// NewPreparedFrame frames b once as a WebSocket text message for any
// number of WebSocket connections. An event stream (StartEvents) cannot
// send it, and leaves it out.
func NewPreparedFrame(b []byte) Frame { return frame{shared: prepare(b)} }

// NewDataFrame is b as it is sent, unframed: what a Format of an event
// stream returns (b is then one whole server-sent event). A WebSocket
// would send it as a text message, framed for each connection.
func NewDataFrame(b []byte) Frame { return frame{own: b} }

// ListenPublic makes c listen to store.PublicTopic, or stop listening, and
// returns once the change is in force. A Format calls it from Receive; the
// hub counts the connections of a user that listen, and the user listens
// while one does.
func (c *Conn) ListenPublic(on bool) error {
	ctx, cancel := context.WithTimeout(c.h.ctx, c.h.opt.WriteWait)
	defer cancel()
	return c.h.listenPublic(ctx, c, on)
}

// listenPublic is ListenPublic within ctx. c has joined its user.
func (h *Hub) listenPublic(ctx context.Context, c *Conn, on bool) error {
	u := c.user
	if u == nil {
		return nil
	}
	err := h.changeTopics(ctx, u, func() (add, remove []store.Topic) {
		if c.public == on || h.users[u.id] != u {
			return nil, nil
		}
		c.public = on
		if on {
			if u.public++; u.public == 1 {
				return []store.Topic{store.PublicTopic()}, nil
			}
			return nil, nil
		}
		u.public--
		h.leavePublicLocked(u)
		return nil, nil
	})
	if err != nil || !on {
		return err
	}
	return h.sync(ctx)
}

// leavePublicLocked takes u off the public topic when none of its
// connections listens to it any more. The caller holds mu.
func (h *Hub) leavePublicLocked(u *user) {
	if u.public == 0 {
		h.removeListenerLocked(u, []store.Topic{store.PublicTopic()})
	}
}

// listPostKey is the Event.Shared key of an event's list_post frame.
type listPostKey struct{}

// listPostFrame is the native frame of post event ev as a list_post
// (store.EventListPost), built once for every connection that gets it so.
func listPostFrame(ev *Event) frame {
	return ev.Shared(listPostKey{}, func() any {
		return frame{shared: prepare(store.FrameOf(store.EventListPost, ev.Data))}
	}).(frame)
}

// appendFramesLocked appends to out what c sends for ev: its native frame,
// or what c's Format makes of it. The caller holds c.mu.
func (c *Conn) appendFramesLocked(out []frame, ev event) []frame {
	if c.format == nil {
		if ev.src != nil && ev.src.Name == store.EventListMembers {
			return out // for a Format's list streams alone
		}
		if ev.offHome && ev.src.Name == store.EventPost {
			return append(out, listPostFrame(ev.src))
		}
		return append(out, ev.f)
	}
	if ev.src == nil {
		return out
	}
	c.scratch = c.format.AppendFrames(c.scratch[:0], ev.src, ev.offHome)
	out = append(out, c.scratch...)
	clear(c.scratch)
	return out
}
