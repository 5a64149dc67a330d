package media

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// SaveMedia records an upload of owner's; it stays unattached until a post
// takes it, and is removed after UnattachedMediaTTL if none does.
func (s *Uploads) SaveMedia(ctx context.Context, owner int64, f store.MediaFile) (store.Media, error) {
	mediaID, err := s.rdb.Incr(ctx, s.keys.LastMediaID()).Result()
	if err != nil {
		return store.Media{}, s.core.Wrap("save media", err)
	}
	now := s.core.Now()
	h := schema.MediaHash{Owner: owner, Name: f.Name, Thumb: f.ThumbName, Width: f.Width, Height: f.Height, Alt: f.Alt,
		Blurhash: f.Blurhash, Created: now}
	_, err = s.rdb.TxPipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, s.keys.Media(mediaID), h)
		return nil
	})
	if err == nil {
		err = s.rdb.ZAdd(ctx, s.keys.UnattachedMedia(), redis.Z{Score: float64(now), Member: mediaID}).Err()
	}
	if err != nil {
		return store.Media{}, s.core.Wrap("save media", err)
	}
	return h.Media(mediaID), nil
}

// queueRead reads the uploads ids in a pipeline, for Own.
func (s *Uploads) queueRead(ctx context.Context, pl redis.Pipeliner, ids []int64) []*redis.MapStringStringCmd {
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	for i, m := range ids {
		cmds[i] = pl.HGetAll(ctx, s.keys.Media(m))
	}
	return cmds
}

// Own checks that the uploads ids, read by QueueRead, are
// owner's, each once, and taken by no post or message yet.
func Own(owner int64, ids []int64, cmds []*redis.MapStringStringCmd) ([]store.Media, error) {
	media := []store.Media{}
	for i, c := range cmds {
		var h schema.MediaHash
		mediaID := ids[i]
		if c.Scan(&h) != nil || h.Owner != owner || h.Post != 0 || slices.Index(ids, mediaID) != i {
			return nil, store.Invalid(store.CodeInvalidMedia, "media_ids must name your own uploads, each once, not yet in a post")
		}
		media = append(media, h.Media(mediaID))
	}
	return media, nil
}

// queueAttach marks a post's images taken by it.
func (s *Uploads) queueAttach(ctx context.Context, pl redis.Pipeliner, media []store.Media, mid int64) {
	for _, m := range media {
		pl.HSet(ctx, s.keys.Media(m.ID), "post", mid)
		pl.ZRem(ctx, s.keys.UnattachedMedia(), m.ID)
	}
}

// DropMedia forgets images and removes their files.
func (s *Uploads) DropMedia(ctx context.Context, media []store.Media) {
	if len(media) == 0 {
		return
	}
	var names []string
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, m := range media {
			pl.Del(ctx, s.keys.Media(m.ID))
			pl.ZRem(ctx, s.keys.UnattachedMedia(), m.ID)
			names = append(names, fileName(m.URL), fileName(m.ThumbURL))
		}
		return nil
	})
	if err == nil && s.opt.Files != nil {
		s.opt.Files.Remove(names...)
	}
}

// fileName is the media folder's name of a media URL.
func fileName(url string) string { return url[len(schema.MediaURL("")):] }

// SetAvatar makes the media file name uid's avatar, removing the old one.
func (s *Uploads) SetAvatar(ctx context.Context, uid int64, name string) (store.User, error) {
	return s.setImage(ctx, uid, schema.FieldAvatar, name, "set avatar")
}

// SetHeader makes the media file name uid's header image, removing the old one.
func (s *Uploads) SetHeader(ctx context.Context, uid int64, name string) (store.User, error) {
	return s.setImage(ctx, uid, schema.FieldHeader, name, "set header")
}

// setImage makes the media file name uid's picture of the user hash's
// field (its avatar or its header), removing the old one. Every process
// is told that uid's author card changed (its avatar is on every post).
func (s *Uploads) setImage(ctx context.Context, uid int64, field, name, what string) (store.User, error) {
	old, err := s.rdb.HGet(ctx, s.keys.User(uid), field).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return store.User{}, s.core.Wrap(what, err)
	}
	if _, err := s.core.Username(ctx, uid); err != nil {
		return store.User{}, err
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, s.keys.User(uid), field, name)
		pl.Publish(ctx, s.keys.AvatarsChannel(), uid) // for the processes that remember it
		return nil
	})
	s.core.ForgetAuthor(uid)
	if err != nil {
		return store.User{}, s.core.Wrap(what, err)
	}
	if old != "" && old != name && s.opt.Files != nil {
		s.opt.Files.Remove(old)
	}
	return s.core.User(ctx, uid, uid)
}

// AvatarURL is the URL of the avatar file name, nil for none.
func AvatarURL(name string) *string {
	if name == "" {
		return nil
	}
	if strings.HasPrefix(name, "https://") || strings.HasPrefix(name, "http://") {
		return &name // a remote account's avatar, on its own server
	}
	u := schema.MediaURL(name)
	return &u
}

// JSON is the media field of a message hash.
func JSON(media []store.Media) string {
	b, _ := json.Marshal(media)
	return string(b)
}
