package redisdb

import (
	"microblog/store"
	"sync"
	"sync/atomic"
	"time"
)

// Each process remembers, for a short while, three things nearly every
// request asks Redis for: which user a session token belongs to, each
// author's card (its avatar, whether it is protected or suspended), and
// each reader's Lens (whom it blocks, is blocked by and mutes, and its
// filtered words). A session checked in the last cacheTTL is taken at its
// word, so an authenticated request does not wait on Redis before it
// starts; a page of posts takes its authors and its reader's lens from
// memory.
//
// What changes them is published: every session that ends (a logout, a
// logout everywhere, a changed password, a deleted account) has its token
// hash published on sessions:revoked, every changed author card its user's
// id on avatars:changed, every changed lens its user's id on
// lenses:changed, and every process forgets the entry on receipt. The
// caches are used only while that subscription is known to be up: from
// when it is confirmed until its connection fails or stops answering
// pings, and they start empty each time, so an invalidation sent while a
// process was not listening is never missed.
const (
	cacheTTL = 30 * time.Second
	// cacheMax bounds each cache's memory: past it the cache starts over.
	cacheMax = 100_000
)

// liveCache is one of those caches.
type liveCache[K comparable, V any] struct {
	mu      sync.RWMutex
	entries map[K]cached[V]
	// gen changes whenever an entry may have been invalidated (an
	// invalidation, a flush): a read of Redis that began under an older gen
	// is not cached, since an invalidation may have passed between the read
	// and the put.
	gen  atomic.Uint64
	live atomic.Bool // the invalidations are heard
}

type cached[V any] struct {
	v  V
	at time.Time
}

// get returns the value of k read recently, while the cache is live.
func (c *liveCache[K, V]) get(k K, now time.Time) (V, bool) {
	var zero V
	if !c.live.Load() {
		return zero, false
	}
	c.mu.RLock()
	e, ok := c.entries[k]
	c.mu.RUnlock()
	if !ok || now.Sub(e.at) >= cacheTTL {
		return zero, false
	}
	return e.v, true
}

// put remembers v, read from Redis, unless gen (taken before the read) is
// no longer current.
func (c *liveCache[K, V]) put(k K, v V, gen uint64, now time.Time) {
	if !c.live.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= cacheMax {
		c.entries = make(map[K]cached[V])
	}
	c.entries[k] = cached[V]{v: v, at: now}
}

// forget drops keys.
func (c *liveCache[K, V]) forget(keys ...K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen.Add(1)
	for _, k := range keys {
		delete(c.entries, k)
	}
}

// setLive turns the cache on or off, empty either way.
func (c *liveCache[K, V]) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen.Add(1)
	c.entries = nil
	c.live.Store(live)
}

// caches are a Store's.
type caches struct {
	sessions liveCache[string, cachedSession] // token hash → its session
	authors  liveCache[int64, authorCard]     // uid → what a post shows of its author
	lenses   liveCache[int64, *store.Lens]    // uid → what the user may see
}

// cachedSession is what a session token's hash stands for.
type cachedSession struct {
	uid  int64
	kind sessionKind
}

// authorCard is what a page of posts needs of each author besides the
// post itself: its avatar, whether it is protected or suspended, and which
// posts it pinned.
type authorCard struct {
	avatar               string // file name; "" for none
	protected, suspended bool
	pins                 []int64 // at most store.MaxPins
}

func (c *caches) setLive(live bool) {
	c.sessions.setLive(live)
	c.authors.setLive(live)
	c.lenses.setLive(live)
}
