package hub

import (
	"context"
	"fmt"

	"microblog/store"
)

// Followed topics. A user listens to the TagTopic of each topic it follows
// (store.LiveTimeline.TagKeys), on which the store publishes the new public
// posts that carry it: they reach the user's connections like its stars'
// posts, through its lens at InFeed, and a post heard on both its author's
// topic and a topic's goes out once (the window of post ids sent). The
// topics are read with the stars at load and after a gap, and again on
// each tags_changed event (internal, on notify:<id>), on the control
// goroutine; reads are numbered and the one that began last is kept,
// whichever answers first, as for the lens. No protected author's post is
// published on a tag topic, and none heard there is approved: its readers
// are not all the author's fans.

// userTags is what a user keeps of its followed topics. All of it is
// guarded by Hub.mu.
type userTags struct {
	keys  smallSet[string] // the topics whose TagTopic the user listens to
	reads uint64           // reads begun
	read  uint64           // the read keys comes from
}

// readTags reads u's followed topics, numbering the read.
func (h *Hub) readTags(ctx context.Context, u *user) (n uint64, keys []string, err error) {
	h.mu.Lock()
	u.tags.reads++
	n = u.tags.reads
	h.mu.Unlock()
	keys, err = h.tl.TagKeys(ctx, u.id)
	if err != nil {
		err = fmt.Errorf("hub: read the topics of user %d: %w", u.id, err)
	}
	return n, keys, err
}

// diffTagsLocked makes the topics that read n found u's, unless a read that
// began later was kept already, and returns the topics to add and remove.
// The caller holds mu.
func (u *user) diffTagsLocked(n uint64, keys []string) (add, remove []store.Topic) {
	if n <= u.tags.read {
		return nil, nil
	}
	u.tags.read = n
	var want smallSet[string]
	for _, k := range keys {
		if k != "" {
			want.add(k)
		}
	}
	for k := range want.all() {
		if !u.tags.keys.has(k) {
			add = append(add, store.TagTopic(k))
		}
	}
	for k := range u.tags.keys.all() {
		if !want.has(k) {
			remove = append(remove, store.TagTopic(k))
		}
	}
	u.tags.keys = want
	return add, remove
}

// tagTopicsLocked are the topics of u's followed topics. The caller holds mu.
func (u *user) tagTopicsLocked() []store.Topic {
	var out []store.Topic
	for k := range u.tags.keys.all() {
		out = append(out, store.TagTopic(k))
	}
	return out
}

// tagsChanged queues a read of uid's followed topics after a tags_changed
// event, unless one is queued and has not begun yet: that one will see
// the change.
func (h *Hub) tagsChanged(uid int64) {
	if h.ctx.Err() != nil {
		return // shutting down: the control goroutine is gone
	}
	h.mu.RLock()
	u := h.users[uid]
	h.mu.RUnlock()
	if u != nil && u.tagsDue.CompareAndSwap(false, true) {
		h.control.push(func() { h.applyTags(u) })
	}
}

// applyTags reads u's followed topics again and listens to them. It runs on
// the control goroutine. A failed read is logged: what it would have
// brought live is in the home timeline, which the store reads itself.
func (h *Hub) applyTags(u *user) {
	u.tagsDue.Store(false) // a change heard from now on queues another read
	ctx, cancel := context.WithTimeout(h.ctx, h.opt.WriteWait)
	defer cancel()
	n, keys, err := h.readTags(ctx, u)
	if err == nil {
		err = h.changeTopics(ctx, u, func() (add, remove []store.Topic) {
			if h.users[u.id] != u || u.state == userFailed {
				return nil, nil
			}
			return u.diffTagsLocked(n, keys)
		})
	}
	if err != nil {
		h.log.Warn("live: followed topics", "user", u.id, "err", err)
	}
}
