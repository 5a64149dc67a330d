// Package livecache is the store's in-process cache of values read from
// Redis, used only while the invalidations of those values are heard
// (store/redisdb/store_caches.go says which caches there are and how they
// are kept).
package livecache

import (
	"sync"
	"sync/atomic"
	"time"
)

const (
	// TTL is how long an entry is taken at its word.
	TTL = 30 * time.Second
	// Max bounds each cache's memory: past it the cache starts over.
	Max = 100_000
)

// Cache is one of those caches.
type Cache[K comparable, V any] struct {
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

// Gen is the cache's generation, to be taken before a read of Redis whose
// value is then Put.
func (c *Cache[K, V]) Gen() uint64 { return c.gen.Load() }

// Get returns the value of k read recently, while the cache is live.
func (c *Cache[K, V]) Get(k K, now time.Time) (V, bool) {
	var zero V
	if !c.live.Load() {
		return zero, false
	}
	c.mu.RLock()
	e, ok := c.entries[k]
	c.mu.RUnlock()
	if !ok || now.Sub(e.at) >= TTL {
		return zero, false
	}
	return e.v, true
}

// Put remembers v, read from Redis, unless gen (taken before the read) is
// no longer current.
func (c *Cache[K, V]) Put(k K, v V, gen uint64, now time.Time) {
	if !c.live.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= Max {
		c.entries = make(map[K]cached[V])
	}
	c.entries[k] = cached[V]{v: v, at: now}
}

// Forget drops keys.
func (c *Cache[K, V]) Forget(keys ...K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen.Add(1)
	for _, k := range keys {
		delete(c.entries, k)
	}
}

// SetLive turns the cache on or off, empty either way.
func (c *Cache[K, V]) SetLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen.Add(1)
	c.entries = nil
	c.live.Store(live)
}

// Live tells whether the cache is on.
func (c *Cache[K, V]) Live() bool { return c.live.Load() }
