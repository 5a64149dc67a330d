package redisdb

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// The hot window and the archive (docs/architecture.md). Every
// message and every delete is queued on the stream archive:queue in the
// same pipeline that indexes it (or takes it out of its indexes), and the
// archivers of every server process save the queue to SQL in batches. Once
// a message is in the archive and has left its author's hot window (the
// newest HotWindow ids of F), an archiver removes its B, D, E and C keys;
// readers that miss its hash find it in the archive, and pages that run
// past a Redis set go on in the archive with the same cursor.

// queueArchive adds a message (put), its edit or its delete to a pipeline, as one
// entry carrying the whole row: the archiver needs nothing else from Redis.
// A delete is queued even when Redis is out of memory.
func (s *Store) queueArchive(ctx context.Context, pl redis.Pipeliner, op string, a store.Archived) {
	s.queueArchiveRow(ctx, pl, op, a, op == schema.ArchiveDelete)
}

// queueArchiveRow adds an entry of kind op carrying row (as JSON) to a
// pipeline; a delete, even when Redis is out of memory.
func (s *Store) queueArchiveRow(ctx context.Context, pl redis.Pipeliner, op string, row any, isDelete bool) {
	if s.opt.Archive == nil {
		return
	}
	raw, _ := json.Marshal(row)
	if isDelete {
		schema.QueueDelete.Eval(ctx, pl, []string{s.keys.ArchiveQueue()}, schema.ArchiveEntry(op, raw)...)
		return
	}
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.ArchiveQueue(), Values: schema.ArchiveEntry(op, raw)})
}

// queueArchiveLike adds a like (or its undoing) to a pipeline, for the
// archive. Likes stay in Redis (likes:<mid>) too, where readers count them.
func (s *Store) queueArchiveLike(ctx context.Context, pl redis.Pipeliner, op string, l store.ArchivedLike) {
	if s.opt.Archive == nil {
		return
	}
	row, _ := json.Marshal(l)
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.ArchiveQueue(), Values: schema.ArchiveEntry(op, row)})
}

// archived is p as the archive keeps it.
func archived(p *store.Post) store.Archived {
	a := store.Archived{ID: p.ID, Kind: p.Kind, Author: p.Author.ID, Username: p.Author.Username,
		Content: p.Content, Created: int64(p.CreatedAt), Spoiler: p.Spoiler, URL: p.URL}
	if p.RepostOf != nil {
		a.RepostOf = p.RepostOf.ID
	}
	if p.ParentID != nil {
		a.Parent = *p.ParentID
	}
	a.Mentions, a.Tags, a.Media = reqpath.JSONOr(p.Mentions, "[]"), reqpath.JSONOr(p.Tags, "[]"), reqpath.JSONOr(p.Media, "[]")
	if p.Poll != nil { // an edit's row, inserted when it comes first, keeps it
		a.Poll = pollDefinition(p.Poll).JSON()
	}
	return a
}

// archivedPost is an archived message as readers see it; repost_of holds
// only the original's id, as with a hash.
func archivedPost(a store.Archived) *store.Post {
	h := schema.PostHash{Content: a.Content, Author: a.Author, Username: a.Username, Time: a.Created,
		Kind: a.Kind, Comments: a.CommentsCount, Reposts: a.RepostsCount,
		Mentions: a.Mentions, Tags: a.Tags, Media: a.Media, Edited: a.Edited, Poll: a.Poll, Spoiler: a.Spoiler, URL: a.URL}
	if a.RepostOf != 0 {
		h.RepostOf = id(a.RepostOf)
	}
	if a.Parent != 0 {
		h.Parent = id(a.Parent)
	}
	return h.Post(a.ID)
}

// tail continues a page below the Redis sets it reads: the ids below before
// (0: no bound) and above after, newest first, at most n. The tail of an
// ascending page (postPageUp) answers the n oldest, oldest first: there it
// holds the older part of the list, and the sets the newer.
type tail func(ctx context.Context, before, after int64, n int) ([]int64, error)

// archiveTail is the tail of a page whose older ids are only in the
// archive; nil when there is no archive. It answers as q.Ascending says.
func (s *Store) archiveTail(q store.ArchiveQuery) tail {
	if s.opt.Archive == nil {
		return nil
	}
	return func(ctx context.Context, before, after int64, n int) ([]int64, error) {
		q.Before, q.After, q.Limit = before, after, n
		ids, err := s.opt.Archive.IDs(ctx, q)
		return ids, s.Wrap("read archive", err)
	}
}

// homeTail is the pull model behind a home timeline's G set: the posts of
// uid and its stars, from their F sets and from the archive.
func (s *Store) homeTail(uid int64) tail {
	return func(ctx context.Context, before, after int64, n int) ([]int64, error) {
		stars, err := s.Stars(ctx, uid)
		if err != nil {
			return nil, err
		}
		authors := append(stars, uid)
		keys := make([]string, len(authors))
		for i, a := range authors {
			keys[i] = s.keys.UserPosts(a)
		}
		hot, err := s.newest(ctx, keys, before, after, n)
		if err != nil {
			return nil, err
		}
		if s.opt.Archive == nil {
			return hot, nil
		}
		cold, err := s.archiveTail(store.ArchiveQuery{Authors: authors})(ctx, before, after, n)
		if err != nil {
			return nil, err
		}
		return reqpath.MergeNewest(hot, cold, n), nil
	}
}
