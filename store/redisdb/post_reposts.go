package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// RepostsBy is, for each of mids, the id of uid's repost of it (0 for
// none): its score in the post's reposts set, one pipelined round trip for
// all of them. A repost that is being deleted may still be named.
func (s *Store) RepostsBy(ctx context.Context, uid int64, mids []int64) ([]int64, error) {
	out := make([]int64, len(mids))
	if len(mids) == 0 || uid == 0 {
		return out, nil
	}
	cmds := make([]*redis.FloatCmd, len(mids))
	// Each command's own error is read below: a missing one (redis.Nil) is none.
	_, _ = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.ZScore(ctx, s.keys.Reposts(mid), id(uid))
		}
		return nil
	})
	for i, cmd := range cmds {
		score, err := cmd.Result()
		switch {
		case err == nil:
			out[i] = int64(score)
		case !errors.Is(err, redis.Nil): // none is no error
			return nil, s.Wrap("reposts by user", err)
		}
	}
	return out, nil
}

// Reposters is a page of the users who reposted mid, newest repost first
// (the set is scored by the repost's id), when q.Viewer may see mid; those
// q.Viewer may not see there are left out (seenPeople).
func (s *Store) Reposters(ctx context.Context, mid int64, q store.PageQuery) (store.Page[store.User], error) {
	if _, err := s.Post(ctx, mid, q.Viewer); err != nil { // not found for whom may not see it
		return store.Page[store.User]{}, err
	}
	page, err := s.relationPage(ctx, s.keys.Reposts(mid), q)
	if err != nil {
		return store.Page[store.User]{}, err
	}
	return s.seenPeople(ctx, page, q.Viewer)
}
