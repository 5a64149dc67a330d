package mastodon

import (
	"sync"
	"time"
)

// grantCache remembers the grants of users' tokens, so that a request
// costs no more store round trips than a native one: whether the token is
// live is still asked of the store (its session), but what the token may do
// never changes while it lives. An entry is read again after grantCacheFor,
// which slides the grant's expiry in the store.
type grantCache struct {
	mu      sync.Mutex
	entries map[string]cachedGrant
}

// cachedGrant is a token's caller as its grant made it.
type cachedGrant struct {
	who   caller
	until time.Time
}

const (
	grantCacheFor = 10 * time.Minute
	// grantCacheMax bounds the memory: when full, the cache starts over.
	grantCacheMax = 100_000
)

func newGrantCache() grantCache { return grantCache{entries: make(map[string]cachedGrant)} }

// get is the caller of the token of hash, if remembered and fresh.
func (g *grantCache) get(hash string) (caller, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.entries[hash]
	if !ok || time.Now().After(e.until) {
		return caller{}, false
	}
	return e.who, true
}

// put remembers the caller of the token of hash.
func (g *grantCache) put(hash string, who caller) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.entries) >= grantCacheMax {
		clear(g.entries)
	}
	g.entries[hash] = cachedGrant{who: who, until: time.Now().Add(grantCacheFor)}
}
