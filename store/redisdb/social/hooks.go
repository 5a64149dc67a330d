package social

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// What the rest of the request path (package redisdb) does with this
// package beyond the store's interfaces. These are functions, not methods,
// so that they do not join the method set of the Store that embeds Social.

// Sieve takes out of posts (setting them nil) those viewer must not see
// at place at.
func Sieve(ctx context.Context, s *Social, posts []*store.Post, viewer int64, at store.Place) error {
	return s.sieve(ctx, posts, viewer, at)
}

// HiddenOr is the error of a message that does not exist when viewer may
// not see mid; why otherwise.
func HiddenOr(ctx context.Context, s *Social, viewer, mid int64, why error) error {
	return s.hiddenOr(ctx, viewer, mid, why)
}

// Target loads the message actor acts on: 404 when actor may not see it.
func Target(ctx context.Context, s *Social, actor, mid int64) (*store.Post, error) {
	return s.target(ctx, actor, mid)
}

// LensChanged tells every process that uids' lenses changed.
func LensChanged(ctx context.Context, s *Social, uids ...int64) { s.lensChanged(ctx, uids...) }

// LikedArchived sets Liked on the posts of out read from the archive (the
// indexes cold into mids).
func LikedArchived(ctx context.Context, s *Social, viewer int64, mids, cold []int64, out []*store.Post) error {
	return s.likedArchived(ctx, viewer, mids, cold, out)
}

// Notify tells each of recipients (but the actor itself) that actor did
// kind (on post, 0 for none); failures are logged, not returned.
func Notify(ctx context.Context, s *Social, actor int64, kind string, post int64, recipients ...int64) {
	s.notify(ctx, actor, kind, post, recipients...)
}

// Unread counts uid's notifications newer than its read mark.
func Unread(ctx context.Context, s *Social, uid int64) (int64, error) { return s.unread(ctx, uid) }

// PublishCounts tells the live readers of author's posts the counters of
// message mid as they are now.
func PublishCounts(ctx context.Context, s *Social, mid, author int64) {
	s.publishCounts(ctx, mid, author)
}

// QueueTrends counts (delta 1) or takes out (-1) the topics of a post that
// author wrote at created (unix ms), in pl.
func QueueTrends(ctx context.Context, s *Social, pl redis.Pipeliner, tags []string, author, created int64, delta float64) {
	s.queueTrends(ctx, pl, tags, author, created, delta)
}

// RelationPage pages a set of users by time.
func RelationPage(ctx context.Context, s *Social, key string, q store.PageQuery) (store.Page[store.User], error) {
	return s.relationPage(ctx, key, q)
}

// SeenPeople takes out of a page of the people attached to a post those
// viewer may not meet there.
func SeenPeople(ctx context.Context, s *Social, page store.Page[store.User], viewer int64) (store.Page[store.User], error) {
	return s.seenPeople(ctx, page, viewer)
}
