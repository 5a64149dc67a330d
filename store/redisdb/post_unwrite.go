package redisdb

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// undoTimeout bounds unwrite, which runs after its request's own time may
// have run out.
const undoTimeout = 5 * time.Second

// unwrite takes out again, entirely, a message that was never answered for:
// its own keys, whatever index entries and counts it got, its row in the
// archive, and then its claim on its Idempotency-Key (so that a retry makes
// it anew; not before, or the retry would make a second post beside it);
// live readers that were shown it are told it is gone, and its images are
// free for another post. What Redis refuses here the checker mends.
func (s *Store) unwrite(ctx context.Context, d *draft) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	mid, author := d.post.ID, d.np.Author
	var tagged []*redis.IntCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		// As Delete does: with the archive on, the hash becomes a tombstone
		// and the archive is told, for its index pipeline may have queued
		// the message for the archive already.
		schema.DeleteMessage.Eval(ctx, pl, []string{s.keys.Post(mid)}, reqpath.Flag(s.opt.Archive != nil), "1")
		pl.Del(ctx, s.keys.PublicTime(mid), s.keys.Author(mid))
		s.queueArchive(ctx, pl, schema.ArchiveDelete, archived(&d.post))
		pl.Del(ctx, s.keys.Comments(mid))
		pl.Del(ctx, s.keys.Likes(mid))
		if d.parent != nil {
			pl.ZRem(ctx, s.keys.Comments(d.parent.ID), mid)
			schema.CountSync.Eval(ctx, pl, []string{s.keys.Post(d.parent.ID), s.keys.Comments(d.parent.ID)}, schema.FieldComments)
			pl.ZRem(ctx, s.keys.UserComments(author), mid)
			s.queueCommentTags(ctx, pl, d.tags, mid, -1)
		} else {
			schema.PostRemove.Eval(ctx, pl, []string{s.keys.UserPosts(author), s.keys.User(author)}, mid, schema.FieldPosts)
			pl.ZRem(ctx, s.keys.Home(author), mid)
			pl.ZRem(ctx, s.keys.PublicTimeline(), mid)
			if d.np.RepostOf != 0 {
				schema.RepostRemove.Eval(ctx, pl, []string{s.keys.Reposts(d.np.RepostOf), s.keys.Post(d.np.RepostOf)}, author, mid, schema.FieldReposts)
			}
			for _, tag := range d.tags {
				tagged = append(tagged, pl.ZRem(ctx, s.keys.TagPosts(store.TagKey(tag)), mid))
			}
			for _, m := range d.media {
				pl.HSet(ctx, s.keys.Media(m.ID), "post", 0)
				pl.ZAdd(ctx, s.keys.UnattachedMedia(), redis.Z{Score: float64(s.Now()), Member: m.ID})
			}
		}
		gone := store.DeleteData{ID: mid, PostRef: store.RefOf(&d.post)}
		s.queuePublish(ctx, pl, s.keys.AuthorChannel(author), store.EventDelete, gone)
		if d.parent == nil && d.np.RepostOf == 0 && !d.post.Author.Protected || d.public { // as queueFinish published it
			s.queuePublish(ctx, pl, s.keys.PublicChannel(), store.EventDelete, gone)
		}
		if d.parent == nil {
			s.queueTagEvents(ctx, pl, d.tags, d.post.Author.Protected, store.EventDelete, gone)
		}
		return nil
	})
	// Every undo must have happened before the claim goes back (below):
	// a nil reply ahead of a command that failed does not pass for done.
	if err = reqpath.PipeErr(cmds, err); err != nil {
		return s.Wrap("undo post", err)
	}
	cmds, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, c := range tagged { // counted only if the index got that far
			if c.Val() == 1 {
				pl.ZIncrBy(ctx, s.keys.TagCounts(), -1, store.TagKey(d.tags[i]))
			}
		}
		return nil
	})
	if err = reqpath.PipeErr(cmds, err); err != nil {
		return s.Wrap("undo post: topics", err)
	}
	s.release(ctx, d)
	return nil
}
