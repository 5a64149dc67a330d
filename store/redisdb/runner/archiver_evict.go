package runner

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Moving a message out of Redis. Once the archive holds a message that has
// left its hot window, the archiver takes out of Redis, in two steps:
//
//  1. its hash B:<mid> and its likes set likes:<mid>, together, in one
//     script (evict_hot.lua), only if the archive holds every like of that
//     set and the set has not changed since the archiver read it, and no
//     edit of it waits for the archive; else both stay until a later batch
//     (the one that saves the like that was missing);
//  2. then its other keys and its index entries: its D, E and history
//     keys, its id in the index that named it, in the T: set of each of its
//     topics and in each liker's own set of liked messages.
//
// Each step may run again: a message whose hash is gone (a crash between
// the two) takes step 2 again, with its topics and likers read from the
// archive. Nothing is written to the archive here, so nothing a like or an
// unlike made meanwhile did can be undone.

// evictSaved moves out of Redis the candidates the archive holds, and
// returns the comments of the messages that left: candidates in turn.
func (a *Archiver) evictSaved(ctx context.Context, cands []evictCandidate) ([]evictCandidate, error) {
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.mid
	}
	has, err := a.s.Archive().Has(ctx, ids)
	if err != nil {
		return nil, a.s.Wrap("archive: evict", err)
	}
	saved := make(map[int64]bool, len(has))
	for _, mid := range has {
		saved[mid] = true
	}
	var leaving []int64 // the saved messages that may leave, each once
	seen := make(map[int64]bool, len(cands))
	for _, c := range cands {
		if saved[c.mid] && !c.keep && !seen[c.mid] {
			seen[c.mid] = true
			leaving = append(leaving, c.mid)
		}
	}
	states, err := a.inspect(ctx, leaving)
	if err != nil {
		return nil, err
	}
	if err := a.leave(ctx, states); err != nil {
		return nil, err
	}
	replies := map[int64]*redis.StringSliceCmd{}
	_, err = a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, c := range cands {
			st := states[c.mid]
			switch {
			case !saved[c.mid]:
				continue // not archived yet: its own batch moves it
			case c.keep:
			case !st.left:
				continue // stays hot this time, in its index too
			case replies[c.mid] == nil:
				a.queueLeftovers(ctx, pl, c.mid, st)
				replies[c.mid] = pl.ZRange(ctx, a.keys.Comments(c.mid), 0, -1)
			}
			pl.ZRem(ctx, c.index, c.mid)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, a.s.Wrap("archive: evict", err)
	}
	a.opt.Metrics.Evicted.Add(float64(len(replies)))
	var next []evictCandidate // the comments of what left Redis go too, once archived
	for parent, c := range replies {
		for _, mid := range schema.ParseIDs(c.Val()) {
			next = append(next, evictCandidate{mid: mid, index: a.keys.Comments(parent)})
		}
	}
	return next, nil
}

// evictState is what the archiver knows of a message about to leave Redis.
type evictState struct {
	hot    bool     // its hash is in Redis
	post   bool     // a post, not a comment
	tags   []string // the tag keys of its topics
	likers []string // the uids of its likes set as read (hot), or in the archive
	ready  bool     // hot, with no edit pending, and the archive holds every like of likers
	left   bool     // out of Redis now (or was already): step 2 may run
}

// inspect reads, for each of mids, its kind, topics and likes set in one
// round trip, and the archive's likes of them in one query; and, for those
// whose hash is gone already, their topics from the archive.
func (a *Archiver) inspect(ctx context.Context, mids []int64) (map[int64]*evictState, error) {
	states := make(map[int64]*evictState, len(mids))
	if len(mids) == 0 {
		return states, nil
	}
	hashes := make([]*redis.SliceCmd, len(mids))
	likes := make([]*redis.StringSliceCmd, len(mids))
	cmds, err := a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			hashes[i] = pl.HMGet(ctx, a.keys.Post(mid), "kind", "tags", schema.FieldEditPending)
			likes[i] = pl.ZRange(ctx, a.keys.Likes(mid), 0, -1)
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, a.s.Wrap("archive: evict: read", err)
	}
	archived, err := a.s.Archive().Likers(ctx, mids)
	if err != nil {
		return nil, a.s.Wrap("archive: evict: likers", err)
	}
	var cold []int64
	for i, mid := range mids {
		kind, _ := hashes[i].Val()[0].(string)
		tags, _ := hashes[i].Val()[1].(string)
		st := &evictState{hot: kind != "", post: kind == store.KindPost, tags: jsonTagKeys(tags), likers: likes[i].Val()}
		if !st.hot {
			cold = append(cold, mid)
			st.likers = nil
			for _, uid := range archived[mid] {
				st.likers = append(st.likers, id(uid))
			}
		}
		pending, _ := hashes[i].Val()[2].(string)
		st.ready = st.hot && pending == "" && (a.opt.KeepLikesAndTopics || holds(archived[mid], st.likers))
		states[mid] = st
	}
	if len(cold) == 0 {
		return states, nil
	}
	rows, err := a.s.Archive().Posts(ctx, cold)
	if err != nil {
		return nil, a.s.Wrap("archive: evict: topics", err)
	}
	for _, mid := range cold {
		r := rows[mid]
		states[mid].post, states[mid].tags = r.Kind == store.KindPost, jsonTagKeys(r.Tags)
	}
	return states, nil
}

// holds tells whether the archive's likers of a message include every uid
// of likers.
func holds(archived []int64, likers []string) bool {
	if len(likers) == 0 {
		return true
	}
	have := make(map[int64]bool, len(archived))
	for _, uid := range archived {
		have[uid] = true
	}
	for _, uid := range likers {
		if !have[parseID(uid)] {
			return false
		}
	}
	return true
}

// jsonTagKeys are the tag keys of a message's JSON list of topics.
func jsonTagKeys(tags string) []string {
	var list []string
	schema.UnmarshalList(tags, &list)
	return schema.TagKeys(list)
}

// leave takes step 1 for the hot messages of states whose likes the archive
// holds, and marks left those now out of Redis, or out already.
func (a *Archiver) leave(ctx context.Context, states map[int64]*evictState) error {
	res := make(map[int64]*redis.Cmd, len(states))
	_, err := a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for mid, st := range states {
			switch {
			case a.opt.KeepLikesAndTopics && st.ready:
				res[mid] = schema.EvictPost.Eval(ctx, pl, []string{a.keys.Post(mid)}, "message")
			case st.ready:
				args := make([]any, len(st.likers))
				for i, uid := range st.likers {
					args[i] = uid
				}
				res[mid] = schema.EvictHot.Eval(ctx, pl, []string{a.keys.Post(mid), a.keys.Likes(mid)}, args...)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return a.s.Wrap("archive: evict", err)
	}
	for mid, st := range states {
		if c := res[mid]; c != nil {
			n, _ := c.Int64()
			st.left = n >= 0
		} else {
			st.left = !st.hot
		}
	}
	return nil
}

// queueLeftovers takes step 2 for a message out of Redis: its other keys,
// its topic entries and its likers' entries of it.
func (a *Archiver) queueLeftovers(ctx context.Context, pl redis.Pipeliner, mid int64, st *evictState) {
	pl.Del(ctx, a.keys.PublicTime(mid), a.keys.Author(mid), a.keys.History(mid))
	if a.opt.KeepLikesAndTopics {
		return
	}
	for _, key := range st.tags { // a post's topics, and a comment's (post_comment_tags.go)
		pl.ZRem(ctx, a.keys.TagPosts(key), mid)
	}
	for _, uid := range st.likers {
		pl.ZRem(ctx, a.keys.UserLikes(parseID(uid)), mid)
	}
}

// likedPosts are the hot messages that likes are of, as much of them
// as candidates needs (kind, author, parent): the archive now has those
// likes, so such a message held back for want of them may leave (step 1),
// as its author's posts or its parent's comments do.
func (a *Archiver) likedPosts(ctx context.Context, likes []store.ArchivedLike) ([]store.Archived, error) {
	if len(likes) == 0 {
		return nil, nil
	}
	var mids []int64
	for _, l := range likes {
		if !slices.Contains(mids, l.MID) {
			mids = append(mids, l.MID)
		}
	}
	cmds := make([]*redis.SliceCmd, len(mids))
	piped, err := a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.HMGet(ctx, a.keys.Post(mid), "kind", "author", "parent")
		}
		return nil
	})
	if err := reqpath.PipeErr(piped, err); err != nil {
		return nil, a.s.Wrap("archive: evict: liked messages", err)
	}
	var out []store.Archived
	for i, c := range cmds {
		v := c.Val()
		kind, _ := v[0].(string)
		author, _ := v[1].(string)
		parent, _ := v[2].(string)
		if kind != "" {
			out = append(out, store.Archived{ID: mids[i], Kind: kind, Author: parseID(author), Parent: parseID(parent)})
		}
	}
	return out, nil
}
