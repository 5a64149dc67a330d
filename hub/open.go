package hub

import (
	"context"
	"errors"

	"microblog/store"
)

// errPanic stands for a panic recovered while opening or writing.
var errPanic = errors.New("hub: panic")

// open is a connection's start-up: it joins the user's topics, reads the
// replay, and returns the frames to send first: the replayed posts, ready,
// and whatever arrived meanwhile. Subscribing before reading means nothing
// falls between replay and live; what both bring is dropped by id. ctx
// ends when the connection starts closing.
func (c *Conn) open(ctx context.Context) (frames []frame, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("open", r)
			frames, err = nil, errPanic
		}
	}()
	h := c.h
	resubscribes := h.resubscribes.Load()
	if err := h.join(ctx, c); err != nil {
		return nil, err
	}
	if c.publicAtStart {
		if err := h.listenPublic(ctx, c, true); err != nil {
			return nil, err
		}
	}
	var r replay
	if c.uid != 0 { // a client that is no user has no timeline
		if err := h.readReplay(ctx, c, &r); err != nil {
			return nil, err
		}
	}
	if frames, err = c.goLive(r, h.lensOf(c.user)); err != nil {
		return nil, err
	}
	if h.resubscribes.Load() != resubscribes {
		// The broker came back while c was opening: the hub's catch-up
		// skipped c, so c catches up on its own.
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			ctx, cancel := context.WithTimeout(h.ctx, 2*h.opt.WriteWait)
			defer cancel()
			h.catchUp(ctx, c)
		}()
	}
	return frames, nil
}

// readReplay reads, while c opens, the posts and messages it missed (when
// it asked for them) and the newest ids of its user.
func (h *Hub) readReplay(ctx context.Context, c *Conn, r *replay) error {
	max := 0 // no replay asked for: the newest id alone
	if c.hasAfter {
		max = h.opt.ReplayMax
	}
	var err error
	if r.posts, r.last, err = h.tl.HomeSinceLast(ctx, c.uid, c.after, max, c.clientSeen); err != nil {
		return err
	}
	return h.readDMReplay(ctx, c, r)
}

// closeForError closes c after open failed, with the code that tells the
// client what to do; the writer then sends it.
func (c *Conn) closeForError(err error) {
	switch {
	case errors.Is(err, errPanic):
		c.closeWith(closeInternal, "internal error")
	case c.closing(): // with the code already decided
	default:
		c.h.log.Warn("live: start connection", "user", c.uid, "err", err)
		c.closeWith(CloseResume, "live feed unavailable, reconnect later")
	}
}

// readyData is the data of the ready event.
type readyData struct {
	UserID int64 `json:"user_id"`
	LastID int64 `json:"last_id"`
	// LastDMID is the newest private message id the client has.
	LastDMID int64 `json:"last_message_id"`
	// Truncated says the replay held only the newest ReplayMax posts: the
	// client should reload its timeline over HTTP; DMsTruncated the
	// same of the private messages.
	Truncated    bool `json:"truncated,omitempty"`
	DMsTruncated bool `json:"messages_truncated,omitempty"`
}

// replay is what a connection reads while it opens: the posts and private
// messages it missed (when it asked for them), oldest first, and the
// newest ids of each.
type replay struct {
	posts        []store.Post
	messages     []store.DM
	last, lastDM int64
}

// goLive builds the frames that open returns, and makes c live: from
// then on, events go to its queue instead of pending. A post or message
// in both the replay and pending is sent once. Pending events are held
// back when the user's lens ul, read since some of them arrived, hides
// them.
func (c *Conn) goLive(r replay, ul userLens) ([]frame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]frame, 0, len(r.posts)+len(r.messages)+1+len(c.pending))
	c.high, c.msgHigh = max(r.last, c.after), max(r.lastDM, c.dmsAfter)
	c.openFloor = c.high
	if c.hasAfter {
		c.openFloor = c.after
	}
	for _, id := range c.clientSeen { // held already: neither replayed nor sent live
		c.seen.add(id, 0)
	}
	c.clientSeen = nil
	if c.hasDMsAfter && c.notifyWarm && c.dmsAfter > 0 {
		c.msgSeen.add(c.dmsAfter, 0) // the client has it: its event may come yet (dm.go)
	}
	for _, p := range r.posts {
		if !c.firstLocked(event{postID: p.ID, postAt: p.CreatedAt}) {
			continue
		}
		if c.format != nil { // as if heard on its author's topic (HomeMark)
			ev, err := ownEvent(store.AuthorTopic(p.Author.ID), store.EventPost, p)
			if err != nil {
				return nil, err
			}
			out = c.appendFramesLocked(out, ev)
			continue
		}
		f, err := encodeFrame(store.EventPost, p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	for _, m := range r.messages {
		if !c.firstLocked(event{messageID: m.ID}) {
			continue
		}
		f, err := encodeFrame(store.EventDM, m)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	c.h.m.replayed.Add(float64(len(out)))
	ready, err := encodeFrame(store.EventReady, readyData{UserID: c.uid, LastID: c.high, LastDMID: c.msgHigh,
		Truncated: len(r.posts) >= c.h.opt.ReplayMax, DMsTruncated: len(r.messages) >= c.h.opt.ReplayMax})
	if err != nil {
		return nil, err
	}
	if c.format == nil { // a Format's protocol has no ready
		out = append(out, ready)
	}
	for _, ev := range c.pending {
		if ev.about.hiddenFrom(ul) {
			c.h.m.withheld.Inc()
			continue
		}
		if !c.firstLocked(ev) || c.hadDMLocked(ev) {
			c.h.m.duplicates.Inc()
			continue
		}
		out = c.appendFramesLocked(out, ev)
	}
	c.live, c.pending = true, nil
	return out, nil
}

// HomeMark is the newest id of uid's home timeline (0 when it is empty), for
// a client whose protocol has no ?after= of its own (Mastodon's streams): a
// handler reads it before it answers the upgrade and opens the connection
// with it as Client.After, so that a post written between the client's
// "connected" and the hub's subscriptions, which no live event brings, is
// replayed (fan-outs in flight included) instead of lost.
func (h *Hub) HomeMark(ctx context.Context, uid int64) (int64, error) {
	_, last, err := h.tl.HomeSinceLast(ctx, uid, 0, 0, nil)
	return last, err
}
