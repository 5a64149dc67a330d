package redisdb

import (
	"context"

	"microblog/store"
)

// ListTimeline is a page of the posts of the members of uid's list lid,
// newest first: their F sets merged by id, as the home timeline's pull
// tail reads them, going on in the archive below the hot window. Each post
// is sifted as in uid's home timeline (blocks, mutes, word filters,
// protected authors), and the same cursor pages through both.
func (s *Store) ListTimeline(ctx context.Context, uid, lid int64, q store.PageQuery) (store.Page[store.Post], error) {
	members, err := s.ListMemberIDs(ctx, uid, lid)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	if len(members) == 0 {
		return store.Page[store.Post]{Items: []store.Post{}}, nil
	}
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = s.keys.UserPosts(m)
	}
	q.Viewer = uid
	return s.postPage(ctx, keys, s.archiveTail(store.ArchiveQuery{Authors: members, Ascending: q.Ascending}), q, store.InFeed)
}
