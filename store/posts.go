package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

func postNotFound() error {
	return &Error{Kind: ErrNotFound, Code: "post_not_found", Message: "no such post"}
}

// NewPost is what a user writes: a post, a repost (RepostOf set) or a comment (Parent set).
type NewPost struct {
	Author   int64
	Content  string
	RepostOf int64 // a repost of a repost is stored as a repost of the original
	Parent   int64 // the message a comment answers
	// IdempotencyKey, when set, makes a retry return the first result.
	IdempotencyKey string
}

// messageFields are the B hash fields a reader needs, in the order read.
var messageFields = []string{"content", "author", "username", "time", "kind", "repost_of", "parent", "comments_count", "reposts_count"}

// Create writes a post, repost or comment: its own keys (B, D, E) first, then
// the indexes that point at it (F, G of the author and every fan, the public
// timeline, or the parent's C), then the live event.
func (s *Store) Create(ctx context.Context, np NewPost) (Post, error) {
	isComment := np.Parent != 0
	if err := checkContent(np.Content, np.RepostOf != 0 && !isComment); err != nil {
		return Post{}, err
	}
	if np.RepostOf != 0 && isComment {
		return Post{}, invalid("invalid_repost", "a comment cannot be a repost")
	}
	if len(np.IdempotencyKey) > MaxIdemKeyLen {
		return Post{}, invalid("invalid_idempotency_key", "Idempotency-Key must be at most 255 characters")
	}
	var orig, parent *Post
	if np.RepostOf != 0 {
		o, err := s.Post(ctx, np.RepostOf)
		if err != nil {
			return Post{}, err
		}
		orig = &o
		if orig.Kind != KindPost {
			return Post{}, invalid("invalid_repost", "only posts can be reposted, not comments")
		}
		if orig.RepostOf != nil {
			if orig.RepostOf.Deleted {
				return Post{}, postNotFound()
			}
			orig = orig.RepostOf
		}
		orig.RepostOf = nil
		orig.RepostsCount++ // as it will be once this repost is indexed
	}
	if isComment {
		var err error
		if parent, err = s.message(ctx, np.Parent); err != nil {
			return Post{}, err
		}
	}

	// One round trip for the author's name, the idempotency claim and the new
	// id. An id drawn for a request that then stops is simply never used.
	var idemKey string
	var name *redis.StringCmd
	var claim *redis.BoolCmd
	var next *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		name = pl.HGet(ctx, s.keys.user(np.Author), "username")
		if np.IdempotencyKey != "" {
			idemKey = s.keys.idempotency(np.Author, TokenHash(np.IdempotencyKey))
			claim = pl.SetNX(ctx, idemKey, 0, IdempotencyTTL)
		}
		next = pl.Incr(ctx, s.keys.lastPostID())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return Post{}, s.wrap("create post", err)
	}
	if name.Val() == "" {
		if claim != nil && claim.Val() {
			s.rdb.Del(context.WithoutCancel(ctx), idemKey)
		}
		return Post{}, userNotFound()
	}
	if claim != nil && !claim.Val() {
		return s.firstResult(ctx, idemKey)
	}
	p, err := s.create(ctx, np, next.Val(), name.Val(), orig, parent, idemKey)
	if err != nil && idemKey != "" {
		s.rdb.Del(context.WithoutCancel(ctx), idemKey)
	}
	return p, err
}

// firstResult answers a request whose Idempotency-Key an earlier request
// already took: with that request's post, or 409 while it is still running.
func (s *Store) firstResult(ctx context.Context, idemKey string) (Post, error) {
	mid, err := s.rdb.Get(ctx, idemKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return Post{}, s.wrap("idempotency", err)
	}
	if mid == 0 {
		return Post{}, &Error{Kind: ErrInProgress, Code: "request_in_progress",
			Message: "a request with this Idempotency-Key is still being handled"}
	}
	return s.Post(ctx, mid)
}

// create writes message mid. Its own keys (B, D, E) go first in one
// transaction; then one pipeline writes the indexes and reads the first batch
// of fans; the last pipeline writes the fans' home timelines, records the
// idempotency result and publishes the live event, after everything it
// announces is written.
func (s *Store) create(ctx context.Context, np NewPost, mid int64, author string, orig, parent *Post, idemKey string) (Post, error) {
	now := s.now()
	p := Post{ID: mid, Kind: KindPost, Author: Author{ID: np.Author, Username: author},
		Content: np.Content, CreatedAt: Time(now), RepostOf: orig}
	var repostOf, parentID string
	if orig != nil {
		repostOf = id(orig.ID)
	}
	if parent != nil {
		p.Kind, p.ParentID, parentID = KindComment, &parent.ID, id(parent.ID)
	}

	_, err := s.rdb.TxPipelined(ctx, func(t redis.Pipeliner) error {
		t.HSet(ctx, s.keys.message(mid), "content", p.Content, "author", np.Author, "username", author,
			"time", now, "kind", p.Kind, "repost_of", repostOf, "parent", parentID,
			"comments_count", 0, "reposts_count", 0)
		t.Set(ctx, s.keys.publicTime(mid), now, 0)
		t.Set(ctx, s.keys.author(mid), np.Author, 0)
		return nil
	})
	if err != nil {
		return Post{}, s.wrap("create post", err)
	}

	// finish queues what must follow every other write.
	finish := func(pl redis.Pipeliner) {
		if idemKey != "" {
			pl.Set(ctx, idemKey, mid, IdempotencyTTL)
		}
		switch {
		case parent == nil:
			s.queuePublish(ctx, pl, s.keys.AuthorChannel(np.Author), EventPost, p)
		case parent.Author.ID != np.Author:
			s.queuePublish(ctx, pl, s.keys.NotifyChannel(parent.Author.ID), EventComment, p)
		}
	}

	z := redis.Z{Score: float64(mid), Member: mid}
	var fans *redis.StringSliceCmd
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if parent != nil {
			pl.ZAdd(ctx, s.keys.comments(parent.ID), z)
			hincrbyIfExists.Eval(ctx, pl, []string{s.keys.message(parent.ID)}, "comments_count", 1)
			finish(pl)
			return nil
		}
		pl.ZAdd(ctx, s.keys.userPosts(np.Author), z)
		pl.HIncrBy(ctx, s.keys.user(np.Author), "posts_count", 1)
		s.queueHomeAdd(ctx, pl, np.Author, z)
		pl.ZAdd(ctx, s.keys.publicTimeline(), z)
		pl.ZRemRangeByRank(ctx, s.keys.publicTimeline(), 0, int64(-s.opt.HotWindow-1))
		if orig != nil {
			hincrbyIfExists.Eval(ctx, pl, []string{s.keys.message(orig.ID)}, "reposts_count", 1)
		}
		fans = pl.ZRange(ctx, s.keys.fans(np.Author), 0, fanOutBatch-1)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return Post{}, s.wrap("index post", err)
	}
	if parent != nil {
		return p, nil
	}
	// The push model: the post goes into every fan's home timeline.
	err = s.eachFanBatch(ctx, "fan out", np.Author, fans.Val(), func(pl redis.Pipeliner, fan int64) {
		s.queueHomeAdd(ctx, pl, fan, z)
	}, finish)
	if err != nil {
		return Post{}, err
	}
	return p, nil
}

// queueHomeAdd adds a post to a home timeline and trims it to the hot window.
func (s *Store) queueHomeAdd(ctx context.Context, pl redis.Pipeliner, uid int64, z redis.Z) {
	pl.ZAdd(ctx, s.keys.home(uid), z)
	pl.ZRemRangeByRank(ctx, s.keys.home(uid), 0, int64(-s.opt.HotWindow-1))
}

// fanOutBatch is how many fans' home timelines one pipeline writes.
const fanOutBatch = 500

// unFanOut takes a deleted post out of the fans' home timelines, then
// publishes the delete.
func (s *Store) unFanOut(ctx context.Context, author, mid int64) error {
	return s.eachFanBatch(ctx, "delete post: fans", author, nil, func(pl redis.Pipeliner, fan int64) {
		pl.ZRem(ctx, s.keys.home(fan), mid)
	}, func(pl redis.Pipeliner) {
		s.queuePublish(ctx, pl, s.keys.AuthorChannel(author), EventDelete, DeleteData{ID: mid})
	})
}

// eachFanBatch walks the author's fans fanOutBatch at a time, starting with
// first when the caller has already read the first batch, and sends one
// pipeline per batch of the commands write queues for each fan. last, if
// set, queues commands at the end of the final pipeline.
func (s *Store) eachFanBatch(ctx context.Context, op string, author int64, first []string,
	write func(redis.Pipeliner, int64), last func(redis.Pipeliner)) error {
	fans := first
	for start := int64(0); ; start += fanOutBatch {
		if start > 0 || fans == nil {
			var err error
			if fans, err = s.rdb.ZRange(ctx, s.keys.fans(author), start, start+fanOutBatch-1).Result(); err != nil {
				return s.wrap(op, err)
			}
		}
		final := len(fans) < fanOutBatch
		if len(fans) == 0 && last == nil {
			return nil
		}
		_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, f := range fans {
				if fan, err := strconv.ParseInt(f, 10, 64); err == nil {
					write(pl, fan)
				}
			}
			if final && last != nil {
				last(pl)
			}
			return nil
		})
		if err != nil {
			return s.wrap(op, err)
		}
		if final {
			return nil
		}
	}
}

// Delete removes a message of uid's (a post, repost or comment) and its index
// entries, and tells live readers. Only the author may delete.
func (s *Store) Delete(ctx context.Context, uid, mid int64) error {
	m, err := s.message(ctx, mid)
	if err != nil {
		return err
	}
	if m.Author.ID != uid {
		return &Error{Kind: ErrForbidden, Code: "not_author", Message: "only the author can delete a message"}
	}
	// The message itself goes first: from then on, readers skip its index
	// entries. Of two concurrent deletes, only the one that removed the hash
	// goes on to fix counters.
	n, err := s.rdb.Del(ctx, s.keys.message(mid)).Result()
	if err != nil {
		return s.wrap("delete post", err)
	}
	if n == 0 {
		return postNotFound()
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Del(ctx, s.keys.publicTime(mid), s.keys.author(mid))
		pl.Del(ctx, s.keys.comments(mid))
		if m.ParentID != nil {
			pl.ZRem(ctx, s.keys.comments(*m.ParentID), mid)
			hincrbyIfExists.Eval(ctx, pl, []string{s.keys.message(*m.ParentID)}, "comments_count", -1)
			s.queuePublish(ctx, pl, s.keys.AuthorChannel(uid), EventDelete, DeleteData{ID: mid})
			return nil
		}
		pl.ZRem(ctx, s.keys.userPosts(uid), mid)
		pl.HIncrBy(ctx, s.keys.user(uid), "posts_count", -1)
		pl.ZRem(ctx, s.keys.home(uid), mid)
		pl.ZRem(ctx, s.keys.publicTimeline(), mid)
		if m.RepostOf != nil {
			// A no-op when the original is gone too.
			hincrbyIfExists.Eval(ctx, pl, []string{s.keys.message(m.RepostOf.ID)}, "reposts_count", -1)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("delete post: indexes", err)
	}
	if m.ParentID != nil {
		return nil
	}
	return s.unFanOut(ctx, uid, mid)
}

// message reads one message's own hash, in one round trip: repost_of holds
// only the original's id. For writers, which need no more.
func (s *Store) message(ctx context.Context, mid int64) (*Post, error) {
	if mid <= 0 {
		return nil, postNotFound()
	}
	ms, err := s.loadMessages(ctx, []int64{mid})
	if err != nil {
		return nil, err
	}
	if ms[0] == nil {
		return nil, postNotFound()
	}
	return ms[0], nil
}

// Post returns one message (a post or a comment).
func (s *Store) Post(ctx context.Context, mid int64) (Post, error) {
	if mid <= 0 {
		return Post{}, postNotFound()
	}
	ps, err := s.posts(ctx, []int64{mid})
	if err != nil {
		return Post{}, err
	}
	if ps[0] == nil {
		return Post{}, postNotFound()
	}
	return *ps[0], nil
}

// posts loads messages in at most two round trips (the messages, then the
// originals of the reposts among them). A message that is gone is nil.
func (s *Store) posts(ctx context.Context, mids []int64) ([]*Post, error) {
	out, err := s.loadMessages(ctx, mids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*Post, len(out))
	for _, p := range out {
		if p != nil {
			byID[p.ID] = p
		}
	}
	var need []int64
	for _, p := range out {
		if p != nil && p.RepostOf != nil {
			if _, ok := byID[p.RepostOf.ID]; !ok {
				need = append(need, p.RepostOf.ID)
			}
		}
	}
	if len(need) > 0 {
		origs, err := s.loadMessages(ctx, need)
		if err != nil {
			return nil, err
		}
		for _, o := range origs {
			if o != nil {
				byID[o.ID] = o
			}
		}
	}
	for _, p := range out {
		if p == nil || p.RepostOf == nil {
			continue
		}
		if o, ok := byID[p.RepostOf.ID]; ok {
			cp := *o
			cp.RepostOf = nil
			p.RepostOf = &cp
		} else {
			p.RepostOf = &Post{ID: p.RepostOf.ID, Deleted: true}
		}
	}
	return out, nil
}

// loadMessages reads B hashes in one pipeline; repost_of holds only the id.
func (s *Store) loadMessages(ctx context.Context, mids []int64) ([]*Post, error) {
	cmds := make([]*redis.SliceCmd, len(mids))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.HMGet(ctx, s.keys.message(mid), messageFields...)
		}
		return nil
	})
	if err != nil {
		return nil, s.wrap("load posts", err)
	}
	out := make([]*Post, len(mids))
	for i, c := range cmds {
		f := c.Val()
		kind, _ := f[4].(string)
		if kind == "" {
			continue // gone: deleted or archived away
		}
		content, _ := f[0].(string)
		username, _ := f[2].(string)
		p := &Post{ID: mids[i], Kind: kind, Content: content,
			Author:        Author{ID: atoi(f[1]), Username: username},
			CreatedAt:     Time(atoi(f[3])),
			CommentsCount: atoi(f[7]),
			RepostsCount:  atoi(f[8]),
		}
		if r := atoi(f[5]); r != 0 {
			p.RepostOf = &Post{ID: r}
		}
		if par := atoi(f[6]); par != 0 {
			p.ParentID = &par
		}
		out[i] = p
	}
	return out, nil
}
