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
	var replay []store.Post
	if c.hasAfter {
		if replay, err = h.tl.HomeSince(ctx, c.uid, c.after, h.opt.ReplayMax); err != nil {
			return nil, err
		}
	}
	last, err := h.tl.LastID(ctx, c.uid)
	if err != nil {
		return nil, err
	}
	if frames, err = c.goLive(replay, last, h.lensOf(c.user)); err != nil {
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
	// Truncated says the replay held only the newest ReplayMax posts: the
	// client should reload its timeline over HTTP.
	Truncated bool `json:"truncated,omitempty"`
}

// goLive builds the frames that open returns, and makes c live: from
// then on, events go to its queue instead of pending. A post in both
// the replay and pending is sent once. Pending events are held back when
// the user's lens ul, read since some of them arrived, hides them.
func (c *Conn) goLive(replay []store.Post, last int64, ul userLens) ([]frame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]frame, 0, len(replay)+1+len(c.pending))
	high := max(last, c.after)
	for _, p := range replay {
		high = max(high, p.ID)
		if !c.seen.add(p.ID) {
			continue
		}
		f, err := encodeFrame(store.EventPost, p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	c.h.m.replayed.Add(float64(len(out)))
	ready, err := encodeFrame(store.EventReady, readyData{UserID: c.uid, LastID: high, Truncated: len(replay) >= c.h.opt.ReplayMax})
	if err != nil {
		return nil, err
	}
	out = append(out, ready)
	for _, ev := range c.pending {
		if ev.about.hiddenFrom(ul) {
			c.h.m.withheld.Inc()
			continue
		}
		if ev.postID != 0 {
			if !c.seen.add(ev.postID) {
				c.h.m.duplicates.Inc()
				continue
			}
			high = max(high, ev.postID)
		}
		out = append(out, ev.f)
	}
	c.high, c.live, c.pending = high, true, nil
	return out, nil
}
