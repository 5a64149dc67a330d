package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/social"
)

// Follows, likes, notifications, trends, search, blocks, mutes,
// moderation, protected accounts, bookmarks and pins live in package
// social; the Store embeds it. The steps of it that the rest of the
// request path takes are below, by the names they had here.

func (s *Store) sieve(ctx context.Context, posts []*store.Post, viewer int64, at store.Place) error {
	return social.Sieve(ctx, s.Social, posts, viewer, at)
}

func (s *Store) hiddenOr(ctx context.Context, viewer, mid int64, why error) error {
	return social.HiddenOr(ctx, s.Social, viewer, mid, why)
}

func (s *Store) target(ctx context.Context, actor, mid int64) (*store.Post, error) {
	return social.Target(ctx, s.Social, actor, mid)
}

func (s *Store) lensChanged(ctx context.Context, uids ...int64) {
	social.LensChanged(ctx, s.Social, uids...)
}

func (s *Store) likedArchived(ctx context.Context, viewer int64, mids, cold []int64, out []*store.Post) error {
	return social.LikedArchived(ctx, s.Social, viewer, mids, cold, out)
}

func (s *Store) notify(ctx context.Context, actor int64, kind string, post int64, recipients ...int64) {
	social.Notify(ctx, s.Social, actor, kind, post, recipients...)
}

func (s *Store) unread(ctx context.Context, uid int64) (int64, error) {
	return social.Unread(ctx, s.Social, uid)
}

func (s *Store) publishCounts(ctx context.Context, mid, author int64) {
	social.PublishCounts(ctx, s.Social, mid, author)
}

func (s *Store) queueTrends(ctx context.Context, pl redis.Pipeliner, tags []string, author, created int64, delta float64) {
	social.QueueTrends(ctx, s.Social, pl, tags, author, created, delta)
}

func (s *Store) relationPage(ctx context.Context, key string, q store.PageQuery) (store.Page[store.User], error) {
	return social.RelationPage(ctx, s.Social, key, q)
}

func (s *Store) seenPeople(ctx context.Context, page store.Page[store.User], viewer int64) (store.Page[store.User], error) {
	return social.SeenPeople(ctx, s.Social, page, viewer)
}

// socialCore is what package social asks of the Store (social.Core).
type socialCore struct{ *Store }

func (c socialCore) Users(ctx context.Context, uids []int64, viewer int64) ([]store.User, error) {
	return c.users(ctx, uids, viewer)
}

func (c socialCore) Username(ctx context.Context, uid int64) (string, error) {
	return c.username(ctx, uid)
}

func (c socialCore) Cards(ctx context.Context, uids []int64) (map[int64]social.Card, error) {
	cards, err := c.authorCards(ctx, uids)
	out := make(map[int64]social.Card, len(cards))
	for uid, a := range cards {
		out[uid] = social.Card{Protected: a.protected, Suspended: a.suspended}
	}
	return out, err
}

func (c socialCore) Message(ctx context.Context, mid int64) (*store.Post, error) {
	return c.message(ctx, mid)
}

func (c socialCore) Lookup(ctx context.Context, mid int64) (*store.Post, bool, error) {
	return c.lookup(ctx, mid)
}

func (c socialCore) Posts(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, error) {
	return c.posts(ctx, mids, viewer)
}

func (c socialCore) LoadPosts(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, error) {
	return c.loadPosts(ctx, mids, viewer)
}

func (c socialCore) Hydrate(ctx context.Context, keys []string, mids []int64, viewer int64, at store.Place, items []store.Post) ([]store.Post, error) {
	return c.hydrate(ctx, keys, mids, viewer, at, items)
}

func (c socialCore) TagPage(ctx context.Context, key string, q store.PageQuery) (store.Page[store.Post], error) {
	// T: holds the hot posts; the archive, all of them (archiveTail).
	return c.postPageGapped(ctx, []string{c.keys.TagPosts(key)}, c.archiveTail(store.ArchiveQuery{Tag: key, Ascending: q.Ascending}), q, store.InPublic)
}

func (c socialCore) ArchiveTail(q store.ArchiveQuery) func(ctx context.Context, before, after int64, n int) ([]int64, error) {
	return c.archiveTail(q)
}

func (c socialCore) QueueArchiveLike(ctx context.Context, pl redis.Pipeliner, op string, l store.ArchivedLike) {
	c.queueArchiveLike(ctx, pl, op, l)
}

func (c socialCore) FillHome(ctx context.Context, uid int64, zs []redis.Z, cut float64) error {
	return c.fillHome(ctx, uid, zs, cut)
}

func (c socialCore) Publish(ctx context.Context, channel, event string, data any) {
	c.publish(ctx, channel, event, data)
}

func (c socialCore) QueuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any) {
	c.queuePublish(ctx, pl, channel, event, data)
}

func (c socialCore) QueuePublishFrame(ctx context.Context, pl redis.Pipeliner, channel string, frame []byte) {
	c.queuePublishFrame(ctx, pl, channel, frame)
}
