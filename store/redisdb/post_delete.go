package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Delete removes a message of uid's (a post, repost or comment), hot or
// archived, and its index entries (its author's pin of it too), and tells
// live readers; a job takes it
// out of the fans' home timelines (readers skip it from now on anyway), and
// the archiver makes it a tombstone in the archive. Only the author may
// delete.
func (s *Store) Delete(ctx context.Context, uid, mid int64) error {
	m, err := s.claimDelete(ctx, uid, mid)
	if err != nil {
		return err
	}
	// Its delete event names its author, and a repost's original's, for the
	// live feed's safety rule (store.PostRef): their cards are mostly in
	// memory.
	if o := m.RepostOf; o != nil {
		if orig, err := s.message(ctx, o.ID); err == nil {
			m.RepostOf = orig
		}
	}
	if err := s.fillAuthors(ctx, []*store.Post{m}, 0); err != nil {
		s.opt.Logger.WarnContext(ctx, "delete post: read its author", "post", mid, "err", err)
	}
	gone := store.DeleteData{ID: mid, PostRef: store.RefOf(m)}
	public := s.commentWentPublic(ctx, m) // a comment's, on the hashtag streams
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queueArchive(ctx, pl, schema.ArchiveDelete, archived(m))
		pl.Del(ctx, s.keys.PublicTime(mid), s.keys.Author(mid), s.keys.History(mid))
		pl.Del(ctx, s.keys.Comments(mid))
		pl.Del(ctx, s.keys.Likes(mid))
		pl.Del(ctx, s.keys.Reposts(mid))
		s.queuePollDelete(ctx, pl, mid)
		if m.ParentID != nil {
			pl.ZRem(ctx, s.keys.Comments(*m.ParentID), mid)
			schema.CountSync.Eval(ctx, pl, []string{s.keys.Post(*m.ParentID), s.keys.Comments(*m.ParentID)}, schema.FieldComments)
			pl.ZRem(ctx, s.keys.UserComments(uid), mid)
			s.queueCommentTags(ctx, pl, m.Tags, mid, -1)
			s.queuePublish(ctx, pl, s.keys.AuthorChannel(uid), store.EventDelete, gone)
			if public {
				s.queuePublish(ctx, pl, s.keys.PublicChannel(), store.EventDelete, gone)
			}
			return nil
		}
		pl.ZRem(ctx, s.keys.UserPosts(uid), mid)
		pl.ZRem(ctx, s.keys.Pinned(uid), mid) // a deleted pin frees its place at once
		schema.Decrement.Eval(ctx, pl, []string{s.keys.User(uid)}, schema.FieldPosts)
		pl.ZRem(ctx, s.keys.Home(uid), mid)
		pl.ZRem(ctx, s.keys.PublicTimeline(), mid)
		s.queueTags(ctx, pl, m.Tags, mid, -1)
		s.queueTrends(ctx, pl, m.Tags, uid, int64(m.CreatedAt), -1)
		s.queueJob(ctx, pl, schema.OpUnpush, uid, mid)
		s.queuePublish(ctx, pl, s.keys.AuthorChannel(uid), store.EventDelete, gone)
		if m.RepostOf == nil && !m.Author.Protected { // as queueFinish published it
			s.queuePublish(ctx, pl, s.keys.PublicChannel(), store.EventDelete, gone)
		}
		s.queueTagEvents(ctx, pl, m.Tags, m.Author.Protected, store.EventDelete, gone)
		if m.RepostOf != nil {
			// A no-op when the original is gone too.
			schema.RepostRemove.Eval(ctx, pl, []string{s.keys.Reposts(m.RepostOf.ID), s.keys.Post(m.RepostOf.ID)}, uid, mid, schema.FieldReposts)
			pl.ZRem(ctx, s.keys.UserReposts(uid), m.RepostOf.ID) // its one repost of it (post_reposted.go)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) && !reqpath.IsOOM(err) {
		return s.Wrap("delete post: indexes", err)
	}
	// Out of memory, Redis still removed the keys and index entries (and
	// fixed the counts, in scripts allowed to); what waits for memory is the
	// fans' G entries (the unpush job: readers skip the id and drop it) and
	// the topics' counts.
	s.DropMedia(ctx, m.Media)
	// The message it commented on or reposted has one fewer now.
	var target int64
	switch {
	case m.ParentID != nil:
		target = *m.ParentID
	case m.RepostOf != nil:
		target = m.RepostOf.ID
	}
	if t, err := s.message(ctx, target); err == nil {
		s.publishCounts(ctx, t.ID, t.Author.ID)
	}
	return nil
}

// claimDelete deletes message mid's hash (or, with the archive on, makes it
// a tombstone), once: of two concurrent deletes only one gets the message
// back, to take it out of its indexes and fix counters. From then on,
// readers skip the message's index entries, and do not look for it in the
// archive.
func (s *Store) claimDelete(ctx context.Context, uid, mid int64) (*store.Post, error) {
	for attempt := 0; ; attempt++ {
		m, hot, err := s.lookup(ctx, mid)
		if err != nil {
			return nil, err
		}
		if m.Author.ID != uid {
			return nil, s.hiddenOr(ctx, uid, mid, store.ErrNotAuthor)
		}
		n, err := schema.DeleteMessage.Run(ctx, s.rdb, []string{s.keys.Post(mid)},
			reqpath.Flag(s.opt.Archive != nil), reqpath.Flag(!hot)).Int()
		switch {
		case err != nil:
			return nil, s.Wrap("delete post", err)
		case n > 0:
			return m, nil
		case n < 0 && attempt == 0:
			continue // its hash left Redis meanwhile: look again, in the archive
		default:
			return nil, store.ErrPostNotFound // deleted meanwhile
		}
	}
}
