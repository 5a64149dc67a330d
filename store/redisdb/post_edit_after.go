package redisdb

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// What follows an edit, once the message reads edited: like what follows a
// new message (post_create.go), these are side effects of a write that has
// succeeded, so failures are logged, not returned.

// reposterBatch is how many reposters' channels one round trip publishes an
// edit on.
const reposterBatch = 1000

// afterEdit moves the message between its topics, queues its row for the
// archive, tells live readers and notifies whom it now mentions.
func (s *Store) afterEdit(ctx context.Context, c *change) {
	var parentAuthor int64 // who was told of a comment: its parent's author
	var thread *store.Post // a comment's thread's post, when it carries topics
	if c.post.ParentID != nil {
		if parent, err := s.message(ctx, *c.post.ParentID); err == nil {
			parentAuthor = parent.Author.ID
			if len(c.was.tags)+len(c.tags) > 0 {
				thread, _ = s.threadPost(ctx, parent, false)
			}
		}
	}
	frame, err := updateFrame(c.post)
	if err != nil {
		s.opt.Logger.ErrorContext(ctx, "encode live event", "post", c.post.ID, "err", err)
	}
	s.reindexEdit(ctx, c, parentAuthor, frame)
	if frame != nil && thread != nil {
		s.publishCommentEdit(ctx, c, thread)
	}
	if frame != nil {
		s.publishToReposters(ctx, c.post, frame)
	}
	s.notifyMentions(ctx, c, parentAuthor)
}

// updateFrame is the post_update event of p: the Post as edited, without
// what its editor alone knows of it (liked, bookmarked).
func updateFrame(p store.Post) ([]byte, error) {
	p.Liked, p.Bookmarked, p.Reposted, p.Encoded = nil, nil, nil, nil
	if p.RepostOf != nil {
		o := *p.RepostOf
		o.Liked, o.Bookmarked, o.Reposted = nil, nil, nil
		p.RepostOf = &o
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return store.FrameOf(store.EventPostUpdate, raw), nil
}

// reindexEdit, in one round trip, takes a post out of the topics it no
// longer carries and into those it now carries (comments are in no topic),
// queues an edit made in Redis for the archive, and publishes post_update
// after them where the message's own event went out: a post's on its
// author's channel, a comment's on its parent's author's notify channel
// unless they wrote it. It reads there too whether the author likes and
// bookmarked it, for its answer. Topic counts follow what the sets say changed.
func (s *Store) reindexEdit(ctx context.Context, c *change, parentAuthor int64, frame []byte) {
	mid, author := c.post.ID, c.post.Author.ID
	removed, added := tagChanges(c.was.tags, c.tags) // a comment's too (post_comment_tags.go)
	var dropped, joined []*redis.IntCmd
	var liked, bookmarked *redis.FloatCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, key := range removed {
			dropped = append(dropped, s.queueTagMove(ctx, pl, c.hot, key, mid, -1))
		}
		for _, key := range added {
			joined = append(joined, s.queueTagMove(ctx, pl, c.hot, key, mid, 1))
			pl.ZAdd(ctx, s.keys.TagNames(), redis.Z{Member: key})
		}
		bookmarked = pl.ZScore(ctx, s.keys.Bookmarks(c.uid), id(mid))
		if c.hot {
			liked = pl.ZScore(ctx, s.keys.UserLikes(c.uid), id(mid))
			if s.opt.Archive != nil {
				s.queueArchive(ctx, pl, schema.ArchiveEdit, c.row())
			}
		}
		switch {
		case frame == nil:
		case c.post.Kind == store.KindPost:
			s.queuePublishFrame(ctx, pl, s.keys.AuthorChannel(author), frame)
			if !c.post.Author.Protected {
				s.queuePublishFrame(ctx, pl, s.keys.PublicChannel(), frame)
				// The followers of the topics it carried or carries now (tags_follow.go).
				for _, key := range schema.TagKeys(slices.Concat(c.was.tags, c.tags)) {
					s.queuePublishFrame(ctx, pl, s.keys.TagChannel(key), frame)
				}
			}
		case parentAuthor != 0 && parentAuthor != author:
			s.queuePublishFrame(ctx, pl, s.keys.NotifyChannel(parentAuthor), frame)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		// What is lost is the live event, or the archive's copy of this
		// edit until the next one: the message stays in Redis meanwhile.
		s.opt.Logger.WarnContext(ctx, "edit post: indexes", "post", mid, "err", err)
	}
	if liked != nil {
		c.post.Liked = found(liked)
	}
	c.post.Bookmarked = found(bookmarked)
	if c.post.Kind == store.KindPost { // a comment counts in no topic
		s.countTags(ctx, c.post, removed, added, dropped, joined)
	}
}

// publishCommentEdit publishes the post_update of comment c, whose thread
// hangs from thread, on the public channel for the hashtag streams, when
// it carries a topic and its thread is public (publicComment).
func (s *Store) publishCommentEdit(ctx context.Context, c *change, thread *store.Post) {
	p := c.post
	p.Liked, p.Bookmarked, p.Encoded = nil, nil, nil
	raw, err := json.Marshal(p)
	if err != nil {
		return
	}
	data := publicComment(p, raw, thread)
	if data == nil {
		return
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queuePublishFrame(ctx, pl, s.keys.PublicChannel(), store.FrameOf(store.EventPostUpdate, data))
		return nil
	})
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "edit post: publish", "post", p.ID, "err", err)
	}
}

// queueTagMove adds post mid to (delta 1) or takes it from (-1) the T: set
// of topic key, and returns whether that changed the set. An archived post
// is in no T: set: the archive's topic rows changed with its edit, under
// the archive's guard, so it changed by its edit alone.
func (s *Store) queueTagMove(ctx context.Context, pl redis.Pipeliner, hot bool, key string, mid int64, delta int) *redis.IntCmd {
	switch {
	case !hot:
		return redis.NewIntResult(1, nil)
	case delta > 0:
		return pl.ZAdd(ctx, s.keys.TagPosts(key), redis.Z{Score: float64(mid), Member: mid})
	}
	return pl.ZRem(ctx, s.keys.TagPosts(key), mid)
}

// countTags counts the topics a post left (dropped) and joined as their
// sets changed. A post deleted while it joined some is taken out of them
// again: the delete may have read its topics before the edit.
func (s *Store) countTags(ctx context.Context, p store.Post, removed, added []string, dropped, joined []*redis.IntCmd) {
	if len(removed)+len(added) == 0 {
		return
	}
	mid, author, created := p.ID, p.Author.ID, int64(p.CreatedAt)
	undo := false
	if len(added) > 0 {
		_, err := s.message(ctx, mid)
		undo = errors.Is(err, store.ErrNotFound)
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, c := range dropped {
			if c.Val() == 1 {
				pl.ZIncrBy(ctx, s.keys.TagCounts(), -1, removed[i])
				s.queueTrends(ctx, pl, removed[i:i+1], author, created, -1)
			}
		}
		for i, c := range joined {
			switch {
			case undo:
				pl.ZRem(ctx, s.keys.TagPosts(added[i]), mid)
			case c.Val() == 1:
				pl.ZIncrBy(ctx, s.keys.TagCounts(), 1, added[i])
				s.queueTrends(ctx, pl, added[i:i+1], author, created, 1)
			}
		}
		return nil
	})
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "edit post: topic counts", "post", mid, "err", err)
	}
}

// tagChanges are the tag keys (store.TagKey) of the topics was carries and
// now does not (removed), and those now carries and was did not (added).
func tagChanges(was, now []string) (removed, added []string) {
	wk, nk := schema.TagKeys(was), schema.TagKeys(now)
	for _, k := range wk {
		if !slices.Contains(nk, k) {
			removed = append(removed, k)
		}
	}
	for _, k := range nk {
		if !slices.Contains(wk, k) {
			added = append(added, k)
		}
	}
	return removed, added
}

// publishToReposters publishes an edited post's post_update on the channel
// of each user who reposted it (reposts:<mid>), whose fans got the post in
// their reposts. Not for a protected author: its posts are for its
// approved fans alone, and a reposter's fans are not all of them.
func (s *Store) publishToReposters(ctx context.Context, p store.Post, frame []byte) {
	if p.Kind != store.KindPost || p.RepostsCount == 0 || p.Author.Protected {
		return
	}
	for start := int64(0); ; start += reposterBatch {
		uids, err := s.rdb.ZRange(ctx, s.keys.Reposts(p.ID), start, start+reposterBatch-1).Result()
		if err == nil && len(uids) > 0 {
			_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
				for _, uid := range uids {
					s.queuePublishFrame(ctx, pl, s.keys.AuthorChannel(parseID(uid)), frame)
				}
				return nil
			})
		}
		if err != nil {
			s.opt.Logger.WarnContext(ctx, "edit post: publish to reposters", "post", p.ID, "err", err)
			return
		}
		if len(uids) < reposterBatch {
			return
		}
	}
}

// notifyMentions notifies the users the edited text mentions for the first
// time: not those an earlier version mentioned, nor whom the message told
// already when it was written (a comment's parent's author, a repost's
// original's).
func (s *Store) notifyMentions(ctx context.Context, c *change, parentAuthor int64) {
	told := map[int64]bool{parentAuthor: true}
	if c.post.RepostOf != nil {
		told[c.post.RepostOf.Author.ID] = true
	}
	for _, m := range c.was.mentions {
		told[m.ID] = true
	}
	var named map[string]bool // the names earlier versions mention, in index form
	var to []int64
	for _, m := range c.mentions {
		if told[m.ID] {
			continue
		}
		if named == nil {
			named = mentionedBefore(c.history)
		}
		if lower, _ := store.LookupName(m.Username); !named[lower] {
			to = append(to, m.ID)
		}
	}
	s.notify(ctx, c.post.Author.ID, store.NotifyMention, c.post.ID, to...)
}

// mentionedBefore are the names versions mention, in index form.
func mentionedBefore(versions []store.Version) map[string]bool {
	named := map[string]bool{}
	for _, v := range versions {
		for _, name := range store.ParseText(v.Content).Mentions {
			if lower, ok := store.LookupName(name); ok {
				named[lower] = true
			}
		}
	}
	return named
}
