package runner

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/retry"
	"microblog/store/redisdb/schema"
)

// Archiver is the archiver of one process: it saves the archive queue
// (redisdb/post_archive.go) to the archive, one batch at a time, and moves what has left
// the hot window out of Redis. Any number of processes may run one, and a
// batch saved twice changes nothing.
type Archiver struct {
	base
	opt ArchiverOptions
	c   *consumer
}

// NewArchiver returns the archiver of st's process; Run runs it.
func NewArchiver(st Ops, opt ArchiverOptions) *Archiver {
	opt = opt.withDefaults()
	return &Archiver{base: newBase(st), opt: opt,
		c: newConsumer(st.Client(), st.Keys().ArchiveQueue(), schema.ArchiveGroup, "archive", opt.Batch, opt.ClaimIdle, opt.Logger)}
}

// Run archives until ctx ends. Without an archive it returns at once. When
// ctx ends it goes on with the batch in hand for FinishWithin at most, and
// then hands back what it could not save (consumer_stop.go).
func (a *Archiver) Run(ctx context.Context) {
	if a.s.Archive() == nil {
		return
	}
	work, done := graceful(ctx)
	defer done()
	a.c.run(ctx, work, a.do, a.takeOver)
	a.c.handBack(ctx)
}

// takeOver saves a batch that other (dead or stuck) processes left unsaved
// for ClaimIdle.
func (a *Archiver) takeOver(ctx context.Context, msgs []redis.XMessage) {
	a.opt.Logger.Info("archive: took over a batch left idle", "entries", len(msgs))
	a.do(ctx, msgs)
}

// do saves one batch, retrying while the archive is away, then moves out of
// Redis what the batch lets go, and only then acknowledges it. A batch that
// cannot be finished stays pending, and is taken over after ClaimIdle.
func (a *Archiver) do(ctx context.Context, msgs []redis.XMessage) {
	b := a.parse(msgs)
	if !a.save(ctx, b) {
		return
	}
	err := a.evict(ctx, b)
	if err == nil && len(b.pmPut)+len(b.pmDel) > 0 {
		err = a.evictDMs(ctx, b.pmPut, b.pmDel)
	}
	if err != nil {
		if ctx.Err() == nil {
			a.opt.Logger.Warn("archive: move out of Redis failed, will retry", "err", err)
		}
		return
	}
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	a.c.ack(ctx, ids, nil)
}

// archiveBatch is what one batch of the queue saves.
type archiveBatch struct {
	put, del, edits []store.Archived
	likes, unlikes  []store.ArchivedLike
	pmPut, pmDel    []store.ArchivedDM // private messages (redisdb/dm/archive.go)
}

// parse reads a batch of the queue; of the likes and unlikes of one pair in
// a batch, only the newest (by version: the order of the queue is the order
// the entries were added in, not that of the actions) is kept. A malformed
// entry is dropped.
func (a *Archiver) parse(msgs []redis.XMessage) archiveBatch {
	var b archiveBatch
	newest := map[[2]int64]int{} // (mid, uid) → its index in likes
	var likes []likeEntry
	for _, m := range msgs {
		op, raw := schema.ParseArchiveEntry(m)
		if isDMJob(op) {
			if !b.parseDMJob(op, raw) {
				a.malformed(m, nil)
			}
			continue
		}
		if op == schema.ArchiveLike || op == schema.ArchiveUnlike {
			var l store.ArchivedLike
			if err := json.Unmarshal([]byte(raw), &l); err != nil || l.MID == 0 || l.UID == 0 {
				a.malformed(m, err)
				continue
			}
			if l.Version == 0 {
				l.Version = schema.EntryVersion(m.ID)
			}
			e := likeEntry{l, op == schema.ArchiveLike}
			k := [2]int64{l.MID, l.UID}
			if i, seen := newest[k]; !seen {
				newest[k] = len(likes)
				likes = append(likes, e)
			} else if l.Version >= likes[i].Version {
				likes[i] = e
			}
			continue
		}
		var row store.Archived
		if err := json.Unmarshal([]byte(raw), &row); err != nil || row.ID == 0 {
			a.malformed(m, err)
			continue
		}
		switch op {
		case schema.ArchiveDelete:
			b.del = append(b.del, row)
		case schema.ArchiveEdit:
			b.edits = append(b.edits, row)
		default:
			b.put = append(b.put, row)
		}
	}
	for _, e := range likes {
		if e.liked {
			b.likes = append(b.likes, e.ArchivedLike)
		} else {
			b.unlikes = append(b.unlikes, e.ArchivedLike)
		}
	}
	return b
}

// likeEntry is a like (liked) or an unlike read from the queue.
type likeEntry struct {
	store.ArchivedLike
	liked bool
}

func (a *Archiver) malformed(m redis.XMessage, err error) {
	a.opt.Logger.Error("archive: dropping a malformed queue entry", "entry", m.ID, "err", err)
}

// save saves a batch to the archive, retrying while it fails; false when
// ctx ended first.
func (a *Archiver) save(ctx context.Context, b archiveBatch) bool {
	wait := retry.Backoff{Min: ArchiveRetryMin, Max: ArchiveRetryMax}
	for {
		err := a.s.Archive().Save(ctx, b.put, b.del)
		if err == nil {
			err = a.s.Archive().SaveEdits(ctx, b.edits)
		}
		if err == nil {
			err = a.s.Archive().SaveLikes(ctx, b.likes, b.unlikes)
		}
		if err == nil {
			err = a.s.Archive().SaveDMs(ctx, b.pmPut, b.pmDel)
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		a.opt.Metrics.ArchiveErrors.Inc()
		a.opt.Logger.Warn("archive: save failed, will retry", "rows", len(b.put)+len(b.del)+len(b.edits), "err", err, "retry_in", wait.Delay())
		wait.Sleep(ctx)
	}
	a.opt.Metrics.Archived.Add(float64(len(b.put) + len(b.del) + len(b.edits) + len(b.likes) + len(b.unlikes) + len(b.pmPut) + len(b.pmDel)))
	return true
}

// evict moves out of Redis what a saved batch lets go: the tombstones of
// the deletes it archived; the messages of its authors (of its messages
// and edits, and of the hot messages its likes are of) that have left
// their hot window, with their likes and topic entries (archiver_evict.go);
// its comments (and its likes' comments) on messages no longer hot; and,
// from the public timeline, the ids past its window. Only
// ids the archive holds go, with no edit the archive lacks, so a reader
// that misses them in Redis finds them there as Redis had them.
func (a *Archiver) evict(ctx context.Context, b archiveBatch) error {
	liked, err := a.likedPosts(ctx, append(slices.Clip(b.likes), b.unlikes...))
	if err != nil {
		return err
	}
	cands, err := a.candidates(ctx, slices.Concat(b.put, b.edits, liked), b.del, b.edits)
	for depth := 0; err == nil && len(cands) > 0 && depth < schema.MaxThreadDepth; depth++ {
		cands, err = a.evictSaved(ctx, cands)
	}
	return err
}

// evictCandidate is an id that may leave Redis, and where its index entry
// is.
type evictCandidate struct {
	mid   int64
	index string // the set to take it out of
	keep  bool   // only take it out of index: its message stays hot
}

// candidates drops the tombstones of del, clears the pending marks of the
// edits the archive now has, and returns the ids that put may let go: its
// authors' past their window, the public timeline's past its window, and
// its comments on messages no longer in Redis.
func (a *Archiver) candidates(ctx context.Context, put, del, edits []store.Archived) ([]evictCandidate, error) {
	authorsPast := map[int64]*redis.Cmd{}
	var publicPast *redis.Cmd
	parents := map[int64]*redis.StringCmd{} // comment id → kind of its parent
	_, err := a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, d := range del {
			schema.EvictPost.Eval(ctx, pl, []string{a.keys.Post(d.ID)}, "tombstone")
		}
		for _, e := range edits {
			schema.EditSaved.Eval(ctx, pl, []string{a.keys.Post(e.ID)}, e.Edited)
		}
		for _, p := range put {
			switch {
			case p.Kind == store.KindComment:
				parents[p.ID] = pl.HGet(ctx, a.keys.Post(p.Parent), "kind")
			case authorsPast[p.Author] == nil:
				authorsPast[p.Author] = a.queuePastWindow(ctx, pl, a.keys.UserPosts(p.Author))
			}
		}
		publicPast = a.queuePastWindow(ctx, pl, a.keys.PublicTimeline())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, a.s.Wrap("archive: evict", err)
	}
	var cands []evictCandidate
	for author, c := range authorsPast {
		for _, mid := range pastIDs(c) {
			cands = append(cands, evictCandidate{mid: mid, index: a.keys.UserPosts(author)})
		}
	}
	for _, mid := range pastIDs(publicPast) {
		cands = append(cands, evictCandidate{mid: mid, index: a.keys.PublicTimeline(), keep: true})
	}
	for _, p := range put {
		if c := parents[p.ID]; c != nil && c.Val() == "" {
			cands = append(cands, evictCandidate{mid: p.ID, index: a.keys.Comments(p.Parent)})
		}
	}
	return cands, nil
}

// evictBatch bounds how many ids past a window one batch looks at, so that
// catching up after the archive was away costs the same per batch.
const evictBatch = 1000

// queuePastWindow asks for the oldest ids of a set beyond the hot window,
// at most evictBatch of them.
func (a *Archiver) queuePastWindow(ctx context.Context, pl redis.Pipeliner, key string) *redis.Cmd {
	return schema.PastWindow.Eval(ctx, pl, []string{key}, a.s.HotWindow(), evictBatch)
}

func pastIDs(c *redis.Cmd) []int64 {
	ids, _ := c.StringSlice()
	return schema.ParseIDs(ids)
}
