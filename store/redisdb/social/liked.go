package social

import (
	"context"

	"microblog/store"
)

// Liked is a page of the messages uid likes as it may see them now, newest
// like first, paged by like time: the user's likes set (schema/keys.go:
// UserLikes), which holds the hot ones, with the archive's likes of the
// user beside it (likes.go), read as bookmarks are (keptPage), for the
// Mastodon API's favourites.
func (s *Social) Liked(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Post], error) {
	return s.keptPage(ctx, "liked", s.keys.UserLikes(uid), uid, q, s.likedTail(uid))
}
