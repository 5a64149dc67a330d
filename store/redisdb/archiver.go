package redisdb

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// archiveGroup is the consumer group of every server process's archiver.
const archiveGroup = "archive"

// maxThreadDepth bounds how deep eviction follows replies to replies.
const maxThreadDepth = 16

// RunArchiver saves the archive queue to the archive and moves what has left
// the hot window out of Redis, until ctx ends. Without an archive it returns
// at once. One archiver runs per process, one batch at a time; any number of
// processes may run one, and a batch saved twice changes nothing.
func (s *Store) RunArchiver(ctx context.Context, opt ArchiverOptions) {
	if s.opt.Archive == nil {
		return
	}
	opt = opt.withDefaults()
	a := &archiver{s: s, opt: opt, log: opt.Logger,
		c: newConsumer(s.rdb, s.keys.ArchiveQueue(), archiveGroup, "archive", opt.Batch, opt.ClaimIdle, opt.Logger)}
	a.c.run(ctx, a.do, a.takeOver)
}

type archiver struct {
	s   *Store
	opt ArchiverOptions
	log *slog.Logger
	c   *consumer
}

// takeOver saves a batch that another (dead or stuck) process left unsaved
// for ClaimIdle.
func (a *archiver) takeOver(ctx context.Context, msgs []redis.XMessage) {
	a.log.Info("archive: took over a batch left idle", "entries", len(msgs))
	a.do(ctx, msgs)
}

// do saves one batch, retrying while the archive is away, then moves out of
// Redis what the batch lets go, and only then acknowledges it. A batch that
// cannot be finished stays pending, and is taken over after ClaimIdle.
func (a *archiver) do(ctx context.Context, msgs []redis.XMessage) {
	var put, del []store.Archived
	lastLike := map[[2]int64]bool{} // (mid, uid) → liked, as its last entry in the batch says
	var likeOrder []store.ArchivedLike
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
		raw, _ := m.Values["row"].(string)
		op, _ := m.Values["op"].(string)
		if op == archiveLike || op == archiveUnlike {
			var l store.ArchivedLike
			if err := json.Unmarshal([]byte(raw), &l); err != nil || l.MID == 0 || l.UID == 0 {
				a.log.Error("archive: dropping a malformed queue entry", "entry", m.ID, "err", err)
				continue
			}
			k := [2]int64{l.MID, l.UID}
			if _, seen := lastLike[k]; !seen {
				likeOrder = append(likeOrder, l)
			}
			lastLike[k] = op == archiveLike
			continue
		}
		var row store.Archived
		if err := json.Unmarshal([]byte(raw), &row); err != nil || row.ID == 0 {
			a.log.Error("archive: dropping a malformed queue entry", "entry", m.ID, "err", err)
			continue
		}
		if op == archiveDelete {
			del = append(del, row)
		} else {
			put = append(put, row)
		}
	}
	var likes, unlikes []store.ArchivedLike
	for _, l := range likeOrder {
		if lastLike[[2]int64{l.MID, l.UID}] {
			likes = append(likes, l)
		} else {
			unlikes = append(unlikes, l)
		}
	}
	retry := backoff{min: ArchiveRetryMin, max: ArchiveRetryMax}
	for {
		err := a.s.opt.Archive.Save(ctx, put, del)
		if err == nil {
			err = a.s.opt.Archive.SaveLikes(ctx, likes, unlikes)
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		a.s.opt.Metrics.archiveErrors.Inc()
		a.log.Warn("archive: save failed, will retry", "rows", len(put)+len(del), "err", err, "retry_in", retry.delay())
		retry.sleep(ctx)
	}
	a.s.opt.Metrics.archived.Add(float64(len(put) + len(del) + len(likes) + len(unlikes)))
	if err := a.s.evict(ctx, put, del); err != nil {
		if ctx.Err() == nil {
			a.log.Warn("archive: move out of Redis failed, will retry", "err", err)
		}
		return
	}
	a.c.ack(ctx, ids, nil)
}

// evict moves out of Redis what a saved batch lets go: the tombstones of
// the deletes it archived; the messages of its authors that have left their
// hot window; its comments on messages no longer hot; and, from the public
// timeline, the ids past its window. Only ids the archive holds go, so a
// reader that misses them in Redis finds them there.
func (s *Store) evict(ctx context.Context, put, del []store.Archived) error {
	authorsPast := map[int64]*redis.Cmd{}
	var publicPast *redis.Cmd
	parents := map[int64]*redis.StringCmd{} // comment id → kind of its parent
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, d := range del {
			evictMessage.Eval(ctx, pl, []string{s.keys.Message(d.ID)}, "tombstone")
		}
		for _, p := range put {
			switch {
			case p.Kind == store.KindComment:
				parents[p.ID] = pl.HGet(ctx, s.keys.Message(p.Parent), "kind")
			case authorsPast[p.Author] == nil:
				authorsPast[p.Author] = s.queuePastWindow(ctx, pl, s.keys.UserPosts(p.Author))
			}
		}
		publicPast = s.queuePastWindow(ctx, pl, s.keys.PublicTimeline())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("archive: evict", err)
	}
	// Candidates, and where each one's index entry is.
	type candidate struct {
		mid   int64
		index string // the set to take it out of
		keep  bool   // only take it out of index: its message stays hot
	}
	var cands []candidate
	for author, c := range authorsPast {
		for _, mid := range pastIDs(c) {
			cands = append(cands, candidate{mid: mid, index: s.keys.UserPosts(author)})
		}
	}
	for _, mid := range pastIDs(publicPast) {
		cands = append(cands, candidate{mid: mid, index: s.keys.PublicTimeline(), keep: true})
	}
	for _, p := range put {
		if c := parents[p.ID]; c != nil && c.Val() == "" {
			cands = append(cands, candidate{mid: p.ID, index: s.keys.Comments(p.Parent)})
		}
	}
	for depth := 0; len(cands) > 0 && depth < maxThreadDepth; depth++ {
		ids := make([]int64, len(cands))
		for i, c := range cands {
			ids[i] = c.mid
		}
		has, err := s.opt.Archive.Has(ctx, ids)
		if err != nil {
			return s.wrap("archive: evict", err)
		}
		saved := make(map[int64]bool, len(has))
		for _, mid := range has {
			saved[mid] = true
		}
		replies := map[int64]*redis.StringSliceCmd{}
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, c := range cands {
				if !saved[c.mid] {
					continue // not archived yet: its own batch moves it
				}
				if !c.keep && replies[c.mid] == nil {
					evictMessage.Eval(ctx, pl, []string{s.keys.Message(c.mid)}, "message")
					pl.Del(ctx, s.keys.PublicTime(c.mid), s.keys.Author(c.mid))
					replies[c.mid] = pl.ZRange(ctx, s.keys.Comments(c.mid), 0, -1)
				}
				pl.ZRem(ctx, c.index, c.mid)
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return s.wrap("archive: evict", err)
		}
		s.opt.Metrics.evicted.Add(float64(len(replies)))
		// The comments of what left Redis go too, once archived.
		cands = cands[:0]
		for parent, c := range replies {
			for _, mid := range parseIDs(c.Val()) {
				cands = append(cands, candidate{mid: mid, index: s.keys.Comments(parent)})
			}
		}
	}
	return nil
}

// evictBatch bounds how many ids past a window one batch looks at, so that
// catching up after the archive was away costs the same per batch.
const evictBatch = 1000

// queuePastWindow asks for the oldest ids of a set beyond the hot window,
// at most evictBatch of them.
func (s *Store) queuePastWindow(ctx context.Context, pl redis.Pipeliner, key string) *redis.Cmd {
	return pastWindow.Eval(ctx, pl, []string{key}, s.opt.HotWindow, evictBatch)
}

func pastIDs(c *redis.Cmd) []int64 {
	ids, _ := c.StringSlice()
	return parseIDs(ids)
}
