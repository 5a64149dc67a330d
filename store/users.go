package store

import (
	"context"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"
)

func userNotFound() error {
	return &Error{Kind: ErrNotFound, Code: "user_not_found", Message: "no such user"}
}

// UIDByName resolves a username, in any letter case, to its uid.
func (s *Store) UIDByName(ctx context.Context, name string) (int64, error) {
	lower, ok := lookupName(name)
	if !ok {
		return 0, userNotFound()
	}
	uid, err := s.rdb.Get(ctx, s.keys.usernameIndex(lower)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, userNotFound()
	}
	return uid, s.wrap("find user", err)
}

// UserByName returns the user called name as seen by viewer (0 for anonymous).
func (s *Store) UserByName(ctx context.Context, name string, viewer int64) (User, error) {
	uid, err := s.UIDByName(ctx, name)
	if err != nil {
		return User{}, err
	}
	return s.User(ctx, uid, viewer)
}

// User returns user uid as seen by viewer (0 for anonymous).
func (s *Store) User(ctx context.Context, uid, viewer int64) (User, error) {
	users, err := s.users(ctx, []int64{uid}, viewer)
	if err != nil {
		return User{}, err
	}
	if len(users) == 0 {
		return User{}, userNotFound()
	}
	return users[0], nil
}

// users loads many users in one round trip, skipping the ones that do not exist.
func (s *Store) users(ctx context.Context, uids []int64, viewer int64) ([]User, error) {
	type cmds struct {
		fields      *redis.SliceCmd
		fans, stars *redis.IntCmd
		following   *redis.FloatCmd
	}
	all := make([]cmds, len(uids))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, uid := range uids {
			all[i].fields = p.HMGet(ctx, s.keys.user(uid), "username", "bio", "created", "posts_count")
			all[i].fans = p.ZCard(ctx, s.keys.fans(uid))
			all[i].stars = p.ZCard(ctx, s.keys.stars(uid))
			if viewer > 0 {
				all[i].following = p.ZScore(ctx, s.keys.stars(viewer), id(uid))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.wrap("load users", err)
	}
	out := make([]User, 0, len(uids))
	for i, uid := range uids {
		f := all[i].fields.Val()
		name, _ := f[0].(string)
		if name == "" {
			continue
		}
		bio, _ := f[1].(string)
		u := User{ID: uid, Username: name, Bio: bio,
			CreatedAt:      Time(atoi(f[2])),
			PostsCount:     atoi(f[3]),
			FollowersCount: all[i].fans.Val(),
			FollowingCount: all[i].stars.Val(),
		}
		if viewer > 0 {
			following := all[i].following.Err() == nil
			u.Following = &following
		}
		out = append(out, u)
	}
	return out, nil
}

// atoi reads an integer field of an HMGET answer; a missing field is 0.
func atoi(v any) int64 {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// SetBio changes a user's bio.
func (s *Store) SetBio(ctx context.Context, uid int64, bio string) (User, error) {
	if err := checkBio(bio); err != nil {
		return User{}, err
	}
	// HSETXX-like: only an existing user gets a bio, so a deleted account is not revived.
	n, err := s.rdb.Exists(ctx, s.keys.user(uid)).Result()
	if err != nil {
		return User{}, s.wrap("set bio", err)
	}
	if n == 0 {
		return User{}, userNotFound()
	}
	if err := s.rdb.HSet(ctx, s.keys.user(uid), "bio", bio).Err(); err != nil {
		return User{}, s.wrap("set bio", err)
	}
	return s.User(ctx, uid, uid)
}

// username returns the name of user uid.
func (s *Store) username(ctx context.Context, uid int64) (string, error) {
	name, err := s.rdb.HGet(ctx, s.keys.user(uid), "username").Result()
	if errors.Is(err, redis.Nil) {
		return "", userNotFound()
	}
	return name, s.wrap("load user", err)
}
