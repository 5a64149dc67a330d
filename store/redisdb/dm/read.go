package dm

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Reading private messages: a message by id, a conversation page by page
// back to its first message (its hot window in Redis, then the archive
// with the same cursor), the list of a user's conversations, and what the
// live feed replays.

// loadDMs reads private messages by id, in one round trip for those
// in Redis and one query of the archive for those that left it. A message
// deleted, or never written, is nil.
func (s *DMs) loadDMs(ctx context.Context, ids []int64) ([]*store.DM, error) {
	out, _, err := s.loadDMsHot(ctx, ids)
	return out, err
}

// loadDMsHot is loadDMs that also tells which ids were found in Redis.
func (s *DMs) loadDMsHot(ctx context.Context, ids []int64) ([]*store.DM, []bool, error) {
	out := make([]*store.DM, len(ids))
	hot := make([]bool, len(ids))
	if len(ids) == 0 {
		return out, hot, nil
	}
	cmds := make([]*redis.SliceCmd, len(ids))
	piped, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, pmid := range ids {
			cmds[i] = pl.HMGet(ctx, s.keys.DM(pmid), schema.DMFields...)
		}
		return nil
	})
	if err := reqpath.PipeErr(piped, err); err != nil {
		return nil, nil, s.core.Wrap("load messages", err)
	}
	var cold []int64
	for i, c := range cmds {
		v := c.Val()
		str := func(j int) string { x, _ := v[j].(string); return x }
		switch {
		case str(7) == "1": // a tombstone: gone, not to be looked for in the archive
		case str(0) == "":
			cold = append(cold, ids[i])
		default:
			out[i], hot[i] = dmOf(ids[i], parseID(str(0)), parseID(str(1)), str(2), str(3), str(4), parseID(str(5)), str(6)), true
		}
	}
	if len(cold) == 0 || s.opt.Archive == nil {
		return out, hot, nil
	}
	rows, err := s.opt.Archive.DMs(ctx, cold)
	if err != nil {
		return nil, nil, s.core.Wrap("load archived messages", err)
	}
	for i, pmid := range ids {
		if a, ok := rows[pmid]; ok && out[i] == nil && !a.Deleted {
			out[i] = dmOf(a.ID, a.Sender, a.Recipient, a.SenderName, a.RecipientName, a.Content, a.Created, a.Media)
		}
	}
	return out, hot, nil
}

// dmOf is a message as the contract shows it.
func dmOf(pmid, from, to int64, fromName, toName, content string, at int64, media string) *store.DM {
	m := &store.DM{ID: pmid, Sender: store.Party{ID: from, Username: fromName},
		Recipient: store.Party{ID: to, Username: toName}, Content: content, CreatedAt: store.Time(at),
		Media: []store.Media{}}
	schema.UnmarshalList(media, &m.Media)
	return m
}

// lookupDM reads one message, and whether its hash is in Redis; nil
// when it is gone.
func (s *DMs) lookupDM(ctx context.Context, pmid int64) (*store.DM, bool, error) {
	ms, hot, err := s.loadDMsHot(ctx, []int64{pmid})
	if err != nil {
		return nil, false, err
	}
	return ms[0], hot[0], nil
}

// ConversationDMs is a page of the messages between uid and other,
// newest first: the conversation's hot window, then, with the same cursor,
// its archived part, down to its first message.
func (s *DMs) ConversationDMs(ctx context.Context, uid, other int64, q store.PageQuery) (store.Page[store.DM], error) {
	limit := q.Size()
	before, after := q.Cursor.Score, max(q.After, q.Cursor.After)
	page := store.Page[store.DM]{Items: make([]store.DM, 0, limit)}
	more := true
	// A few rounds at most: only messages deleted meanwhile make one short.
	for round := 0; round < 5 && more && len(page.Items) < limit; round++ {
		want := limit - len(page.Items)
		ids, err := s.conversationIDs(ctx, uid, other, before, after, want+1)
		if err != nil {
			return store.Page[store.DM]{}, err
		}
		if more = len(ids) > want; more {
			ids = ids[:want]
		}
		ms, err := s.loadDMs(ctx, ids)
		if err != nil {
			return store.Page[store.DM]{}, err
		}
		for _, m := range ms {
			if m != nil {
				page.Items = append(page.Items, *m)
			}
		}
		if len(ids) > 0 {
			before = ids[len(ids)-1]
		}
	}
	if more {
		page.NextCursor = store.NextCursor(store.Cursor{Score: before, After: after})
	}
	return page, nil
}

// conversationIDs are the n newest ids of the messages between uid and
// other below before (0: no bound) and above after: from Redis, and from
// the archive where the range reaches below what the archiver moved out.
func (s *DMs) conversationIDs(ctx context.Context, uid, other, before, after int64, n int) ([]int64, error) {
	var hot *redis.StringSliceCmd
	var moved *redis.FloatCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		hot = pl.ZRevRangeByScore(ctx, s.keys.Conversation(uid, other), reqpath.RangeBy(before, after, n))
		moved = pl.ZScore(ctx, s.keys.ConversationsArchived(uid), id(other))
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.core.Wrap("read conversation", err)
	}
	ids := schema.ParseIDs(hot.Val())
	return s.conversationTail(ctx, uid, other, ids, int64(moved.Val()), before, after, n)
}

// conversationTail completes ids, the newest n of a conversation's hot
// window in a range, from the archive when they are fewer than n and the
// range reaches at or below movedUpTo, the highest id the archiver moved
// out of that window: only there may messages be missing from Redis.
func (s *DMs) conversationTail(ctx context.Context, uid, other int64, ids []int64, movedUpTo, before, after int64, n int) ([]int64, error) {
	if len(ids) >= n || s.opt.Archive == nil || movedUpTo <= after {
		return ids, nil
	}
	older, err := s.opt.Archive.ConversationIDs(ctx, store.ConversationQuery{A: uid, B: other, Before: before, After: after, Limit: n})
	if err != nil {
		return nil, s.core.Wrap("read archived conversation", err)
	}
	return reqpath.MergeNewest(ids, older, n), nil
}

// ConversationList is a page of uid's conversations, latest activity
// first, each with its other user as uid sees it, its last message and
// how many of its messages uid has not read. Conversations with a user
// that is gone, or without a message left, are skipped.
func (s *DMs) ConversationList(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Conversation], error) {
	limit := q.Size()
	zs, err := s.rdb.ZRevRangeByScoreWithScores(ctx, s.keys.Conversations(uid), reqpath.RangeBy(q.Cursor.Score, 0, limit+1)).Result()
	if err != nil {
		return store.Page[store.Conversation]{}, s.core.Wrap("list conversations", err)
	}
	page := store.Page[store.Conversation]{Items: make([]store.Conversation, 0, limit)}
	if len(zs) > limit {
		zs = zs[:limit]
		page.NextCursor = store.NextCursor(store.Cursor{Score: int64(zs[limit-1].Score)})
	}
	others := make([]int64, len(zs))
	summaries := make([]*redis.Cmd, len(zs))
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, z := range zs {
			others[i] = parseID(z.Member.(string))
			summaries[i] = schema.ConvSummary.Eval(ctx, pl, []string{s.keys.Conversation(uid, others[i]),
				s.keys.ConversationsRead(uid), s.keys.ConversationsArchived(uid)}, others[i])
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return store.Page[store.Conversation]{}, s.core.Wrap("list conversations", err)
	}
	users, err := s.core.Users(ctx, others, uid)
	if err != nil {
		return store.Page[store.Conversation]{}, err
	}
	byID := make(map[int64]store.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	lasts := make([]int64, len(zs))
	unread := make([]int64, len(zs))
	for i, c := range summaries {
		if lasts[i], unread[i], err = s.summarize(ctx, uid, others[i], c); err != nil {
			return store.Page[store.Conversation]{}, err
		}
	}
	ms, err := s.loadDMs(ctx, lasts)
	if err != nil {
		return store.Page[store.Conversation]{}, err
	}
	for i, m := range ms {
		u, ok := byID[others[i]]
		if m == nil || !ok {
			continue
		}
		page.Items = append(page.Items, store.Conversation{With: u, LastDM: m,
			UnreadCount: unread[i], UpdatedAt: m.CreatedAt})
	}
	return page, nil
}

// summarize reads the reply of lua/conv_summary.lua for uid's conversation
// with other: the id of its last message and how many uid has not read,
// asking the archive for what left Redis.
func (s *DMs) summarize(ctx context.Context, uid, other int64, c *redis.Cmd) (last, unread int64, err error) {
	v, _ := c.StringSlice()
	if len(v) < 5 {
		return 0, 0, s.core.Wrap("list conversations: summary", c.Err())
	}
	newest, oldest, mark, hotUnread, moved := parseID(v[0]), parseID(v[1]), parseID(v[2]), parseID(v[3]), parseID(v[4])
	last, unread = newest, hotUnread
	if last == 0 { // every message in Redis deleted: the archive may hold older ones
		ids, err := s.conversationTail(ctx, uid, other, nil, moved, 0, 0, 1)
		if err != nil || len(ids) == 0 {
			return 0, 0, err
		}
		last = ids[0]
	}
	if s.opt.Archive == nil || moved <= mark {
		return last, unread, nil
	}
	// Unread messages that left Redis: the archive's below the oldest hot one.
	cold, err := s.opt.Archive.CountConversation(ctx, store.ConversationQuery{A: uid, B: other, After: mark, Before: oldest})
	if err != nil {
		return 0, 0, s.core.Wrap("count archived unread messages", err)
	}
	return last, unread + cold, nil
}

// DMsSince returns uid's messages newer than after, sent and received,
// oldest first: the newest max of them when there are more. The newest max
// messages are all in the max conversations most lately active, so only
// those are read.
func (s *DMs) DMsSince(ctx context.Context, uid, after int64, max int) ([]store.DM, error) {
	if max <= 0 {
		return nil, nil
	}
	others, err := s.rdb.ZRevRangeByScore(ctx, s.keys.Conversations(uid), reqpath.RangeBy(0, after, max)).Result()
	if err != nil {
		return nil, s.core.Wrap("messages since", err)
	}
	if len(others) == 0 {
		return nil, nil
	}
	hot := make([]*redis.StringSliceCmd, len(others))
	moved := make([]*redis.FloatCmd, len(others))
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, o := range others {
			hot[i] = pl.ZRevRangeByScore(ctx, s.keys.Conversation(uid, parseID(o)), reqpath.RangeBy(0, after, max))
			moved[i] = pl.ZScore(ctx, s.keys.ConversationsArchived(uid), o)
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.core.Wrap("messages since", err)
	}
	var all []int64
	for i, o := range others {
		ids, err := s.conversationTail(ctx, uid, parseID(o), schema.ParseIDs(hot[i].Val()), int64(moved[i].Val()), 0, after, max)
		if err != nil {
			return nil, err
		}
		all = reqpath.MergeNewest(all, ids, max)
	}
	ms, err := s.loadDMs(ctx, all)
	if err != nil {
		return nil, err
	}
	out := make([]store.DM, 0, len(ms))
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i] != nil {
			out = append(out, *ms[i])
		}
	}
	return out, nil
}

// LastDMID is the id of uid's newest message, 0 when it has none.
func (s *DMs) LastDMID(ctx context.Context, uid int64) (int64, error) {
	zs, err := s.rdb.ZRevRangeWithScores(ctx, s.keys.Conversations(uid), 0, 0).Result()
	if err != nil || len(zs) == 0 {
		return 0, s.core.Wrap("last message id", err)
	}
	return int64(zs[0].Score), nil
}

// dmsOfMe reads what /me shows of uid's messages: how many of its
// conversations hold unread messages, and who may write to it.
func (s *DMs) dmsOfMe(ctx context.Context, uid int64) (unread int64, from string, err error) {
	var n *redis.IntCmd
	var f *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		n = pl.SCard(ctx, s.keys.ConversationsUnread(uid))
		f = pl.HGet(ctx, s.keys.User(uid), schema.FieldDMsFrom)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return 0, "", s.core.Wrap("unread messages", err)
	}
	if from = f.Val(); from == "" {
		from = store.DMsFromEveryone
	}
	return n.Val(), from, nil
}
