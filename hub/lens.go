package hub

import (
	"context"
	"encoding/json"
	"fmt"

	"microblog/store"
)

// userLens is a user's store.Lens as Deliver asks it.
type userLens struct {
	lens *store.Lens // nil until read
	// lists: the lens blocks, mutes or filters something. A lens without
	// lists hides nothing that a nil lens would not, so Deliver asks it
	// only about what every reader may be kept from.
	lists bool
	// excluded are the members of the user's exclusive lists (nil for
	// most users): their posts leave its home feed (offHome).
	excluded map[int64]bool
}

func newUserLens(l *store.Lens) userLens {
	ul := userLens{lens: l, lists: l != nil && (len(l.Hidden) > 0 || len(l.Muted) > 0 || len(l.Words) > 0)}
	if l != nil && len(l.Excluded) > 0 {
		ul.excluded = l.Excluded
	}
	return ul
}

// offHome tells whether ev, which a user with lens ul gets, is a post or
// an edit of one by a member of the user's exclusive lists, heard on its
// author's topic or a followed topic's: not for the home feed, only for
// those lists (store.EventListPost). A user without exclusive lists pays
// one nil check.
func (ul userLens) offHome(ev *event) bool {
	if ul.excluded == nil || ev.about == nil || ev.about.post == nil || ev.src == nil {
		return false
	}
	switch ev.src.Topic.Kind {
	case store.TopicAuthor, store.TopicTag:
	default:
		return false
	}
	switch ev.src.Name {
	case store.EventPost, store.EventPostUpdate:
		return ul.excluded[ev.about.post.Author.ID]
	}
	return false
}

// subject is what the safety rule looks at in one event: the post of a post
// or comment event, or a notification. Deliver decodes it once per event
// and approves it under Hub.mu before handing the event to any connection;
// from then on it is only read.
type subject struct {
	post *store.Post
	note *store.Notification
	// anyone: a reader without lists may be kept from it (a protected
	// author's post that is not approved), so every user is asked.
	anyone bool
	// thread is the author of the post a comment's thread hangs from, as
	// the store names it on the public channel (0: none): whoever is
	// across a block from them does not get the comment.
	thread int64
}

// wirePost is the part of an encoded Post that the safety rule reads.
type wirePost struct {
	ID     int64 `json:"id"`
	Author struct {
		ID        int64 `json:"id"`
		Protected bool  `json:"protected"`
	} `json:"author"`
	Content   string     `json:"content"`
	CreatedAt store.Time `json:"created_at"` // for a catch-up's floor (resume.go)
	RepostOf  *wirePost  `json:"repost_of"`
	Deleted   bool       `json:"deleted"`
	// ThreadAuthor is on a comment heard on the public channel.
	ThreadAuthor *struct {
		ID int64 `json:"id"`
	} `json:"thread_author"`
}

func (w *wirePost) post() *store.Post {
	p := &store.Post{
		ID:        w.ID,
		Author:    store.Author{ID: w.Author.ID, Protected: w.Author.Protected},
		Content:   w.Content,
		CreatedAt: w.CreatedAt,
		Deleted:   w.Deleted,
	}
	if w.RepostOf != nil {
		p.RepostOf = w.RepostOf.post()
	}
	return p
}

// decodeSubject decodes what the safety rule needs of an event's data:
// nil for events that it lets through as they are (follow,
// notification_removed). An edited post (post_update) is a post like any;
// a counts, poll or delete event names its message's author (store.PostRef), and
// goes only to whom may see that message, as its post event did
// (CONTRACT.md §17); one without (from an older version) goes to all.
func decodeSubject(event string, data json.RawMessage) (*subject, error) {
	switch event {
	case store.EventPost, store.EventComment, store.EventPostUpdate:
		var w wirePost
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("hub: decode %s event: %w", event, err)
		}
		s := &subject{post: w.post()}
		if w.ThreadAuthor != nil {
			s.thread = w.ThreadAuthor.ID
		}
		return s, nil
	case store.EventCounts, store.EventDelete, store.EventPoll:
		var w wirePost
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("hub: decode %s event: %w", event, err)
		}
		if w.Author.ID == 0 {
			return nil, nil
		}
		return &subject{post: w.post()}, nil
	case store.EventNotification:
		var w struct {
			Actor struct {
				ID int64 `json:"id"`
			} `json:"actor"`
			Post *wirePost `json:"post"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("hub: decode %s event: %w", event, err)
		}
		n := &store.Notification{Actor: store.User{ID: w.Actor.ID}}
		if w.Post != nil {
			n.Post = w.Post.post()
		}
		return &subject{note: n}, nil
	}
	return nil, nil
}

// approveLocked marks the protected authors whose posts the readers of
// topic t may see (Author.Approved), as the store does for a reader who is
// the author or one of its fans, then sets anyone. On author:<id> every
// listener is the author or one of its fans, so the post is approved; a
// repost's original is not, since the listeners are not all its author's
// fans (the store refuses reposts of protected posts anyway). On
// notify:<id> the one reader is the topic's user, whose stars (u, nil
// when it has gone) are its follows. The caller holds mu.
func (s *subject) approveLocked(t store.Topic, u *user) {
	approve := func(p *store.Post) {
		if p == nil || !p.Author.Protected {
			return
		}
		a := p.Author.ID
		p.Author.Approved = a == t.UID || u != nil && u.stars.has(a)
	}
	if s.note != nil {
		approve(s.note.Post)
		if s.note.Post != nil {
			approve(s.note.Post.RepostOf)
		}
		s.anyone = (*store.Lens)(nil).HidesNotification(s.note)
		return
	}
	if t.Kind == store.TopicAuthor {
		s.post.Author.Approved = s.post.Author.Protected
	} else {
		approve(s.post)
		approve(s.post.RepostOf)
	}
	s.anyone = (*store.Lens)(nil).Hides(s.post, store.InFeed)
}

// hiddenFrom tells whether a user with lens ul must not get the event.
func (s *subject) hiddenFrom(ul userLens) bool {
	if s == nil || !s.anyone && !ul.lists {
		return false
	}
	if s.note != nil {
		return ul.lens.HidesNotification(s.note)
	}
	if s.thread != 0 && ul.lens.HidesUser(s.thread, store.InFeed) {
		return true
	}
	return ul.lens.Hides(s.post, store.InFeed)
}

// readLens reads u's lens, numbering the read. A read that begins after a
// lens_changed event was heard sees that change, and each event is
// followed by a read; so the read that began last is the one to keep,
// whichever answers first.
func (h *Hub) readLens(ctx context.Context, u *user) (n uint64, l *store.Lens, err error) {
	h.mu.Lock()
	u.lensReads++
	n = u.lensReads
	h.mu.Unlock()
	l, err = h.tl.Lens(ctx, u.id)
	if err != nil {
		err = fmt.Errorf("hub: read the lens of user %d: %w", u.id, err)
	}
	return n, l, err
}

// setLensLocked keeps what read n found, lens or error, unless a read that
// began later was kept already, and returns the error of the read kept:
// while it is not nil, u's lens may be out of date. The caller holds mu.
func (u *user) setLensLocked(n uint64, l *store.Lens, err error) error {
	if n > u.lensRead {
		u.lensRead, u.lensErr = n, err
		if err == nil {
			u.lens = newUserLens(l)
		}
	}
	return u.lensErr
}

// lensChanged starts holding uid's events after a lens_changed event and
// queues a read of its lens, unless one is queued and has not begun yet:
// that one will see the change.
func (h *Hub) lensChanged(uid int64) {
	if h.ctx.Err() != nil {
		return // shutting down: the control goroutine is gone
	}
	h.mu.RLock()
	u := h.users[uid]
	if u != nil {
		u.holding.Store(true)
	}
	h.mu.RUnlock()
	if u != nil && u.lensDue.CompareAndSwap(false, true) {
		h.control.push(func() { h.applyLens(u) })
	}
}

// holdLocked keeps ev for u until its lens is read again. If more events
// wait than a connection's queue takes, u's connections are asked to
// reconnect instead, for a replay that the store filters. The caller holds
// mu for reading at least.
func (h *Hub) holdLocked(u *user, ev event) {
	u.heldMu.Lock()
	defer u.heldMu.Unlock()
	if len(u.held) < h.opt.SendQueue {
		u.held = append(u.held, ev)
		return
	}
	u.held = nil
	for c := range u.conns.all() {
		c.closeWith(CloseResume, "live feed interrupted, reconnect with ?after")
	}
}

// applyLens reads u's lens again, puts it in force, and lets the events
// held meanwhile through it, unless another change was heard since the
// read began: the read it queued will let them through. It runs on the
// control goroutine, so that Deliver never waits for Redis. A ready user
// whose lens cannot be read fails: its connections might otherwise get what
// it just blocked, muted or filtered.
func (h *Hub) applyLens(u *user) {
	u.lensDue.Store(false) // a change heard from now on queues another read
	ctx, cancel := context.WithTimeout(h.ctx, h.opt.WriteWait)
	defer cancel()
	n, l, err := h.readLens(ctx, u)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.users[u.id] != u {
		return
	}
	err = u.setLensLocked(n, l, err)
	if err == nil && u.lensDue.Load() {
		return
	}
	u.heldMu.Lock()
	held := u.held
	u.held = nil
	u.heldMu.Unlock()
	u.holding.Store(false)
	switch {
	case err == nil:
		for _, ev := range held {
			h.sendLocked(u, ev)
		}
	case u.state == userReady:
		h.failLocked(u, err)
	}
	// A loading user fails in load, which sees the error.
}

// failLocked makes a ready user failed: its connections are closed with
// CloseResume, and those that join it are refused until the last one has
// left, so that the next one loads the user afresh. The caller holds mu.
func (h *Hub) failLocked(u *user, err error) {
	h.log.Warn("live: user's live feed failed", "user", u.id, "err", err)
	u.state, u.err = userFailed, err
	for c := range u.conns.all() {
		c.closeWith(CloseResume, "live feed interrupted, reconnect with ?after")
	}
}

// lensOf is u's lens now.
func (h *Hub) lensOf(u *user) userLens {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return u.lens
}
