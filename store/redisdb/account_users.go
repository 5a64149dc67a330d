package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
	"golang.org/x/text/unicode/norm"

	"microblog/store"
	"microblog/store/redisdb/account"
	"microblog/store/redisdb/dm"
	"microblog/store/redisdb/media"
	"microblog/store/redisdb/schema"
)

// UIDByName resolves a username, in any letter case or width, to its uid.
func (s *Store) UIDByName(ctx context.Context, name string) (int64, error) {
	uid, err := account.FindUser(ctx, s.Accounts, store.LookupNames(name))
	if err == nil && uid == 0 {
		return 0, store.ErrUserNotFound
	}
	return uid, err
}

// UserByName returns the user called name as seen by viewer (0 for anonymous).
func (s *Store) UserByName(ctx context.Context, name string, viewer int64) (store.User, error) {
	uid, err := s.UIDByName(ctx, name)
	if err != nil {
		return store.User{}, err
	}
	return s.User(ctx, uid, viewer)
}

// User returns user uid as seen by viewer (0 for anonymous).
func (s *Store) User(ctx context.Context, uid, viewer int64) (store.User, error) {
	users, err := s.users(ctx, []int64{uid}, viewer)
	if err != nil {
		return store.User{}, err
	}
	if len(users) == 0 {
		return store.User{}, store.ErrUserNotFound
	}
	if uid == viewer { // one's own profile: /me
		n, err := s.unread(ctx, uid)
		if err != nil {
			return store.User{}, err
		}
		users[0].UnreadNotifications = &n
		m, from, err := dm.OfMe(ctx, s.DMs, uid)
		if err != nil {
			return store.User{}, err
		}
		users[0].UnreadDMs, users[0].DMsFrom = &m, from
	}
	return users[0], nil
}

// users loads many users in one round trip, skipping the ones that do not exist.
func (s *Store) users(ctx context.Context, uids []int64, viewer int64) ([]store.User, error) {
	type cmds struct {
		fields      *redis.SliceCmd
		fans, stars *redis.IntCmd
		// what the viewer is to the user
		following, blocking, blockedBy, muting, requested *redis.FloatCmd
	}
	all := make([]cmds, len(uids))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, uid := range uids {
			all[i].fields = p.HMGet(ctx, s.keys.User(uid), schema.UserFields...)
			all[i].fans = p.ZCard(ctx, s.keys.Fans(uid))
			all[i].stars = p.ZCard(ctx, s.keys.Stars(uid))
			if viewer > 0 {
				all[i].following = p.ZScore(ctx, s.keys.Stars(viewer), id(uid))
				all[i].blocking = p.ZScore(ctx, s.keys.Blocking(viewer), id(uid))
				all[i].blockedBy = p.ZScore(ctx, s.keys.Blocking(uid), id(viewer))
				all[i].muting = p.ZScore(ctx, s.keys.Muting(viewer), id(uid))
				all[i].requested = p.ZScore(ctx, s.keys.FollowRequests(uid), id(viewer))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.Wrap("load users", err)
	}
	out := make([]store.User, 0, len(uids))
	for i, uid := range uids {
		var h schema.UserHash
		if err := all[i].fields.Scan(&h); err != nil || h.Username == "" {
			continue // no such user
		}
		u := store.User{ID: uid, Username: h.Username, Bio: h.Bio,
			CreatedAt:      store.Time(h.Created),
			PostsCount:     h.Posts,
			AvatarURL:      media.AvatarURL(h.Avatar),
			DisplayName:    h.DisplayName,
			HeaderURL:      media.AvatarURL(h.Header),
			Fields:         []store.Field{},
			FollowersCount: all[i].fans.Val(),
			FollowingCount: all[i].stars.Val(),
		}
		u.Protected, u.Suspended = h.Protected, h.Suspended
		u.Remote, u.URL = h.Remote != "", h.RemoteURL
		schema.UnmarshalList(h.Fields, &u.Fields)
		if viewer > 0 {
			u.Following = found(all[i].following)
			u.Blocking = found(all[i].blocking)
			u.BlockedBy = found(all[i].blockedBy)
			u.Muting = found(all[i].muting)
			u.Requested = found(all[i].requested)
		}
		out = append(out, u)
	}
	return out, nil
}

// SetBio changes a user's bio.
func (s *Store) SetBio(ctx context.Context, uid int64, bio string) (store.User, error) {
	if err := store.CheckBio(bio); err != nil {
		return store.User{}, err
	}
	// HSETXX-like: only an existing user gets a bio, so a deleted account is not revived.
	n, err := s.rdb.Exists(ctx, s.keys.User(uid)).Result()
	if err != nil {
		return store.User{}, s.Wrap("set bio", err)
	}
	if n == 0 {
		return store.User{}, store.ErrUserNotFound
	}
	if err := s.rdb.HSet(ctx, s.keys.User(uid), schema.FieldBio, bio).Err(); err != nil {
		return store.User{}, s.Wrap("set bio", err)
	}
	return s.User(ctx, uid, uid)
}

// username returns the name of user uid.
func (s *Store) username(ctx context.Context, uid int64) (string, error) {
	name, err := s.rdb.HGet(ctx, s.keys.User(uid), schema.FieldUsername).Result()
	if errors.Is(err, redis.Nil) {
		return "", store.ErrUserNotFound
	}
	return name, s.Wrap("load user", err)
}

// found tells whether a ZSCORE found its member.
func found(c *redis.FloatCmd) *bool {
	yes := c.Err() == nil
	return &yes
}

// indexUser makes a user findable by name prefix.
func (s *Store) indexUser(ctx context.Context, pl redis.Pipeliner, uid int64, lowerName string) {
	pl.ZAdd(ctx, s.keys.Usernames(), redis.Z{Member: norm.NFC.String(lowerName) + ":" + id(uid)})
}
