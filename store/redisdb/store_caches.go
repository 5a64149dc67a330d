package redisdb

import (
	"sync"

	"microblog/store"
	"microblog/store/redisdb/account"
	"microblog/store/redisdb/internal/livecache"
)

// Each process remembers, for a short while, three things nearly every
// request asks Redis for: which user a session token belongs to, each
// author's card (its avatar, whether it is protected or suspended), and
// each reader's Lens (whom it blocks, is blocked by and mutes, and its
// filtered words). A session checked in the last livecache.TTL is taken at its
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

// caches are a Store's.
type caches struct {
	sessions livecache.Cache[string, account.Session] // token hash → its session
	authors  livecache.Cache[int64, authorCard]       // uid → what a post shows of its author
	lenses   livecache.Cache[int64, *store.Lens]      // uid → what the user may see
	seen     seenMarks                                // uid → its global:lastseen mark, as last read or written
	expiries expiries                                 // rate limit keys whose expiry this process set (store_ratelimit.go)
}

// seenMarks remember each reader's global:lastseen mark as this process
// last read or wrote it, so that a home read need not ask Redis for it
// while it is fresh (timeline_home.go, touch). A mark only ever moves
// forward (ZADD of now) or goes with its account, so a remembered one is
// never newer than Redis's; should Redis lose a write (a failover), the
// mark is written again once the remembered one is stale, at most
// min(maxSeenWrite, InactiveAfter/8) later than without the memory.
type seenMarks struct {
	mu sync.Mutex
	m  map[int64]int64 // uid → the mark, unix ms
}

// maxSeenMarks bounds the memory: past it, it starts again empty.
const maxSeenMarks = 1 << 16

// fresh says whether uid's mark is known to be at least since.
func (c *seenMarks) fresh(uid, since int64) bool {
	c.mu.Lock()
	mark, ok := c.m[uid]
	c.mu.Unlock()
	return ok && mark >= since
}

// put remembers that uid's mark is at least mark.
func (c *seenMarks) put(uid, mark int64) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxSeenMarks {
		c.m = make(map[int64]int64)
	}
	c.m[uid] = max(c.m[uid], mark)
	c.mu.Unlock()
}

// forget drops uid's mark (its account is deleted).
func (c *seenMarks) forget(uid int64) {
	c.mu.Lock()
	delete(c.m, uid)
	c.mu.Unlock()
}

// authorCard is what a page of posts needs of each author besides the
// post itself: its avatar and display name, whether it is protected or suspended, and which
// posts it pinned.
type authorCard struct {
	avatar               string // file name; "" for none
	displayName          string // "" for none
	created              int64  // when the author signed up, unix ms
	protected, suspended bool
	pins                 []int64 // at most store.MaxPins
}

func (c *caches) setLive(live bool) {
	c.sessions.SetLive(live)
	c.authors.SetLive(live)
	c.lenses.SetLive(live)
}
