package redisdb

import (
	"context"
	"errors"

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
