package social

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Blocks and mutes are kept on both sides: the record (Blocking, Muting,
// capped by a script on the user's own key) and its mirror (BlockedBy,
// MutedBy), which the lens of the other user and the fan-out read. A block
// writes its mirror before its record: the blocker's User says blocking
// only once both sides hide each other, and a block cut short before that
// shows as not made, so the blocker tries again. Each call writes
// everything again even when the record was there (ending the follows
// too), so that a retry mends what an earlier call left half done.

var (
	errBlockLimit = store.NewError(store.ErrConflict, store.CodeBlockLimit, "you block as many users as one may; unblock some first")
	errMuteLimit  = store.NewError(store.ErrConflict, store.CodeMuteLimit, "you mute as many users as one may; unmute some first")
	errNoRequest  = store.NewError(store.ErrNotFound, store.CodeNotFound, "no such follow request")
)

// Block makes uid block target (on) or not. A block ends the follows both
// ways and the follow requests between them; unblocking restores none.
func (s *Social) Block(ctx context.Context, uid, target int64, on bool) error {
	if err := s.relationTarget(ctx, uid, target); err != nil {
		return err
	}
	if !on {
		_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			pl.ZRem(ctx, s.keys.Blocking(uid), target)
			pl.SRem(ctx, s.keys.BlockedBy(target), uid)
			return nil
		})
		if err != nil {
			return s.core.Wrap("unblock", err)
		}
		s.lensChanged(ctx, uid, target)
		return nil
	}
	if n, err := s.rdb.ZCard(ctx, s.keys.Blocking(uid)).Result(); err != nil {
		return s.core.Wrap("block", err)
	} else if n >= int64(s.opt.MaxBlocks) {
		if _, err := s.rdb.ZScore(ctx, s.keys.Blocking(uid), id(target)).Result(); err != nil {
			return errBlockLimit // full, and not a block already made
		}
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.SAdd(ctx, s.keys.BlockedBy(target), uid)
		pl.ZRem(ctx, s.keys.FollowRequests(uid), target)
		pl.ZRem(ctx, s.keys.FollowRequests(target), uid)
		return nil
	})
	if err != nil {
		return s.core.Wrap("block", err)
	}
	if err := s.addCapped(ctx, s.keys.Blocking(uid), target, s.opt.MaxBlocks, errBlockLimit); err != nil {
		// Two blocks raced for the last place: the mirror of this one goes.
		s.rdb.SRem(context.WithoutCancel(ctx), s.keys.BlockedBy(target), uid)
		return err
	}
	// The lens first, so that nothing of either reaches the other live
	// while the follows are taken down.
	s.lensChanged(ctx, uid, target)
	if err := s.unfollow(ctx, uid, target); err != nil {
		return err
	}
	return s.unfollow(ctx, target, uid)
}

// Mute makes uid mute target (on) or not.
func (s *Social) Mute(ctx context.Context, uid, target int64, on bool) error {
	if err := s.relationTarget(ctx, uid, target); err != nil {
		return err
	}
	if on {
		if err := s.addCapped(ctx, s.keys.Muting(uid), target, s.opt.MaxMutes, errMuteLimit); err != nil {
			return err
		}
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if on {
			pl.SAdd(ctx, s.keys.MutedBy(target), uid)
		} else {
			pl.ZRem(ctx, s.keys.Muting(uid), target)
			pl.SRem(ctx, s.keys.MutedBy(target), uid)
		}
		return nil
	})
	if err != nil {
		return s.core.Wrap("mute", err)
	}
	s.lensChanged(ctx, uid)
	return nil
}

// relationTarget checks that uid may block or mute target: not itself, and
// an existing user.
func (s *Social) relationTarget(ctx context.Context, uid, target int64) error {
	if uid == target {
		return store.ErrBlockSelf
	}
	_, err := s.core.Username(ctx, target)
	return err
}

// addCapped adds member to the ZSET key unless it holds max members
// already (full).
func (s *Social) addCapped(ctx context.Context, key string, member int64, max int, full error) error {
	n, err := schema.ZaddCapped.Run(ctx, s.rdb, []string{key}, s.core.Now(), member, max).Int64()
	if err != nil {
		return s.core.Wrap("add to "+key, err)
	}
	if n < 0 {
		return full
	}
	return nil
}

// unfollow is Unfollow for a block: following nobody is no error.
func (s *Social) unfollow(ctx context.Context, fan, star int64) error {
	if err := s.Unfollow(ctx, fan, star); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// Blocks is a page of the users uid blocks, newest first.
func (s *Social) Blocks(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.User], error) {
	q.Viewer = uid
	return s.relationPage(ctx, s.keys.Blocking(uid), q)
}

// Mutes is a page of the users uid mutes, newest first.
func (s *Social) Mutes(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.User], error) {
	q.Viewer = uid
	return s.relationPage(ctx, s.keys.Muting(uid), q)
}

// Filters are uid's filtered words.
func (s *Social) Filters(ctx context.Context, uid int64) ([]string, error) {
	raw, err := s.rdb.HGet(ctx, s.keys.User(uid), schema.FieldFilters).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.core.Wrap("load filters", err)
	}
	words := decodeWords(raw)
	if words == nil {
		words = []string{}
	}
	return words, nil
}

// SetFilters replaces uid's filtered words.
func (s *Social) SetFilters(ctx context.Context, uid int64, words []string) ([]string, error) {
	words, err := store.CheckFilters(words)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(words)
	if err := s.setExisting(ctx, uid, schema.FieldFilters, string(raw)); err != nil {
		return nil, err
	}
	s.lensChanged(ctx, uid)
	return words, nil
}

// setExisting sets a field of uid's hash, only while the user exists, so
// that a deleted account is not revived.
func (s *Social) setExisting(ctx context.Context, uid int64, field, value string) error {
	n, err := s.rdb.Exists(ctx, s.keys.User(uid)).Result()
	if err != nil {
		return s.core.Wrap("set "+field, err)
	}
	if n == 0 {
		return store.ErrUserNotFound
	}
	if value == "" {
		return s.core.Wrap("set "+field, s.rdb.HDel(ctx, s.keys.User(uid), field).Err())
	}
	return s.core.Wrap("set "+field, s.rdb.HSet(ctx, s.keys.User(uid), field, value).Err())
}

// authorChanged tells every process that uid's author card changed.
func (s *Social) authorChanged(ctx context.Context, uid int64) {
	if err := s.rdb.Publish(context.WithoutCancel(ctx), s.keys.AvatarsChannel(), uid).Err(); err != nil {
		s.opt.Logger.WarnContext(ctx, "publish author change", "uid", uid, "err", err)
	}
	s.core.ForgetAuthor(uid)
}
