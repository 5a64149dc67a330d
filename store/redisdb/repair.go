package redisdb

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// The checker of half-written messages: the write path's safety net.
//
// Create writes a message's own keys (B, D, E), then its indexes and
// counters in one pipeline, and takes the message out again when that fails
// (unwrite). What a process that stopped, or a Redis that stopped answering,
// leaves behind all the same, the checker mends. Every server process runs
// it (RunRepair), one at a time under a lock; each run walks the message ids
// issued since the last run's checkpoint up to global:postid, at most Batch
// of them, and leaves the ones younger than Grace, which a request may still
// be writing, to the next run:
//
//   - a message no index points at is indexed as Create would have (a post
//     into F, its author's G, the public timeline, with its fan-out job and
//     live event; a comment into its parent's C set), unless another request
//     holds its Idempotency-Key by now (its retry made the post that
//     stands): then it is removed entirely;
//   - a message's comments_count and reposts_count are set to the sizes of
//     the sets they count (C:<mid>:commentID, reposts:<mid>);
//   - D and E keys without their B (a delete that stopped half way) go.
//
// Every step is idempotent, so a run cut short, or two at once, do no harm.

// Kinds of repair, the label of microblog_repairs_total.
const (
	repairPostIndexed    = "post_indexed"    // a post no index pointed at, indexed
	repairCommentIndexed = "comment_indexed" // a comment missing from its parent's C set, added
	repairRemoved        = "message_removed" // a message that could not be finished, removed
	repairCounter        = "counter"         // comments_count or reposts_count set to its set's size
	repairOrphanKeys     = "orphan_keys"     // D and E keys left without their B, removed
)

// repairLockTTL bounds how long a process that died mid-run keeps the others
// from checking.
const repairLockTTL = 2 * time.Minute

// repairChunk is how many ids one round trip reads.
const repairChunk = 100

// RunRepair runs the checker every Interval until ctx ends.
func (s *Store) RunRepair(ctx context.Context, opt CheckerOptions) {
	opt = opt.withDefaults()
	every(ctx, opt.Interval, func() {
		n, err := s.Repair(ctx, opt)
		if err != nil && ctx.Err() == nil {
			opt.Logger.Warn("repair: run failed, the next one goes on from its checkpoint", "err", err)
		}
		if n > 0 {
			opt.Logger.Warn("repair: mended what stopped writes left", "repairs", n)
		}
	})
}

// Repair runs the checker once, unless another process is running it, and
// returns how many repairs it made.
func (s *Store) Repair(ctx context.Context, opt CheckerOptions) (int, error) {
	opt = opt.withDefaults()
	token := rand.Text()
	ok, err := s.rdb.SetNX(ctx, s.keys.RepairLock(), token, repairLockTTL).Result()
	if err != nil {
		return 0, s.wrap("repair: lock", err)
	}
	if !ok {
		return 0, nil
	}
	defer delIfEquals.Run(context.WithoutCancel(ctx), s.rdb, []string{s.keys.RepairLock()}, token)

	var cp, last *redis.StringCmd
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		cp = pl.Get(ctx, s.keys.RepairCheckpoint())
		last = pl.Get(ctx, s.keys.LastPostID())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, s.wrap("repair: checkpoint", err)
	}
	top := parseID(last.Val())
	from := parseID(cp.Val())
	if cp.Err() != nil { // the first run ever: from the newest ids on
		from = max(0, top-int64(opt.Batch))
	}
	to := min(top, from+int64(opt.Batch))
	mended, done := 0, from
	for lo := from + 1; lo <= to; lo += repairChunk {
		hi := min(to, lo+repairChunk-1)
		n, settled, err := s.repairRange(ctx, lo, hi, opt)
		mended += n
		if settled > done {
			done = settled
		}
		if err != nil || settled < hi {
			if err == nil || done > from {
				s.rdb.Set(ctx, s.keys.RepairCheckpoint(), done, 0)
			}
			return mended, err
		}
	}
	if done > from {
		if err := s.rdb.Set(ctx, s.keys.RepairCheckpoint(), done, 0).Err(); err != nil {
			return mended, s.wrap("repair: checkpoint", err)
		}
	}
	return mended, nil
}

// repairRange checks the messages lo to hi, in order, and returns how many
// repairs it made and the last id it settled: short of hi when it met a
// message too young to judge, or failed.
func (s *Store) repairRange(ctx context.Context, lo, hi int64, opt CheckerOptions) (int, int64, error) {
	n := int(hi - lo + 1)
	msgs := make([]*redis.MapStringStringCmd, n)
	own := make([]*redis.IntCmd, n)
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i := range n {
			mid := lo + int64(i)
			msgs[i] = pl.HGetAll(ctx, s.keys.Message(mid))
			own[i] = pl.Exists(ctx, s.keys.PublicTime(mid), s.keys.Author(mid))
		}
		return nil
	})
	if err != nil {
		return 0, lo - 1, s.wrap("repair: read messages", err)
	}
	young := s.now() - opt.Grace.Milliseconds()
	mended := 0
	for i := range n {
		mid := lo + int64(i)
		var h messageHash
		if len(msgs[i].Val()) == 0 || msgs[i].Scan(&h) != nil || h.Kind == "" {
			if len(msgs[i].Val()) == 0 && own[i].Val() > 0 {
				if err := s.rdb.Del(ctx, s.keys.PublicTime(mid), s.keys.Author(mid)).Err(); err != nil {
					return mended, mid - 1, s.wrap("repair: orphan keys", err)
				}
				s.repaired(repairOrphanKeys)
				mended++
			}
			continue // never written, deleted or archived away
		}
		if h.Time > young {
			return mended, mid - 1, nil
		}
		m, err := s.repairMessage(ctx, mid, &h, msgs[i].Val()[fieldIdem])
		mended += m
		if err != nil {
			return mended, mid - 1, err
		}
	}
	return mended, hi, nil
}

// repairMessage checks one message that exists: that its index points at it
// and its counters equal their sets.
func (s *Store) repairMessage(ctx context.Context, mid int64, h *messageHash, idem string) (int, error) {
	author, parent := h.Author, parseID(h.Parent)
	var indexed *redis.FloatCmd
	var comments, reposts, fLen *redis.IntCmd
	var fFirst *redis.ZSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if parent != 0 {
			indexed = pl.ZScore(ctx, s.keys.Comments(parent), id(mid))
		} else {
			indexed = pl.ZScore(ctx, s.keys.UserPosts(author), id(mid))
			fLen = pl.ZCard(ctx, s.keys.UserPosts(author))
			fFirst = pl.ZRangeWithScores(ctx, s.keys.UserPosts(author), 0, 0)
		}
		comments = pl.ZCard(ctx, s.keys.Comments(mid))
		reposts = pl.ZCard(ctx, s.keys.Reposts(mid))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, s.wrap("repair: read indexes", err)
	}
	if indexed.Err() == nil {
		mended := 0
		for _, c := range []struct {
			field, set string
			stored     int64
			size       int64
		}{
			{fieldComments, s.keys.Comments(mid), h.Comments, comments.Val()},
			{fieldReposts, s.keys.Reposts(mid), h.Reposts, reposts.Val()},
		} {
			if c.stored == c.size {
				continue
			}
			err := countSync.Run(ctx, s.rdb, []string{s.keys.Message(mid), c.set}, c.field).Err()
			if err != nil && !errors.Is(err, redis.Nil) {
				return mended, s.wrap("repair: counter", err)
			}
			s.repaired(repairCounter)
			mended++
		}
		return mended, nil
	}
	if parent == 0 && fLen.Val() >= int64(s.opt.HotWindow) &&
		len(fFirst.Val()) == 1 && float64(mid) < fFirst.Val()[0].Score {
		return 0, nil // trimmed out of the hot window, not missing
	}
	kind, err := s.finish(ctx, mid, idem)
	if err != nil || kind == "" {
		return 0, err
	}
	s.repaired(kind)
	return 1, nil
}

// finish indexes a message whose request stopped before indexing it, or
// removes it when another request holds its Idempotency-Key by now. It
// returns the kind of repair made, or "" for none: a comment whose parent
// is gone is left as a delete of the parent leaves its comments.
func (s *Store) finish(ctx context.Context, mid int64, idem string) (string, error) {
	p, err := s.Post(ctx, mid, 0)
	if errors.Is(err, store.ErrPostNotFound) {
		return "", nil // deleted meanwhile
	}
	if err != nil {
		return "", err
	}
	no := false
	p.Liked = &no
	d := &draft{np: store.NewPost{Author: p.Author.ID, Content: p.Content}, post: p,
		mentions: p.Mentions, tags: p.Tags, media: p.Media, row: archived(&p)}
	if p.RepostOf != nil {
		d.np.RepostOf = p.RepostOf.ID
		if !p.RepostOf.Deleted {
			d.orig = p.RepostOf
		}
	}
	if p.ParentID != nil {
		d.np.Parent = *p.ParentID
		if d.parent, err = s.message(ctx, *p.ParentID); errors.Is(err, store.ErrPostNotFound) {
			return "", nil
		} else if err != nil {
			return "", err
		}
	}
	mode, err := s.rdb.HGet(ctx, s.keys.User(p.Author.ID), fieldFanOut).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.wrap("repair: fan-out mode", err)
	}
	d.pulled = mode == modePull
	if keyHash, claim, ok := strings.Cut(idem, " "); ok {
		// The request's key takes this post as its result, unless a retry
		// holds it now and made its own.
		key := s.keys.Idempotency(p.Author.ID, keyHash)
		won, err := idemFinish.Run(ctx, s.rdb, []string{key}, claim,
			resultValue(mid, parseIdem(claim).reqHash), IdempotencyTTL.Milliseconds()).Int()
		if err != nil {
			return "", s.wrap("repair: idempotency", err)
		}
		if won == 0 {
			if err := s.unwrite(ctx, d); err != nil {
				return "", err
			}
			return repairRemoved, nil
		}
	}
	if err := s.index(ctx, d); err != nil {
		return "", err
	}
	if d.reposted != nil && d.reposted.Val() == int64(0) {
		// Its author has another repost of the original: this one goes.
		if err := s.unwrite(ctx, d); err != nil {
			return "", err
		}
		return repairRemoved, nil
	}
	if d.parent != nil {
		return repairCommentIndexed, nil
	}
	return repairPostIndexed, nil
}

func (s *Store) repaired(kind string) { s.opt.Metrics.repairs.WithLabelValues(kind).Inc() }

// undoTimeout bounds unwrite, which runs after its request's own time may
// have run out.
const undoTimeout = 5 * time.Second

// unwrite takes out again, entirely, a message that was never answered for:
// its own keys, whatever index entries and counts it got, its row in the
// archive, its claim on its
// Idempotency-Key (so that a retry makes it anew); live readers that were
// shown it are told it is gone, and its images are free for another post.
// What Redis refuses here the checker mends.
func (s *Store) unwrite(ctx context.Context, d *draft) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	defer s.release(ctx, d)
	mid, author := d.post.ID, d.np.Author
	var tagged []*redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		// As Delete does: with the archive on, the hash becomes a tombstone
		// and the archive is told, for its index pipeline may have queued
		// the message for the archive already.
		deleteMessage.Eval(ctx, pl, []string{s.keys.Message(mid)}, flag(s.opt.Archive != nil), "1")
		pl.Del(ctx, s.keys.PublicTime(mid), s.keys.Author(mid))
		s.queueArchive(ctx, pl, archiveDelete, archived(&d.post))
		pl.Del(ctx, s.keys.Comments(mid))
		pl.Del(ctx, s.keys.Likes(mid))
		if d.parent != nil {
			pl.ZRem(ctx, s.keys.Comments(d.parent.ID), mid)
			countSync.Eval(ctx, pl, []string{s.keys.Message(d.parent.ID), s.keys.Comments(d.parent.ID)}, fieldComments)
		} else {
			postRemove.Eval(ctx, pl, []string{s.keys.UserPosts(author), s.keys.User(author)}, mid, fieldPosts)
			pl.ZRem(ctx, s.keys.Home(author), mid)
			pl.ZRem(ctx, s.keys.PublicTimeline(), mid)
			if d.np.RepostOf != 0 {
				repostRemove.Eval(ctx, pl, []string{s.keys.Reposts(d.np.RepostOf), s.keys.Message(d.np.RepostOf)}, author, mid, fieldReposts)
			}
			for _, tag := range d.tags {
				tagged = append(tagged, pl.ZRem(ctx, s.keys.TagPosts(store.TagKey(tag)), mid))
			}
			for _, m := range d.media {
				pl.HSet(ctx, s.keys.Media(m.ID), "post", 0)
				pl.ZAdd(ctx, s.keys.UnattachedMedia(), redis.Z{Score: float64(s.now()), Member: m.ID})
			}
		}
		s.queuePublish(ctx, pl, s.keys.AuthorChannel(author), store.EventDelete, store.DeleteData{ID: mid})
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("undo post", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, c := range tagged { // counted only if the index got that far
			if c.Val() == 1 {
				pl.ZIncrBy(ctx, s.keys.TagCounts(), -1, store.TagKey(d.tags[i]))
			}
		}
		return nil
	})
	return s.wrap("undo post: topics", err)
}
