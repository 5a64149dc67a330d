package account

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Markers are uid's markers of timelines, those never set left out.
func (s *Accounts) Markers(ctx context.Context, uid int64, timelines []string) ([]store.Marker, error) {
	if len(timelines) == 0 {
		return []store.Marker{}, nil
	}
	fields := make([]string, 0, 3*len(timelines))
	for _, tl := range timelines {
		fields = append(fields, tl+":id", tl+":v", tl+":t")
	}
	vals, err := s.rdb.HMGet(ctx, s.keys.Markers(uid), fields...).Result()
	if err != nil {
		return nil, s.core.Wrap("read markers", err)
	}
	out := make([]store.Marker, 0, len(timelines))
	for i, tl := range timelines {
		idv, _ := vals[3*i].(string)
		if idv == "" {
			continue
		}
		v, _ := vals[3*i+1].(string)
		t, _ := vals[3*i+2].(string)
		out = append(out, store.Marker{Timeline: tl, LastReadID: parseID(idv), Version: parseID(v), UpdatedAt: store.Time(parseID(t))})
	}
	return out, nil
}

// SetMarker moves uid's marker of timeline to lastReadID, its version one
// up, in one transaction.
func (s *Accounts) SetMarker(ctx context.Context, uid int64, timeline string, lastReadID int64) (store.Marker, error) {
	key, now := s.keys.Markers(uid), s.core.Now()
	var version *redis.IntCmd
	_, err := s.rdb.TxPipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, key, timeline+":id", lastReadID, timeline+":t", now)
		version = pl.HIncrBy(ctx, key, timeline+":v", 1)
		return nil
	})
	if err != nil {
		return store.Marker{}, s.core.Wrap("set marker", err)
	}
	return store.Marker{Timeline: timeline, LastReadID: lastReadID, Version: version.Val(), UpdatedAt: store.Time(now)}, nil
}

// errNotificationNotFound answers for a notification uid does not have.
var errNotificationNotFound = store.NewError(store.ErrNotFound, store.CodeNotFound, "no such notification")

// DismissNotification removes uid's notification nid and tells uid's live
// readers, as when a like is taken back.
func (s *Accounts) DismissNotification(ctx context.Context, uid, nid int64) error {
	n, err := schema.NotifyDismiss.Run(ctx, s.rdb, []string{s.keys.Notifications(uid), s.keys.Notes(uid)}, nid).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.core.Wrap("dismiss notification", err)
	}
	if n == 0 {
		return errNotificationNotFound
	}
	s.core.Publish(ctx, s.keys.NotifyChannel(uid), store.EventNotificationRemoved, store.DeleteData{ID: nid})
	return nil
}

// ClearNotifications removes all of uid's notifications.
func (s *Accounts) ClearNotifications(ctx context.Context, uid int64) error {
	return s.core.Wrap("clear notifications", s.rdb.Del(ctx, s.keys.Notifications(uid), s.keys.Notes(uid)).Err())
}

// Totals reads the two id counters, global:userid and global:postid: one
// round trip, one command per key (they sit on different slots of a
// cluster).
func (s *Accounts) Totals(ctx context.Context) (users, messages int64, err error) {
	var u, m *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		u, m = pl.Get(ctx, s.keys.LastUserID()), pl.Get(ctx, s.keys.LastPostID())
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return 0, 0, s.core.Wrap("read totals", err)
	}
	users, _ = u.Int64()
	messages, _ = m.Int64()
	return users, messages, nil
}
