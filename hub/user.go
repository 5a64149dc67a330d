package hub

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"microblog/store"
)

// userState is where a user is in its life; the package doc tells it.
type userState uint8

const (
	// userLoading: its own topics are being brought in force and its stars
	// read. Stars events wait for the read, in starEvents.
	userLoading userState = iota
	// userReady: its stars are known; stars events change its topics at once.
	userReady
	// userFailed: loading failed, or its lens could no longer be read; its
	// connections are refused until it is gone.
	userFailed
)

// user is one user with connections in this process. All its connections
// share its topics: notify:<id>, author:<id> and author:<star> per star.
type user struct {
	id    int64
	conns smallSet[*Conn] // guarded by Hub.mu
	stars starSet         // guarded by Hub.mu; the stars whose topics it listens to

	// state and err are guarded by Hub.mu. state leaves userLoading once,
	// before loaded is closed, and may later go from userReady to
	// userFailed.
	state  userState
	err    error         // why loading failed
	loaded chan struct{} // closed when load returns
	// starEvents are, while u's stars are being read (by load, or by the
	// catch-up after a gap of the broker), the stars events heard since the
	// read began, by star: they are newer than the read and win over it.
	// nil when no read is under way; load and the catch-up never read the
	// same user's stars at once. Guarded by Hub.mu.
	starEvents map[int64]bool

	// lens is what the user may see, read with its stars and again after
	// each lens_changed event. lensReads numbers the reads begun, lensRead
	// is the one lens (or lensErr, when it failed) comes from; all three
	// are guarded by Hub.mu (see readLens).
	lens      userLens
	lensReads uint64
	lensRead  uint64
	lensErr   error
	// lensDue: a read of the lens is queued on the control goroutine.
	lensDue atomic.Bool
	// holding: a lens_changed event was heard and the lens read since is
	// not in force yet. Meanwhile Deliver holds the user's events in held,
	// in order, for applyLens to let through the new lens: an event that
	// follows a block must not slip through the old lens. held is guarded
	// by heldMu, taken under Hub.mu.
	holding atomic.Bool
	heldMu  sync.Mutex
	held    []event

	// public counts the connections that listen to the public topic
	// (format.go); the user listens while it is not 0. Guarded by Hub.mu.
	public int

	// tags are its followed topics (tags.go); tagsDue: a read of them is
	// queued on the control goroutine.
	tags    userTags
	tagsDue atomic.Bool
}

func newUser(id int64) *user {
	return &user{id: id, loaded: make(chan struct{})}
}

// ownTopics are the topics a user listens to whoever it follows. The
// user 0, which holds the connections of clients that are no user (an
// app's token of the Mastodon API), has none.
func (u *user) ownTopics() []store.Topic {
	if u.id == 0 {
		return nil
	}
	return []store.Topic{store.NotifyTopic(u.id), store.AuthorTopic(u.id)}
}

// starSet is a set of the ids of users that a user follows (never 0).
type starSet struct{ smallSet[int64] }

func newStarSet(ids []int64) starSet {
	var s starSet
	for _, id := range ids {
		s.add(id)
	}
	return s
}

func (s *starSet) clone() starSet {
	var c starSet
	for id := range s.all() {
		c.add(id)
	}
	return c
}

// set adds id when following and removes it otherwise.
func (s *starSet) set(id int64, following bool) {
	if following {
		s.add(id)
	} else {
		s.remove(id)
	}
}

// join adds c to its user, loading the user if c is its first connection
// here, and returns once the user's topics are in force.
func (h *Hub) join(ctx context.Context, c *Conn) error {
	h.mu.Lock()
	u, ok := h.users[c.uid]
	if !ok {
		u = newUser(c.uid)
		h.users[c.uid] = u
	}
	u.conns.add(c)
	c.user = u
	_, c.notifyWarm = h.topics[store.NotifyTopic(c.uid)]
	h.mu.Unlock()

	if !ok {
		if err := h.load(ctx, u); err != nil {
			return err
		}
	}
	select {
	case <-u.loaded:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.RLock()
	state, err := u.state, u.err
	h.mu.RUnlock()
	if state == userFailed {
		return err
	}
	// Each connection waits for the topics to be in force itself: another
	// connection may have subscribed them and still be waiting for that.
	return h.sync(ctx)
}

// load takes a new user out of userLoading. Its own topics come first and
// are brought in force before its stars are read, so that no follow or
// unfollow can fall between the read and the subscription. loaded is
// closed when load returns, after the stars' SUBSCRIBE is written, so that
// the Sync of a connection that waited for it covers them.
func (h *Hub) load(ctx context.Context, u *user) error {
	defer close(u.loaded)
	if u.id == 0 { // no user: no topics, stars or lens of its own
		h.mu.Lock()
		u.state = userReady
		h.mu.Unlock()
		return nil
	}
	err := h.changeTopics(ctx, u, func() (add, remove []store.Topic) {
		return u.ownTopics(), nil
	})
	if err == nil {
		err = h.sync(ctx)
	}
	ready := false
	for err == nil && !ready {
		ready, err = h.loadStars(ctx, u)
	}
	if !ready {
		h.mu.Lock()
		u.state, u.err = userFailed, err
		h.mu.Unlock()
	}
	return err
}

// loadStars reads u's lens and stars, subscribes the stars' topics and
// makes u ready, unless the broker came back from a gap since the reads
// began: they may have missed follows or lens changes whose events were
// lost in the gap, and the catch-up after the gap leaves loading users
// out, so load reads again. It fails when a newer read of the lens (after
// a lens_changed event) failed meanwhile.
func (h *Hub) loadStars(ctx context.Context, u *user) (ready bool, err error) {
	resubscribes := h.resubscribes.Load()
	n, lens, err := h.readLens(ctx, u)
	if err != nil {
		return false, err
	}
	stars, err := h.readStars(ctx, u)
	if err != nil {
		return false, err
	}
	tn, tags, err := h.readTags(ctx, u)
	if err != nil {
		return false, err
	}
	var lensErr error
	err = h.changeTopics(ctx, u, func() (add, remove []store.Topic) {
		// Checked under mu, where the catch-up picks the ready users: a
		// gap that ends after this has its catch-up read u's stars again.
		if h.resubscribes.Load() != resubscribes {
			return nil, nil
		}
		want := u.endStarsReadLocked(stars)
		if lensErr = u.setLensLocked(n, lens, nil); lensErr != nil {
			return nil, nil
		}
		ready, u.state = true, userReady
		add, remove = h.diffStarsLocked(u, want)
		tagAdd, tagRemove := u.diffTagsLocked(tn, tags)
		return append(add, tagAdd...), append(remove, tagRemove...)
	})
	if lensErr != nil {
		return false, lensErr
	}
	return ready, err
}

// readStars reads u's stars. From before the read until the caller passes
// them to endStarsReadLocked, the stars events heard for u are kept in
// starEvents, to win over the read. Those kept for an earlier read are
// dropped: they were heard before this read began, so it sees them.
func (h *Hub) readStars(ctx context.Context, u *user) ([]int64, error) {
	h.mu.Lock()
	u.starEvents = make(map[int64]bool)
	h.mu.Unlock()
	stars, err := h.tl.Stars(ctx, u.id)
	if err != nil {
		h.mu.Lock()
		u.starEvents = nil
		h.mu.Unlock()
	}
	return stars, err
}

// endStarsReadLocked returns the stars that readStars read, with the stars
// events heard since it began applied over them, and stops keeping those
// events. The caller holds mu.
func (u *user) endStarsReadLocked(read []int64) starSet {
	want := newStarSet(read)
	for s, following := range u.starEvents {
		want.set(s, following)
	}
	u.starEvents = nil
	return want
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

// diffStarsLocked makes want the user's stars and returns the topics to add
// and remove. The caller holds mu.
func (h *Hub) diffStarsLocked(u *user, want starSet) (add, remove []store.Topic) {
	want.remove(u.id) // its own author topic is not a star's
	for s := range want.all() {
		if !u.stars.has(s) {
			add = append(add, store.AuthorTopic(s))
		}
	}
	for s := range u.stars.all() {
		if !want.has(s) {
			remove = append(remove, store.AuthorTopic(s))
		}
	}
	u.stars = want
	return add, remove
}

// applyStars follows or unfollows star for uid's connections here. It runs
// on the control goroutine, in the order the events arrived.
func (h *Hub) applyStars(uid int64, d store.StarsData) {
	h.mu.RLock()
	u := h.users[uid]
	h.mu.RUnlock()
	if u == nil {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, h.opt.WriteWait)
	defer cancel()
	err := h.changeTopics(ctx, u, func() (add, remove []store.Topic) {
		if h.users[uid] != u {
			return nil, nil
		}
		if u.starEvents != nil {
			// Newer than the stars being read: applied over them too, or
			// the read would undo it.
			u.starEvents[d.StarID] = d.Following
		}
		// A loading user takes it from starEvents, or, if its read has not
		// begun yet, from the read itself. A failed user listens to nothing.
		if u.state != userReady {
			return nil, nil
		}
		want := u.stars.clone()
		want.set(d.StarID, d.Following)
		return h.diffStarsLocked(u, want)
	})
	if err != nil {
		// The topic is remembered by the broker and subscribed on reconnection.
		h.log.Warn("live: subscribe to new star", "user", uid, "star", d.StarID, "err", err)
		return
	}
	if d.Following {
		h.catchUpFollow(ctx, u, d.Since)
	}
}

// catchUpFollow replays to u's connections what a new star posted after
// the follow (message ids above since) while its topic was being
// subscribed: the star's process may publish a post right after the follow,
// before this process's SUBSCRIBE is in force. The star's older posts are
// not replayed: they were never live for this user. Connections with a gap
// mark are left to the broker's own catch-up.
func (h *Hub) catchUpFollow(ctx context.Context, u *user, since int64) {
	if h.sync(ctx) != nil {
		return // the broker broke: its catch-up covers this
	}
	for _, c := range h.connsOf(u) {
		c.mu.Lock()
		marked := c.gapMarked
		c.mu.Unlock()
		if !marked {
			h.catchUpAfter(ctx, c, since)
		}
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
	for c := range u.conns.all() {
		if c.tokenHash == tokenHash {
			c.closeWith(CloseLoggedOut, "logged out")
		}
	}
}

// connsOf is a snapshot of u's connections, to work on without holding mu.
func (h *Hub) connsOf(u *user) []*Conn {
	h.mu.RLock()
	defer h.mu.RUnlock()
	conns := make([]*Conn, 0, u.conns.len())
	for c := range u.conns.all() {
		conns = append(conns, c)
	}
	return conns
}
