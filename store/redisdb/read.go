package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// message reads one message's own hash, in one round trip: repost_of holds
// only the original's id. For writers, which need no more.
func (s *Store) message(ctx context.Context, mid int64) (*store.Post, error) {
	if mid <= 0 {
		return nil, store.ErrPostNotFound
	}
	ms, err := s.loadMessages(ctx, []int64{mid})
	if err != nil {
		return nil, err
	}
	if ms[0] == nil {
		return nil, store.ErrPostNotFound
	}
	return ms[0], nil
}

// Post returns one message (a post or a comment).
func (s *Store) Post(ctx context.Context, mid int64) (store.Post, error) {
	if mid <= 0 {
		return store.Post{}, store.ErrPostNotFound
	}
	ps, err := s.posts(ctx, []int64{mid})
	if err != nil {
		return store.Post{}, err
	}
	if ps[0] == nil {
		return store.Post{}, store.ErrPostNotFound
	}
	return *ps[0], nil
}

// posts loads messages in at most two round trips (the messages, then the
// originals of the reposts among them). A message that is gone is nil.
func (s *Store) posts(ctx context.Context, mids []int64) ([]*store.Post, error) {
	out, err := s.loadMessages(ctx, mids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*store.Post, len(out))
	for _, p := range out {
		if p != nil {
			byID[p.ID] = p
		}
	}
	var need []int64
	for _, p := range out {
		if p != nil && p.RepostOf != nil {
			if _, ok := byID[p.RepostOf.ID]; !ok {
				need = append(need, p.RepostOf.ID)
			}
		}
	}
	if len(need) > 0 {
		origs, err := s.loadMessages(ctx, need)
		if err != nil {
			return nil, err
		}
		for _, o := range origs {
			if o != nil {
				byID[o.ID] = o
			}
		}
	}
	for _, p := range out {
		if p == nil || p.RepostOf == nil {
			continue
		}
		if o, ok := byID[p.RepostOf.ID]; ok {
			cp := *o
			cp.RepostOf = nil
			p.RepostOf = &cp
		} else {
			p.RepostOf = &store.Post{ID: p.RepostOf.ID, Deleted: true}
		}
	}
	return out, nil
}

// loadMessages reads B hashes in one pipeline; repost_of holds only the id.
func (s *Store) loadMessages(ctx context.Context, mids []int64) ([]*store.Post, error) {
	cmds := make([]*redis.SliceCmd, len(mids))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.HMGet(ctx, s.keys.message(mid), messageFields...)
		}
		return nil
	})
	if err != nil {
		return nil, s.wrap("load posts", err)
	}
	out := make([]*store.Post, len(mids))
	for i, c := range cmds {
		var h messageHash
		if err := c.Scan(&h); err != nil || h.Kind == "" {
			continue // gone (deleted or archived away), or not a message
		}
		out[i] = h.post(mids[i])
	}
	return out, nil
}
