package media

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// errNoUpload answers an upload id that names none of the caller's.
var errNoUpload = store.NewError(store.ErrNotFound, store.CodeNotFound, "no such upload")

// Upload is owner's upload id as it is now; ErrNotFound when it is no
// upload of owner's (or was removed, unattached, after a day).
func (s *Uploads) Upload(ctx context.Context, owner, id int64) (store.Media, error) {
	var h schema.MediaHash
	c := s.rdb.HGetAll(ctx, s.keys.Media(id))
	if err := c.Err(); err != nil {
		return store.Media{}, s.core.Wrap("read upload", err)
	}
	if len(c.Val()) == 0 || c.Scan(&h) != nil || h.Owner != owner {
		return store.Media{}, errNoUpload
	}
	return h.Media(id), nil
}

// DescribeUpload replaces the alt text of owner's upload id while no post
// has taken it (a post keeps its images as it took them): ErrNotFound
// when it is no upload of owner's, 400 invalid_media once a post has it.
func (s *Uploads) DescribeUpload(ctx context.Context, owner, id int64, alt string) (store.Media, error) {
	key := s.keys.Media(id)
	var out store.Media
	err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
		var h schema.MediaHash
		c := tx.HGetAll(ctx, key)
		if err := c.Err(); err != nil {
			return err
		}
		if len(c.Val()) == 0 || c.Scan(&h) != nil || h.Owner != owner {
			return errNoUpload
		}
		if h.Post != 0 {
			return store.Invalid(store.CodeInvalidMedia, "the upload is in a post already; its description stays as the post took it")
		}
		h.Alt = alt
		out = h.Media(id)
		_, err := tx.TxPipelined(ctx, func(pl redis.Pipeliner) error {
			pl.HSet(ctx, key, "alt", alt)
			return nil
		})
		return err
	}, key)
	if err != nil {
		return store.Media{}, s.core.Wrap("describe upload", err)
	}
	return out, nil
}
