package hub

import (
	"context"
	"errors"

	"microblog/store"
)

// user is one user with connections in this process. All its connections
// share its topics: notify:<id>, author:<id> and author:<star> per star.
type user struct {
	id    int64
	conns map[*Conn]struct{} // guarded by Hub.mu
	stars map[int64]struct{} // guarded by Hub.mu; the stars whose topics it listens to

	// loaded is closed once the user's topics are subscribed and in force;
	// loadErr says whether that worked. starEvents records the stars events
	// that arrive while loading (nil after), which win over the snapshot.
	loaded     chan struct{}
	loadErr    error
	starEvents map[int64]bool // guarded by Hub.mu
}

// join adds c to its user, subscribing the user's topics if c is the user's
// first connection here, and returns once they are in force.
func (h *Hub) join(ctx context.Context, c *Conn) error {
	h.mu.Lock()
	u, ok := h.users[c.uid]
	if !ok {
		u = &user{
			id:         c.uid,
			conns:      make(map[*Conn]struct{}),
			stars:      make(map[int64]struct{}),
			loaded:     make(chan struct{}),
			starEvents: make(map[int64]bool),
		}
		h.users[c.uid] = u
	}
	u.conns[c] = struct{}{}
	c.user = u
	h.mu.Unlock()

	if !ok {
		u.loadErr = h.load(ctx, u)
		close(u.loaded)
		return u.loadErr
	}
	select {
	case <-u.loaded:
	case <-ctx.Done():
		return ctx.Err()
	}
	if u.loadErr != nil {
		return u.loadErr
	}
	// The user's topics may have been subscribed by a connection that is
	// itself still waiting for them to be in force.
	return h.sync(ctx)
}

// syncAttempts is how many times a Sync cut short by a break of the
// subscriber connection is tried again: the subscriptions come back with it.
const syncAttempts = 3

// sync waits until the broker's subscriptions are in force.
func (h *Hub) sync(ctx context.Context) error {
	var err error
	for range syncAttempts {
		if err = h.broker.Sync(ctx); !errors.Is(err, store.ErrSubscriberGap) {
			return err
		}
	}
	return err
}

// load subscribes a newly joined user's own topics, then reads its stars and
// subscribes theirs. Its own notify topic comes first so that no follow or
// unfollow can fall between the read and the subscription.
func (h *Hub) load(ctx context.Context, u *user) error {
	err := h.changeTopics(ctx, func() (add, remove []store.Topic) {
		return []store.Topic{store.NotifyTopic(u.id), store.AuthorTopic(u.id)}, nil
	}, u)
	if err == nil {
		err = h.sync(ctx)
	}
	if err != nil {
		return err
	}
	stars, err := h.tl.Stars(ctx, u.id)
	if err != nil {
		return err
	}
	err = h.changeTopics(ctx, func() (add, remove []store.Topic) {
		want := make(map[int64]struct{}, len(stars))
		for _, s := range stars {
			want[s] = struct{}{}
		}
		for s, following := range u.starEvents {
			if following {
				want[s] = struct{}{}
			} else {
				delete(want, s)
			}
		}
		u.starEvents = nil
		return h.diffStarsLocked(u, want)
	}, u)
	if err == nil {
		err = h.sync(ctx)
	}
	return err
}

// diffStarsLocked makes want the user's stars and returns the topics to add
// and remove. The caller holds mu.
func (h *Hub) diffStarsLocked(u *user, want map[int64]struct{}) (add, remove []store.Topic) {
	delete(want, u.id)
	for s := range want {
		if _, ok := u.stars[s]; !ok {
			add = append(add, store.AuthorTopic(s))
		}
	}
	for s := range u.stars {
		if _, ok := want[s]; !ok {
			remove = append(remove, store.AuthorTopic(s))
		}
	}
	u.stars = want
	return add, remove
}

// applyStars follows or unfollows star for uid's connections here. It runs
// on the control goroutine.
func (h *Hub) applyStars(uid int64, d store.StarsData) {
	h.mu.RLock()
	u := h.users[uid]
	h.mu.RUnlock()
	if u == nil {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, h.opt.WriteWait)
	defer cancel()
	err := h.changeTopics(ctx, func() (add, remove []store.Topic) {
		if h.users[uid] != u {
			return nil, nil
		}
		if u.starEvents != nil { // still loading: the event wins over the snapshot
			u.starEvents[d.StarID] = d.Following
			return nil, nil
		}
		want := make(map[int64]struct{}, len(u.stars)+1)
		for s := range u.stars {
			want[s] = struct{}{}
		}
		if d.Following {
			want[d.StarID] = struct{}{}
		} else {
			delete(want, d.StarID)
		}
		return h.diffStarsLocked(u, want)
	}, u)
	if err != nil {
		// The topic is remembered by the broker and subscribed on reconnection.
		h.log.Warn("live: subscribe to new star", "user", uid, "star", d.StarID, "err", err)
	}
}

// revoke closes uid's connections opened with the session tokenHash.
func (h *Hub) revoke(uid int64, tokenHash string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	u := h.users[uid]
	if u == nil {
		return
	}
	for c := range u.conns {
		if c.tokenHash == tokenHash {
			c.closeWith(CloseLoggedOut, "logged out")
		}
	}
}
