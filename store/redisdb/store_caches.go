package redisdb

import (
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
