package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Followed topics. A user's followed topics are its ZSET
// user:userid:<uid>:tags (at most store.MaxFollowedTags); its home timeline
// merges each one's T:<tag key>:messageID set with its G set
// (timeline_home.go), as it merges the F sets of the celebrities it pulls,
// and its live feed listens to each one's tag:<tag key> channel, on which
// a new public post is published once per topic it carries
// (liveEvents). A follow or unfollow tells the user's connections with an
// internal tags_changed event on notify:<uid>.

// FollowTag makes uid follow the topic tag (on) or not, idempotently, and
// returns its key.
func (s *Store) FollowTag(ctx context.Context, uid int64, tag string, on bool) (string, error) {
	key, err := store.CheckTagName(tag)
	if err != nil {
		return "", err
	}
	var changed bool
	if on {
		n, err := schema.ZaddCapped.Run(ctx, s.rdb, []string{s.keys.FollowedTags(uid)}, s.Now(), key, store.MaxFollowedTags).Int64()
		if err != nil {
			return "", s.Wrap("follow topic", err)
		}
		if n < 0 {
			return "", store.ErrTagFollowLimit
		}
		changed = n == 1
	} else {
		n, err := s.rdb.ZRem(ctx, s.keys.FollowedTags(uid), key).Result()
		if err != nil {
			return "", s.Wrap("unfollow topic", err)
		}
		changed = n == 1
	}
	if changed {
		s.publish(ctx, s.keys.NotifyChannel(uid), store.EventTagsChanged, struct{}{})
	}
	return key, nil
}

// FollowedTags is a page of the topics uid follows, newest follow first.
// The set is small (store.MaxFollowedTags), so it is read whole and the
// page cut from it: the cursor is the last topic's follow time (Score) and
// how many topics of that same millisecond the pages before held (Member).
func (s *Store) FollowedTags(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.FollowedTag], error) {
	zs, err := s.rdb.ZRevRangeWithScores(ctx, s.keys.FollowedTags(uid), 0, -1).Result()
	if err != nil {
		return store.Page[store.FollowedTag]{}, s.Wrap("list followed topics", err)
	}
	page := store.Page[store.FollowedTag]{Items: []store.FollowedTag{}}
	var tie int64 // topics passed at the score of the last one
	for i, z := range zs {
		at := int64(z.Score)
		if i > 0 && at == int64(zs[i-1].Score) {
			tie++
		} else {
			tie = 0
		}
		if !q.Cursor.IsZero() && (at > q.Cursor.Score || at == q.Cursor.Score && tie < q.Cursor.Member) {
			continue
		}
		if len(page.Items) == q.Size() {
			last := page.Items[len(page.Items)-1]
			n := int64(0)
			for j := i - 1; j >= 0 && int64(zs[j].Score) == int64(last.FollowedAt); j-- {
				n++
			}
			page.NextCursor = store.NextCursor(store.Cursor{Score: int64(last.FollowedAt), Member: n})
			break
		}
		name, _ := z.Member.(string)
		page.Items = append(page.Items, store.FollowedTag{Name: name, FollowedAt: store.Time(at)})
	}
	return page, nil
}

// FollowsTags tells, for each of keys, whether uid follows that topic.
func (s *Store) FollowsTags(ctx context.Context, uid int64, keys []string) ([]bool, error) {
	out := make([]bool, len(keys))
	if uid <= 0 || len(keys) == 0 {
		return out, nil
	}
	scores, err := s.rdb.ZMScore(ctx, s.keys.FollowedTags(uid), keys...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.Wrap("followed topics", err)
	}
	for i := range out {
		out[i] = i < len(scores) && scores[i] != 0
	}
	return out, nil
}

// TagKeys are the keys of the topics uid follows.
func (s *Store) TagKeys(ctx context.Context, uid int64) ([]string, error) {
	keys, err := s.rdb.ZRange(ctx, s.keys.FollowedTags(uid), 0, -1).Result()
	if err != nil {
		return nil, s.Wrap("followed topics", err)
	}
	return keys, nil
}

// queueTagEvents adds to pl event on the channel of each of tags, the
// topics of a post, unless its author is protected: what liveEvents
// publishes of a new post, for its edits (post_update) and its delete, so
// that a topic's followers who saw it live see those too. A follower who
// is also the author's fan may get such an event twice; both kinds are
// idempotent where a client applies them.
func (s *Store) queueTagEvents(ctx context.Context, pl redis.Pipeliner, tags []string, protected bool, event string, data any) {
	if protected || len(tags) == 0 {
		return
	}
	frame, err := store.EncodeFrame(event, data)
	if err != nil {
		s.opt.Logger.ErrorContext(ctx, "encode live event", "event", event, "err", err)
		return
	}
	for _, key := range schema.TagKeys(tags) {
		s.queuePublishFrame(ctx, pl, s.keys.TagChannel(key), frame)
	}
}
