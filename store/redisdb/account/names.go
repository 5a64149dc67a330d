package account

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// A name is owned through STRING keys holding the owner's uid, all written
// with SET NX: the username index (its PRECIS index form, unique in any
// letter case and width) and the skeleton index of each of its UTS #39
// confusable skeletons (store.UsernameSkeletons: of the index form and of
// the name as written, so that neither "аlice" with a Cyrillic а nor "Ꭰave"
// with a Cherokee Ꭰ can join "alice" and "Dave"). The index is claimed
// first and decides who owns the name; the skeletons after; a loser gives
// back what it took. A key is deleted only while it holds the uid expected
// (del_if_equals.lua), so no owner removes another's.

// findUser resolves a typed name's index forms (store.LookupNames), most
// likely first, to a uid; 0 when none is taken.
func (s *Accounts) findUser(ctx context.Context, names []string) (int64, error) {
	for _, n := range names {
		uid, err := s.rdb.Get(ctx, s.keys.UsernameIndex(n)).Int64()
		if err == nil {
			return uid, nil
		}
		if !errors.Is(err, redis.Nil) {
			return 0, s.core.Wrap("find user", err)
		}
	}
	return 0, nil
}

// skeletonKeys are the skeleton index keys of a name, its display and index
// forms.
func (s *Accounts) skeletonKeys(display, lower string) []string {
	var keys []string
	for _, sk := range store.UsernameSkeletons(display, lower) {
		keys = append(keys, s.keys.UsernameSkeleton(sk))
	}
	return keys
}

// nameTaken tells whether a name (display, with its index form lower), or a
// name that looks like it, has an owner.
func (s *Accounts) nameTaken(ctx context.Context, display, lower string) (bool, error) {
	keys := append([]string{s.keys.UsernameIndex(lower)}, s.skeletonKeys(display, lower)...)
	owners := make([]*redis.StringCmd, len(keys))
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, k := range keys {
			owners[i] = pl.Get(ctx, k)
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return false, s.core.Wrap("check name", err)
	}
	for i, k := range keys {
		if owner := parseID(owners[i].Val()); owner > 0 {
			if stale, err := s.staleOwner(ctx, k, owner); err != nil || !stale {
				return true, err
			}
		}
	}
	return false, nil
}

// claimName makes uid the owner of a name (display, with its index form
// lower) and of its skeletons, or returns ErrUsernameTaken having claimed
// nothing.
func (s *Accounts) claimName(ctx context.Context, uid int64, display, lower string) error {
	claimed := []string{s.keys.UsernameIndex(lower)}
	if err := s.claimKey(ctx, claimed[0], uid); err != nil {
		return err
	}
	for _, key := range s.skeletonKeys(display, lower) {
		if err := s.claimKey(ctx, key, uid); err != nil {
			for _, k := range claimed {
				s.releaseKey(context.WithoutCancel(ctx), k, uid)
			}
			return err
		}
		claimed = append(claimed, key)
	}
	return nil
}

// claimKey sets an owner key (username or skeleton index) to uid with SET
// NX, taking it over only from an owner that no longer exists.
func (s *Accounts) claimKey(ctx context.Context, key string, uid int64) error {
	for range 2 {
		ok, err := s.rdb.SetNX(ctx, key, uid, 0).Result()
		if err != nil {
			return s.core.Wrap("claim name", err)
		}
		if ok {
			return nil
		}
		owner, err := s.rdb.Get(ctx, key).Int64()
		if errors.Is(err, redis.Nil) {
			continue // given back meanwhile
		}
		if err != nil {
			return s.core.Wrap("claim name", err)
		}
		if stale, err := s.staleOwner(ctx, key, owner); err != nil || !stale {
			if err == nil {
				err = store.ErrUsernameTaken
			}
			return err
		}
	}
	return store.ErrUsernameTaken
}

// staleOwner tells whether an owner key held by owner is left over from an
// account that no longer exists (a deletion cut short between removing the
// profile and giving back the name), and if so removes it. A user's hash is
// written before its name is claimed and removed before it is given back,
// so a live account's keys never point at a missing hash.
func (s *Accounts) staleOwner(ctx context.Context, key string, owner int64) (bool, error) {
	n, err := s.rdb.Exists(ctx, s.keys.User(owner)).Result()
	if err != nil || n > 0 {
		return false, s.core.Wrap("check name", err)
	}
	s.releaseKey(ctx, key, owner)
	return true, nil
}

// releaseKey deletes an owner key (username or skeleton index) if it still
// holds uid, in one step, so that a new owner's key is never removed.
func (s *Accounts) releaseKey(ctx context.Context, key string, uid int64) {
	if err := schema.DelIfEquals.Run(ctx, s.rdb, []string{key}, id(uid)).Err(); err != nil {
		s.opt.Logger.WarnContext(ctx, "release name", "key", key, "uid", uid, "err", err)
	}
}

// migrateNames brings the name indexes of accounts made before names went
// through PRECIS up to date (schema 3): each user's name gets its PRECIS
// index form (when that is free) and its skeleton index entries. Names that
// already look alike keep both their owners; the second is logged.
func (s *Accounts) migrateNames(ctx context.Context) error {
	indexes, err := s.core.KeysMatching(ctx, s.keys.UsernameIndex("*"))
	if err != nil {
		return s.core.Wrap("migrate names", err)
	}
	for _, key := range indexes {
		old := s.keys.NameOfUsernameIndex(key)
		uid, err := s.rdb.Get(ctx, key).Int64()
		if err != nil {
			continue
		}
		display, err := s.core.Username(ctx, uid)
		if err != nil {
			continue // an index left by a sign-up that lost
		}
		lower := old
		if _, l, err := store.NormalizeUsername(display); err == nil && l != old {
			ok, err := s.rdb.SetNX(ctx, s.keys.UsernameIndex(l), uid, 0).Result()
			if err != nil {
				return s.core.Wrap("migrate names", err)
			}
			if ok {
				lower = l
				_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
					pl.Del(ctx, key)
					pl.ZRem(ctx, s.keys.Usernames(), old+":"+id(uid))
					s.core.IndexUser(ctx, pl, uid, l)
					return nil
				})
				if err != nil {
					return s.core.Wrap("migrate names", err)
				}
			} else if owner, _ := s.rdb.Get(ctx, s.keys.UsernameIndex(l)).Int64(); owner != uid {
				s.opt.Logger.WarnContext(ctx, "migrate names: two accounts share a name's PRECIS form; the second keeps its old one", "name", l, "uid", owner, "other", uid)
			}
		}
		for _, key := range s.skeletonKeys(display, lower) {
			ok, err := s.rdb.SetNX(ctx, key, uid, 0).Result()
			if err != nil {
				return s.core.Wrap("migrate names", err)
			}
			if !ok {
				if owner, _ := s.rdb.Get(ctx, key).Int64(); owner != uid {
					s.opt.Logger.WarnContext(ctx, "migrate names: look-alike names exist", "skeleton", key, "uid", owner, "other", uid, "name", display)
				}
			}
		}
	}
	return nil
}

// freeName removes the profile hash and gives the name back: its index
// forms and their skeletons and that of the name as written, each only while
// it still names uid.
func (s *Accounts) freeName(ctx context.Context, uid int64, display string) error {
	names := store.LookupNames(display)
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, n := range names {
			pl.ZRem(ctx, s.keys.Usernames(), n+":"+id(uid))
		}
		return nil
	})
	if err != nil {
		return s.core.Wrap("delete account: name", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Del(ctx, s.keys.User(uid))
		pl.Publish(ctx, s.keys.AvatarsChannel(), uid) // its avatar is gone too
		return nil
	})
	s.core.ForgetAuthor(uid)
	if err != nil {
		return s.core.Wrap("delete account", err)
	}
	for _, n := range names {
		s.releaseKey(ctx, s.keys.UsernameIndex(n), uid)
		for _, key := range s.skeletonKeys(display, n) {
			s.releaseKey(ctx, key, uid)
		}
	}
	return nil
}
