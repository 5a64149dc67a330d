package redisdb

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"microblog/store"
	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// What the checker (package runner) asks of the request path to finish
// what a stopped request left half written: the same steps Create and
// SendDM take, from the message as read back from Redis.

// RemoveUnfinished takes out message mid, which a stopped request left
// and which lost its Idempotency-Key to another request, whose post
// stands; false when there was nothing to remove.
func (s *Store) RemoveUnfinished(ctx context.Context, mid int64) (bool, error) {
	d, err := s.draftOf(ctx, mid)
	if err != nil || d == nil {
		return false, err
	}
	return true, s.unwrite(ctx, d)
}

// ShowUnfinished finishes, on a cluster, message mid, indexed whole by a
// request that stopped before finish: it is shown and its live events go
// out; false when there was nothing to show.
func (s *Store) ShowUnfinished(ctx context.Context, mid int64) (bool, error) {
	d, err := s.draftOf(ctx, mid)
	if err != nil || d == nil {
		return false, err
	}
	s.queueFinish(ctx, nil, d) // its events
	return true, s.finish(ctx, d)
}

// IndexUnfinished indexes message mid, whose request stopped before
// indexing it, or
// removes it when another request holds its Idempotency-Key by now. It
// returns the kind of repair made, or "" for none: a comment whose parent
// is gone is left as a delete of the parent leaves its comments.
func (s *Store) IndexUnfinished(ctx context.Context, mid int64, idem string) (string, error) {
	d, err := s.draftOf(ctx, mid)
	if err != nil || d == nil {
		return "", err
	}
	if keys, args, ok := s.keys.IdemResult(d.np.Author, mid, idem); ok {
		held := schema.IdemFinish.Run(ctx, s.rdb, keys, args...)
		// The request's key takes this post as its result, unless a retry
		// holds it now and made its own.
		won, err := held.Int()
		if err != nil {
			return "", s.Wrap("repair: idempotency", err)
		}
		if won == 0 {
			if err := s.unwrite(ctx, d); err != nil {
				return "", err
			}
			return schema.RepairRemoved, nil
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
		return schema.RepairRemoved, nil
	}
	if d.parent != nil {
		return schema.RepairCommentIndexed, nil
	}
	return schema.RepairPostIndexed, nil
}

// draftOf is the draft Create would have indexed message mid from, as
// read back from Redis; nil when there is nothing to finish: the message
// was deleted meanwhile, or it is a comment whose parent is gone.
func (s *Store) draftOf(ctx context.Context, mid int64) (*draft, error) {
	p, err := s.Post(withUnfinished(ctx), mid, 0)
	if errors.Is(err, store.ErrPostNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
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
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}
	mode, err := s.rdb.HGet(ctx, s.keys.User(p.Author.ID), schema.FieldFanOut).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.Wrap("repair: fan-out mode", err)
	}
	d.pulled = mode == schema.ModePull
	return d, nil
}

// FinishDM adds private message pmid (v: its hash), which a stopped
// request left, to
// both sides of its conversation if a side lacks it, or removes it when another request holds its Idempotency-Key by now;
// it returns the kind of repair made, or "" for none.
func (s *Store) FinishDM(ctx context.Context, pmid int64, v map[string]string) (string, error) {
	m := dmOf(pmid, parseID(v["sender"]), parseID(v["recipient"]), v["sender_name"], v["recipient_name"],
		v["content"], parseID(v["time"]), v["media"])
	idem := v[schema.FieldIdem]
	from, to := m.Sender.ID, m.Recipient.ID
	var sent, got *redis.FloatCmd
	var moved *redis.FloatCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		sent = pl.ZScore(ctx, s.keys.Conversation(from, to), id(m.ID))
		got = pl.ZScore(ctx, s.keys.Conversation(to, from), id(m.ID))
		moved = pl.ZScore(ctx, s.keys.ConversationsArchived(from), id(to))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.Wrap("repair messages: read sides", err)
	}
	if sent.Err() == nil && got.Err() == nil || int64(moved.Val()) >= m.ID {
		return "", nil // whole, or moved to the archive past the window
	}
	d := &dmDraft{msg: *m, row: archivedDM(m)}
	if keyHash, claim, ok := strings.Cut(idem, " "); ok {
		d.idemKey, d.claim, d.reqHash = s.keys.Idempotency(from, keyHash), claim, schema.ParseIdem(claim).ReqHash
		won, err := schema.IdemFinish.Run(ctx, s.rdb, []string{d.idemKey}, claim,
			schema.DMResult(m.ID, d.reqHash), schema.IdempotencyTTL.Milliseconds()).Int()
		if err != nil {
			return "", s.Wrap("repair messages: idempotency", err)
		}
		if won == 0 {
			s.unwriteDM(ctx, d)
			return schema.RepairDMRemoved, nil
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return "", s.Wrap("repair messages: encode", err)
	}
	frame, indexFrame := store.FrameOf(store.EventDM, raw), []byte(nil)
	if !s.keys.Cluster() { // on a cluster the event follows the writes
		indexFrame = frame
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queueDMIndex(ctx, pl, d, indexFrame)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.Wrap("repair messages: index", err)
	}
	if s.keys.Cluster() {
		s.publishDM(ctx, d, frame)
	}
	return schema.RepairDMIndexed, nil
}
