package social

import (
	"context"
	"microblog/store/redisdb/internal/reqpath"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Lists (关注分组): each user's ZSET of its list ids, a HASH per list and a
// ZSET of its members, all under the owner's hash tag so that the script
// that adds members checks them against the owner's follows atomically
// (lua/list_add.lua). A member leaves every list of a user who stops
// following it (Unfollow, and so a block) or whose account goes
// (LeaveListsOf); an owner's lists go with its account (DropLists). Each
// change of members is published to the owner's live connections
// (store.EventListMembers), so that their list streams follow it.
//
// The ids of a user's exclusive lists are kept in a SET of their own
// (ExclusiveLists), changed with the lists' hashes: its lens reads it (one
// command more in the lens's round trip) and, only when it holds some,
// their members, whose posts then leave its home timeline. So each change
// that touches what an exclusive list holds is a lens change
// (lensChanged): the caches forget the lens and the live feed reads it
// again.

// Hash fields of a list.
const (
	fieldTitle     = "title"
	fieldPolicy    = "replies_policy"
	fieldExclusive = "exclusive"
)

// CreateList makes a list of uid's.
func (s *Social) CreateList(ctx context.Context, uid int64, nl store.NewList) (store.List, error) {
	if err := nl.Check(); err != nil {
		return store.List{}, err
	}
	lid, err := s.rdb.Incr(ctx, s.keys.LastListID()).Result()
	if err != nil {
		return store.List{}, s.core.Wrap("create list", err)
	}
	excl := "0"
	if nl.Exclusive {
		excl = "1"
	}
	n, err := schema.ListCreate.Run(ctx, s.rdb, []string{s.keys.Lists(uid), s.keys.List(uid, lid), s.keys.ExclusiveLists(uid)},
		lid, s.core.Now(), store.MaxLists, nl.Title, nl.RepliesPolicy, excl).Int64()
	if err != nil {
		return store.List{}, s.core.Wrap("create list", err)
	}
	if n < 0 {
		return store.List{}, store.ErrListLimit
	}
	return store.List{ID: lid, Title: nl.Title, RepliesPolicy: nl.RepliesPolicy, Exclusive: nl.Exclusive}, nil
}

// Lists are uid's lists, oldest first, in two round trips.
func (s *Social) Lists(ctx context.Context, uid int64) ([]store.List, error) {
	ids, err := s.rdb.ZRange(ctx, s.keys.Lists(uid), 0, -1).Result()
	if err != nil {
		return nil, s.core.Wrap("read lists", err)
	}
	return s.readLists(ctx, uid, schema.ParseIDs(ids))
}

// List is uid's list lid.
func (s *Social) List(ctx context.Context, uid, lid int64) (store.List, error) {
	ls, err := s.readLists(ctx, uid, []int64{lid})
	if err != nil {
		return store.List{}, err
	}
	if len(ls) == 0 {
		return store.List{}, store.ErrListNotFound
	}
	return ls[0], nil
}

// readLists reads uid's lists lids in one round trip, leaving out those
// that are not there.
func (s *Social) readLists(ctx context.Context, uid int64, lids []int64) ([]store.List, error) {
	hashes := make([]*redis.MapStringStringCmd, len(lids))
	counts := make([]*redis.IntCmd, len(lids))
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, lid := range lids {
			hashes[i] = pl.HGetAll(ctx, s.keys.List(uid, lid))
			counts[i] = pl.ZCard(ctx, s.keys.ListMembers(uid, lid))
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.core.Wrap("read lists", err)
	}
	out := make([]store.List, 0, len(lids))
	for i, lid := range lids {
		h := hashes[i].Val()
		if lid <= 0 || h[fieldTitle] == "" {
			continue
		}
		out = append(out, store.List{ID: lid, Title: h[fieldTitle], RepliesPolicy: h[fieldPolicy],
			Exclusive: h[fieldExclusive] == "1", MembersCount: int(counts[i].Val())})
	}
	return out, nil
}

// UpdateList changes what ch sets of uid's list lid.
func (s *Social) UpdateList(ctx context.Context, uid, lid int64, ch store.ListChange) (store.List, error) {
	if err := ch.Check(); err != nil {
		return store.List{}, err
	}
	if _, err := s.List(ctx, uid, lid); err != nil {
		return store.List{}, err
	}
	var set []any
	var moved *redis.IntCmd // the list joined or left the exclusive ones
	if ch.Title != nil {
		set = append(set, fieldTitle, *ch.Title)
	}
	if ch.RepliesPolicy != nil {
		set = append(set, fieldPolicy, *ch.RepliesPolicy)
	}
	if ch.Exclusive != nil {
		v := "0"
		if *ch.Exclusive {
			v = "1"
		}
		set = append(set, fieldExclusive, v)
	}
	if len(set) > 0 {
		_, err := s.rdb.TxPipelined(ctx, func(pl redis.Pipeliner) error {
			pl.HSet(ctx, s.keys.List(uid, lid), set...)
			switch {
			case ch.Exclusive == nil:
			case *ch.Exclusive:
				moved = pl.SAdd(ctx, s.keys.ExclusiveLists(uid), lid)
			default:
				moved = pl.SRem(ctx, s.keys.ExclusiveLists(uid), lid)
			}
			return nil
		})
		if err != nil {
			return store.List{}, s.core.Wrap("update list", err)
		}
	}
	if moved != nil && moved.Val() > 0 {
		s.lensChanged(ctx, uid)
	}
	return s.List(ctx, uid, lid)
}

// DeleteList removes uid's list lid and its members.
func (s *Social) DeleteList(ctx context.Context, uid, lid int64) error {
	l, err := s.List(ctx, uid, lid)
	if err != nil {
		return err
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.ZRem(ctx, s.keys.Lists(uid), lid)
		pl.SRem(ctx, s.keys.ExclusiveLists(uid), lid)
		pl.Del(ctx, s.keys.List(uid, lid), s.keys.ListMembers(uid, lid))
		s.core.QueuePublish(ctx, pl, s.keys.NotifyChannel(uid), store.EventListMembers,
			store.ListMembersData{ListID: lid, Members: []int64{}, Deleted: true})
		return nil
	})
	if err != nil {
		return s.core.Wrap("delete list", err)
	}
	if l.Exclusive {
		s.lensChanged(ctx, uid)
	}
	return nil
}

// AddListMembers adds members to uid's list lid, all or none.
func (s *Social) AddListMembers(ctx context.Context, uid, lid int64, members []int64) error {
	members = distinct(members)
	if err := store.CheckListAccounts(len(members)); err != nil {
		return err
	}
	args := []any{s.core.Now(), store.MaxListMembers}
	for _, m := range members {
		if m == uid {
			return store.ErrNotFollowing
		}
		args = append(args, m)
	}
	keys := []string{s.keys.List(uid, lid), s.keys.ListMembers(uid, lid), s.keys.Stars(uid)}
	n, err := schema.ListAdd.Run(ctx, s.rdb, keys, args...).Int64()
	if err != nil {
		return s.core.Wrap("add list members", err)
	}
	switch n {
	case -1:
		return store.ErrListNotFound
	case -2:
		return store.ErrNotFollowing
	case -3:
		return store.ErrListMembersLimit
	case 0:
		return nil
	}
	s.publishMembers(ctx, uid, lid)
	s.exclusiveChanged(ctx, uid, lid)
	return nil
}

// RemoveListMembers takes members out of uid's list lid.
func (s *Social) RemoveListMembers(ctx context.Context, uid, lid int64, members []int64) error {
	members = distinct(members)
	if err := store.CheckListAccounts(len(members)); err != nil {
		return err
	}
	l, err := s.List(ctx, uid, lid)
	if err != nil {
		return err
	}
	n, err := s.rdb.ZRem(ctx, s.keys.ListMembers(uid, lid), anyOf(members)...).Result()
	if err != nil {
		return s.core.Wrap("remove list members", err)
	}
	if n > 0 {
		s.publishMembers(ctx, uid, lid)
		if l.Exclusive {
			s.lensChanged(ctx, uid)
		}
	}
	return nil
}

// ListMembers is a page of the members of uid's list lid, newest added
// first, as uid sees them.
func (s *Social) ListMembers(ctx context.Context, uid, lid int64, q store.PageQuery) (store.Page[store.User], error) {
	if _, err := s.List(ctx, uid, lid); err != nil {
		return store.Page[store.User]{}, err
	}
	q.Viewer = uid
	return s.relationPage(ctx, s.keys.ListMembers(uid, lid), q)
}

// ListMemberIDs are the uids of the members of uid's list lid.
func (s *Social) ListMemberIDs(ctx context.Context, uid, lid int64) ([]int64, error) {
	var exists *redis.IntCmd
	var ids *redis.StringSliceCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		exists = pl.Exists(ctx, s.keys.List(uid, lid))
		ids = pl.ZRange(ctx, s.keys.ListMembers(uid, lid), 0, -1)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.core.Wrap("read list members", err)
	}
	if lid <= 0 || exists.Val() == 0 {
		return nil, store.ErrListNotFound
	}
	return schema.ParseIDs(ids.Val()), nil
}

// ListsWith are those of uid's lists that hold member, oldest first.
func (s *Social) ListsWith(ctx context.Context, uid, member int64) ([]store.List, error) {
	ids, err := s.rdb.ZRange(ctx, s.keys.Lists(uid), 0, -1).Result()
	if err != nil {
		return nil, s.core.Wrap("read lists", err)
	}
	lids := schema.ParseIDs(ids)
	scores := make([]*redis.FloatCmd, len(lids))
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, lid := range lids {
			scores[i] = pl.ZScore(ctx, s.keys.ListMembers(uid, lid), id(member))
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.core.Wrap("read lists", err)
	}
	var with []int64
	for i, lid := range lids {
		if scores[i].Err() == nil {
			with = append(with, lid)
		}
	}
	return s.readLists(ctx, uid, with)
}

// leaveLists takes member out of every list of owner's (on an unfollow or
// a block), telling owner's live connections of each list it left.
func (s *Social) leaveLists(ctx context.Context, owner, member int64) error {
	var all, exclusive *redis.StringSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		all = pl.ZRange(ctx, s.keys.Lists(owner), 0, -1)
		exclusive = pl.SMembers(ctx, s.keys.ExclusiveLists(owner))
		return nil
	})
	if err != nil {
		return s.core.Wrap("leave lists", err)
	}
	lids := schema.ParseIDs(all.Val())
	if len(lids) == 0 {
		return nil
	}
	removed := make([]*redis.IntCmd, len(lids))
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, lid := range lids {
			removed[i] = pl.ZRem(ctx, s.keys.ListMembers(owner, lid), member)
		}
		return nil
	})
	if err != nil {
		return s.core.Wrap("leave lists", err)
	}
	lens := false // an exclusive list lost member
	for i, lid := range lids {
		if removed[i].Val() > 0 {
			s.publishMembers(ctx, owner, lid)
			lens = lens || slices.Contains(exclusive.Val(), id(lid))
		}
	}
	if lens {
		s.lensChanged(ctx, owner)
	}
	return nil
}

// LeaveListsOf takes member, whose account is going, out of every list of
// each of owners (its fans), in two round trips.
func LeaveListsOf(ctx context.Context, s *Social, owners []int64, member int64) error {
	cmds := make([]*redis.StringSliceCmd, len(owners))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, o := range owners {
			cmds[i] = pl.ZRange(ctx, s.keys.Lists(o), 0, -1)
		}
		return nil
	})
	if err != nil {
		return s.core.Wrap("leave lists", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, o := range owners {
			for _, lid := range schema.ParseIDs(cmds[i].Val()) {
				pl.ZRem(ctx, s.keys.ListMembers(o, lid), member)
			}
		}
		return nil
	})
	if err != nil {
		return s.core.Wrap("leave lists", err)
	}
	return nil
}

// DropLists removes every list of uid's (its account is going).
func DropLists(ctx context.Context, s *Social, uid int64) error {
	ids, err := s.rdb.ZRange(ctx, s.keys.Lists(uid), 0, -1).Result()
	if err != nil {
		return s.core.Wrap("drop lists", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, lid := range schema.ParseIDs(ids) {
			pl.Del(ctx, s.keys.List(uid, lid), s.keys.ListMembers(uid, lid))
		}
		pl.Del(ctx, s.keys.Lists(uid), s.keys.ExclusiveLists(uid))
		return nil
	})
	if err != nil {
		return s.core.Wrap("drop lists", err)
	}
	return nil
}

// publishMembers tells uid's live connections who is in list lid now.
// A failure is logged: a stream reconnecting reads the members again.
func (s *Social) publishMembers(ctx context.Context, uid, lid int64) {
	ids, err := s.rdb.ZRange(ctx, s.keys.ListMembers(uid, lid), 0, -1).Result()
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "publish list members", "list", lid, "err", err)
		return
	}
	members := schema.ParseIDs(ids)
	if members == nil {
		members = []int64{}
	}
	s.core.Publish(ctx, s.keys.NotifyChannel(uid), store.EventListMembers, store.ListMembersData{ListID: lid, Members: members})
}

// exclusiveChanged makes uid's lens read again when its list lid, whose
// members changed, is exclusive. A failure to tell is logged: the lens
// caches forget it within their time anyway.
func (s *Social) exclusiveChanged(ctx context.Context, uid, lid int64) {
	on, err := s.rdb.SIsMember(ctx, s.keys.ExclusiveLists(uid), lid).Result()
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "list members: exclusive", "list", lid, "err", err)
		return
	}
	if on {
		s.lensChanged(ctx, uid)
	}
}

// exclusiveMembers are the members of uid's exclusive lists lids (ids as
// read from ExclusiveLists), in one round trip: one ZUNION, its keys all
// on the owner's slot.
func (s *Social) exclusiveMembers(ctx context.Context, uid int64, lids []string) (map[int64]bool, error) {
	keys := make([]string, 0, len(lids))
	for _, lid := range schema.ParseIDs(lids) {
		keys = append(keys, s.keys.ListMembers(uid, lid))
	}
	if len(keys) == 0 {
		return nil, nil
	}
	ids, err := s.rdb.ZUnion(ctx, redis.ZStore{Keys: keys}).Result()
	if err != nil {
		return nil, s.core.Wrap("load lens: exclusive lists", err)
	}
	return schema.IDSet(ids), nil
}

// distinct is ids without repeats, in their first order.
func distinct(ids []int64) []int64 {
	out := make([]int64, 0, len(ids))
	for _, v := range ids {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// anyOf is ids as command arguments.
func anyOf(ids []int64) []any {
	out := make([]any, len(ids))
	for i, v := range ids {
		out[i] = v
	}
	return out
}
