package social

import (
	"context"
	"errors"
	"slices"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// openThreads keeps of items those viewer may open as Post would give them:
// a comment only while every message above it is there (deleting a post
// takes its thread down) and viewer may see its thread's post. It returns
// the ids of the comments whose thread is gone too, as ZREM takes them. The
// threads are read a level at a time for all the comments at once: one
// round trip per level, and one for the threads' posts.
func (s *Social) openThreads(ctx context.Context, items []store.Post, viewer int64) ([]store.Post, []any, error) {
	next := make(map[int]int64) // index in items → the message above it, to read next
	for i, p := range items {
		if p.ParentID != nil {
			next[i] = *p.ParentID
		}
	}
	if len(next) == 0 {
		return items, nil, nil
	}
	roots := make(map[int]int64, len(next))
	shut := make(map[int]bool) // items viewer may not open
	var gone []any
	for depth := 0; len(next) > 0 && depth < schema.MaxThreadDepth; depth++ {
		mids := distinctValues(next)
		ms, err := s.core.LoadPosts(ctx, mids, 0)
		if err != nil {
			return nil, nil, err
		}
		for i, mid := range next {
			m := ms[slices.Index(mids, mid)]
			switch {
			case m == nil:
				shut[i] = true
				gone = append(gone, items[i].ID)
				delete(next, i)
			case m.ParentID == nil:
				roots[i] = mid
				delete(next, i)
			default:
				next[i] = *m.ParentID
			}
		}
	}
	// Deeper threads than that are rare: their comments are checked one by one.
	for i := range next {
		_, err := s.core.Post(ctx, items[i].ID, viewer)
		if errors.Is(err, store.ErrNotFound) {
			shut[i] = true
		} else if err != nil {
			return nil, nil, err
		}
	}
	if len(roots) > 0 {
		mids := distinctValues(roots)
		posts, err := s.core.Posts(ctx, mids, viewer)
		if err != nil {
			return nil, nil, err
		}
		if err := s.sieve(ctx, posts, viewer, store.InView); err != nil {
			return nil, nil, err
		}
		for i, root := range roots {
			if posts[slices.Index(mids, root)] == nil {
				shut[i] = true
			}
		}
	}
	out := make([]store.Post, 0, len(items))
	for i, p := range items {
		if !shut[i] {
			out = append(out, p)
		}
	}
	return out, gone, nil
}

// distinctValues are the values of m, each once.
func distinctValues(m map[int]int64) []int64 {
	out := make([]int64, 0, len(m))
	for _, v := range m {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
