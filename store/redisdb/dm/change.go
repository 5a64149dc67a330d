package dm

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// DeleteDM deletes private message pmid, hot or archived, for both of
// its users: only its sender may (403), and to anyone else but its
// recipient it does not exist (404). Both users' live readers are told.
func (s *DMs) DeleteDM(ctx context.Context, uid, pmid int64) error {
	for attempt := 0; ; attempt++ {
		m, hot, err := s.lookupDM(ctx, pmid)
		switch {
		case err != nil:
			return err
		case m == nil || m.Sender.ID != uid && m.Recipient.ID != uid:
			return store.ErrDMNotFound
		case m.Sender.ID != uid:
			return store.ErrNotSender
		}
		// Once: of two concurrent deletes only one goes on.
		n, err := schema.DeleteMessage.Run(ctx, s.rdb, []string{s.keys.DM(pmid)},
			reqpath.Flag(s.opt.Archive != nil), reqpath.Flag(!hot)).Int()
		switch {
		case err != nil:
			return s.core.Wrap("delete message", err)
		case n < 0 && attempt == 0:
			continue // its hash left Redis meanwhile: look again, in the archive
		case n <= 0:
			return store.ErrDMNotFound // deleted meanwhile
		}
		piped, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			s.queueUnlinkDM(ctx, pl, m)
			return nil
		})
		if err := reqpath.PipeErr(piped, err); err != nil && !reqpath.IsOOM(err) {
			return s.core.Wrap("delete message: conversations", err)
		}
		s.core.DropMedia(ctx, m.Media)
		return nil
	}
}

// MarkConversationRead marks uid's conversation with other read up to
// upTo (at most its newest message; never back), and tells uid's live
// readers when the mark moved.
func (s *DMs) MarkConversationRead(ctx context.Context, uid, other, upTo int64) error {
	if upTo <= 0 {
		return store.Invalid(store.CodeInvalidField, "up_to must be a message id")
	}
	var mark *redis.Cmd
	var name *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		mark = schema.ConvRead.Eval(ctx, pl, []string{s.keys.Conversation(uid, other),
			s.keys.ConversationsRead(uid), s.keys.ConversationsUnread(uid)}, other, upTo)
		name = pl.HGet(ctx, s.keys.User(other), schema.FieldUsername)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return s.core.Wrap("mark conversation read", err)
	}
	text, _ := mark.Text()
	if read := parseID(text); read > 0 {
		s.core.Publish(ctx, s.keys.NotifyChannel(uid), store.EventConversationRead,
			store.ConversationReadData{With: store.Party{ID: other, Username: name.Val()}, UpTo: read})
	}
	return nil
}

// MarkConversationUnread marks uid's conversation with other unread (its
// newest message, when nothing is unread yet) and tells uid's live readers.
func (s *DMs) MarkConversationUnread(ctx context.Context, uid, other int64) (int64, error) {
	var n *redis.Cmd
	var name *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		n = schema.ConvUnread.Eval(ctx, pl, []string{s.keys.Conversation(uid, other),
			s.keys.ConversationsRead(uid), s.keys.ConversationsUnread(uid)}, other)
		name = pl.HGet(ctx, s.keys.User(other), schema.FieldUsername)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return 0, s.core.Wrap("mark conversation unread", err)
	}
	unread, _ := n.Int64()
	if unread == 0 {
		return 0, store.ErrDMNotFound
	}
	s.core.Publish(ctx, s.keys.NotifyChannel(uid), store.EventConversationUnread,
		store.ConversationUnreadData{With: store.Party{ID: other, Username: name.Val()}, UnreadCount: unread})
	return unread, nil
}

// SetDMsFrom sets who may write to uid: everyone, or only the users it
// follows.
func (s *DMs) SetDMsFrom(ctx context.Context, uid int64, from string) error {
	if err := store.CheckDMsFrom(from); err != nil {
		return err
	}
	if _, err := s.core.Username(ctx, uid); err != nil {
		return err
	}
	var err error
	if from == store.DMsFromFollowing {
		err = s.rdb.HSet(ctx, s.keys.User(uid), schema.FieldDMsFrom, from).Err()
	} else {
		err = s.rdb.HDel(ctx, s.keys.User(uid), schema.FieldDMsFrom).Err()
	}
	return s.core.Wrap("set messages_from", err)
}

// leaveConversations removes a deleted account's own side of its
// conversations; the other users keep theirs, and the messages.
func (s *DMs) leaveConversations(ctx context.Context, uid int64) error {
	others, err := s.rdb.ZRange(ctx, s.keys.Conversations(uid), 0, -1).Result()
	if err != nil {
		return s.core.Wrap("delete account: conversations", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, o := range others {
			pl.Del(ctx, s.keys.Conversation(uid, parseID(o)))
		}
		pl.Del(ctx, s.keys.Conversations(uid), s.keys.ConversationsRead(uid),
			s.keys.ConversationsUnread(uid), s.keys.ConversationsArchived(uid))
		return nil
	})
	return s.core.Wrap("delete account: conversations", err)
}
