package redisdb

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// SetProfile changes uid's display name, its fields, or both. The display
// name is kept in the user's hash alone, never copied into its posts: a
// page reads it with the author's card (fillAuthors), so a new one shows
// at once on every post, hot or archived, in every process (the card's
// cache is told on avatars:changed). The name's entry in
// global:displaynames moves with it, for user search.
func (s *Store) SetProfile(ctx context.Context, uid int64, p store.ProfileUpdate) (store.User, error) {
	var name string
	var fields []byte
	if p.DisplayName != nil {
		var err error
		if name, err = store.CleanDisplayName(*p.DisplayName); err != nil {
			return store.User{}, err
		}
	}
	if p.Fields != nil {
		clean, err := store.CleanFields(*p.Fields)
		if err != nil {
			return store.User{}, err
		}
		fields, _ = json.Marshal(clean)
	}
	cur, err := s.rdb.HMGet(ctx, s.keys.User(uid), schema.FieldUsername, schema.FieldDisplayName).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return store.User{}, s.Wrap("set profile", err)
	}
	if username, _ := cur[0].(string); username == "" {
		return store.User{}, store.ErrUserNotFound // a deleted account is not revived
	}
	old, _ := cur[1].(string)
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if p.DisplayName != nil && name != old {
			pl.HSet(ctx, s.keys.User(uid), schema.FieldDisplayName, name)
			if old != "" {
				pl.ZRem(ctx, s.keys.DisplayNames(), displayNameEntry(old, uid))
			}
			if name != "" {
				pl.ZAdd(ctx, s.keys.DisplayNames(), redis.Z{Member: displayNameEntry(name, uid)})
			}
			pl.Publish(ctx, s.keys.AvatarsChannel(), uid) // the author cards other processes remember
		}
		if fields != nil {
			pl.HSet(ctx, s.keys.User(uid), schema.FieldFields, string(fields))
		}
		return nil
	})
	s.ForgetAuthor(uid)
	if err != nil {
		return store.User{}, s.Wrap("set profile", err)
	}
	return s.User(ctx, uid, uid)
}

// displayNameEntry is user uid's member of global:displaynames for its
// display name name: its search form (as a query's: lower case, NFC), a
// colon and the uid.
func displayNameEntry(name string, uid int64) string {
	return store.TagKey(name) + ":" + id(uid)
}
