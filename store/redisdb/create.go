package redisdb

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

// writeTimeout bounds a write once claimed, whatever its request does: the
// client's going away does not cut it short, Redis's not answering does.
const writeTimeout = 10 * time.Second

// draft is a message on its way into Redis, as the steps of Create pass it on.
type draft struct {
	np      store.NewPost
	orig    *store.Post // the original a repost passes on, or nil
	parent  *store.Post // the message a comment answers, or nil
	idemKey string      // the claimed idempotency key, or empty
	pulled  bool        // its author was a celebrity when claimed: no push job
	post    store.Post  // what the message will read as
	// mentions are the users the text mentions that exist; tags its topics.
	mentions []store.Author
	tags     []string
	media    []store.Media // the images it carries
}

// Create writes a post, repost or comment in named steps: check it, resolve
// what it points at, claim its id (and idempotency key), write the message's
// own keys, then index it, queue its fan-out and publish its live event. The
// fan-out into the fans' home timelines runs off the request path.
func (s *Store) Create(ctx context.Context, np store.NewPost) (store.Post, error) {
	if err := np.Check(); err != nil {
		return store.Post{}, err
	}
	d := &draft{np: np}
	if err := s.resolveTargets(ctx, d); err != nil {
		return store.Post{}, err
	}
	// From the claim on, the write belongs to the server, not to the
	// client's connection: a client that gives up must not stop it half
	// way, where its retry would find a message with no index.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	first, err := s.claim(ctx, d)
	if err != nil {
		return store.Post{}, err
	}
	if first != nil { // the key's earlier request made it
		return *first, nil
	}
	if err := s.write(ctx, d); err != nil {
		return store.Post{}, err
	}
	s.afterWrite(ctx, d)
	return d.post, nil
}

// resolveTargets loads the original of a repost (the original of a repost
// of a repost) and the parent of a comment.
func (s *Store) resolveTargets(ctx context.Context, d *draft) error {
	if d.np.RepostOf != 0 {
		o, err := s.Post(ctx, d.np.RepostOf, d.np.Author)
		if err != nil {
			return err
		}
		if o.Kind != store.KindPost {
			return store.Invalid(store.CodeInvalidRepost, "only posts can be reposted, not comments")
		}
		orig := &o
		if o.RepostOf != nil {
			if o.RepostOf.Deleted {
				return store.ErrPostNotFound
			}
			orig = o.RepostOf
		}
		orig.RepostOf = nil
		orig.RepostsCount++ // as it will be once this repost is indexed
		d.orig = orig
	}
	if d.np.Parent != 0 {
		parent, err := s.message(ctx, d.np.Parent)
		if err != nil {
			return err
		}
		d.parent = parent
	}
	if err := s.resolveMedia(ctx, d); err != nil {
		return err
	}
	return s.resolveEntities(ctx, d)
}

// resolveEntities finds the topics of the text and the users it mentions
// that exist (by their own spelling of their name).
func (s *Store) resolveEntities(ctx context.Context, d *draft) error {
	ents := store.ParseText(d.np.Content)
	d.tags = ents.Tags
	if d.tags == nil {
		d.tags = []string{}
	}
	d.mentions = []store.Author{}
	if len(ents.Mentions) == 0 {
		return nil
	}
	cmds := make([]*redis.StringCmd, len(ents.Mentions))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, name := range ents.Mentions {
			if lower, ok := store.LookupName(name); ok {
				cmds[i] = pl.Get(ctx, s.keys.usernameIndex(lower))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("create post: mentions", err)
	}
	var uids []int64
	for _, c := range cmds {
		if c != nil && c.Err() == nil {
			uids = append(uids, parseID(c.Val()))
		}
	}
	users, err := s.users(ctx, uids, 0)
	if err != nil {
		return err
	}
	for _, u := range users {
		d.mentions = append(d.mentions, store.Author{ID: u.ID, Username: u.Username})
	}
	return nil
}

// claim takes the author's name, avatar and fan-out mode, the idempotency
// key and a new id in one round trip (the mode before the id: see promote),
// and fills in d.post. When an earlier request holds the key, it returns
// that request's post instead. An id drawn for a request that then stops is
// simply never used.
func (s *Store) claim(ctx context.Context, d *draft) (*store.Post, error) {
	np := d.np
	var author *redis.SliceCmd
	var claimed *redis.BoolCmd
	var next *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		author = pl.HMGet(ctx, s.keys.user(np.Author), fieldUsername, fieldFanOut, fieldAvatar)
		if np.IdempotencyKey != "" {
			d.idemKey = s.keys.idempotency(np.Author, store.TokenHash(np.IdempotencyKey))
			claimed = pl.SetNX(ctx, d.idemKey, 0, IdempotencyTTL)
		}
		next = pl.Incr(ctx, s.keys.lastPostID())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.wrap("create post", err)
	}
	name, _ := author.Val()[0].(string)
	mode, _ := author.Val()[1].(string)
	avatar, _ := author.Val()[2].(string)
	if name == "" {
		if claimed != nil && claimed.Val() {
			s.release(ctx, d)
		}
		return nil, store.ErrUserNotFound
	}
	if claimed != nil && !claimed.Val() {
		p, err := s.firstResult(ctx, d.idemKey, np.Author)
		if err != nil {
			return nil, err
		}
		return &p, nil
	}
	d.post = store.Post{ID: next.Val(), Kind: store.KindPost,
		Author:  store.Author{ID: np.Author, Username: name, AvatarURL: avatarURL(avatar)},
		Content: np.Content, CreatedAt: store.Time(s.now()), RepostOf: d.orig}
	if d.parent != nil {
		d.post.Kind, d.post.ParentID = store.KindComment, &d.parent.ID
	}
	no := false
	d.post.Liked, d.post.Mentions, d.post.Tags, d.post.Media = &no, d.mentions, d.tags, d.media
	d.pulled = mode == modePull
	return nil, nil
}

// release gives up the idempotency key of a request that failed, so that a
// retry may try again.
func (s *Store) release(ctx context.Context, d *draft) {
	if d.idemKey != "" {
		s.rdb.Del(context.WithoutCancel(ctx), d.idemKey)
	}
}

// firstResult answers a request whose Idempotency-Key an earlier request
// already took: with that request's post, or 409 while it is still running.
func (s *Store) firstResult(ctx context.Context, idemKey string, author int64) (store.Post, error) {
	mid, err := s.rdb.Get(ctx, idemKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return store.Post{}, s.wrap("idempotency", err)
	}
	if mid == 0 {
		return store.Post{}, store.ErrInProgress
	}
	return s.Post(ctx, mid, author)
}

// write stores the claimed message: its own keys first, then its indexes,
// its fan-out job and live event.
func (s *Store) write(ctx context.Context, d *draft) error {
	err := s.writeMessage(ctx, d)
	if err == nil {
		err = s.index(ctx, d)
	}
	if err != nil {
		s.release(ctx, d)
	}
	return err
}

// writeMessage writes the message's own keys (B, D, E) in one transaction,
// before any index points at them.
func (s *Store) writeMessage(ctx context.Context, d *draft) error {
	p := d.post
	h := messageHash{Content: p.Content, Author: p.Author.ID, Username: p.Author.Username,
		Time: int64(p.CreatedAt), Kind: p.Kind}
	if d.orig != nil {
		h.RepostOf = id(d.orig.ID)
	}
	if d.parent != nil {
		h.Parent = id(d.parent.ID)
	}
	mentions, _ := json.Marshal(d.mentions)
	tags, _ := json.Marshal(d.tags)
	h.Mentions, h.Tags, h.Media = string(mentions), string(tags), mediaJSON(d.media)
	_, err := s.rdb.TxPipelined(ctx, func(t redis.Pipeliner) error {
		t.HSet(ctx, s.keys.message(p.ID), h)
		t.Set(ctx, s.keys.publicTime(p.ID), int64(p.CreatedAt), 0)
		t.Set(ctx, s.keys.author(p.ID), p.Author.ID, 0)
		return nil
	})
	return s.wrap("create post", err)
}

// index writes the indexes that point at the message in one round trip: a
// comment's entry in its parent's C set; a post's F, the author's own G, the
// public timeline, counters and its push job. Then come the idempotency
// result and the live event, after everything they announce.
//
// A post claimed in pull mode queues no push, but reads the mode again
// after writing F: if a demotion began in between, its backfill may have
// read F too early, so the post pushes itself.
func (s *Store) index(ctx context.Context, d *draft) error {
	mid, author := d.post.ID, d.np.Author
	z := redis.Z{Score: float64(mid), Member: mid}
	var mode *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if d.parent != nil {
			pl.ZAdd(ctx, s.keys.comments(d.parent.ID), z)
			hincrbyIfExists.Eval(ctx, pl, []string{s.keys.message(d.parent.ID)}, fieldComments, 1)
			s.queueFinish(ctx, pl, d)
			return nil
		}
		pl.ZAdd(ctx, s.keys.userPosts(author), z)
		pl.HIncrBy(ctx, s.keys.user(author), fieldPosts, 1)
		s.queueHomeAdd(ctx, pl, author, z)
		pl.ZAdd(ctx, s.keys.publicTimeline(), z)
		pl.ZRemRangeByRank(ctx, s.keys.publicTimeline(), 0, int64(-s.opt.HotWindow-1))
		if d.orig != nil {
			hincrbyIfExists.Eval(ctx, pl, []string{s.keys.message(d.orig.ID)}, fieldReposts, 1)
		}
		s.queueTags(ctx, pl, d.tags, mid, 1)
		s.queueAttach(ctx, pl, d.media, mid)
		if d.pulled {
			mode = pl.HGet(ctx, s.keys.user(author), fieldFanOut)
		} else {
			s.queueJob(ctx, pl, opPush, author, mid)
		}
		s.queueFinish(ctx, pl, d)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("index post", err)
	}
	if mode != nil && mode.Val() != modePull {
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			s.queueJob(ctx, pl, opPush, author, mid)
			return nil
		})
		return s.wrap("index post", err)
	}
	return nil
}

// queueFinish queues what must follow every other write of the message: the
// idempotency result and the live event (a post to its author's channel, a
// comment to the parent's author unless they wrote it themselves).
func (s *Store) queueFinish(ctx context.Context, pl redis.Pipeliner, d *draft) {
	p := d.post
	if d.idemKey != "" {
		pl.Set(ctx, d.idemKey, p.ID, IdempotencyTTL)
	}
	switch {
	case d.parent == nil:
		s.queuePublish(ctx, pl, s.keys.AuthorChannel(p.Author.ID), store.EventPost, p)
	case d.parent.Author.ID != p.Author.ID:
		s.queuePublish(ctx, pl, s.keys.NotifyChannel(d.parent.Author.ID), store.EventComment, p)
	}
}

// queueTags adds post mid to (delta 1) or takes it from (-1) the index of
// each of its topics, counting the posts that carry each.
func (s *Store) queueTags(ctx context.Context, pl redis.Pipeliner, tags []string, mid int64, delta float64) {
	for _, tag := range tags {
		key := store.TagKey(tag)
		if delta > 0 {
			pl.ZAdd(ctx, s.keys.tagPosts(key), redis.Z{Score: float64(mid), Member: mid})
			pl.ZAdd(ctx, s.keys.tagNames(), redis.Z{Member: key})
		} else {
			pl.ZRem(ctx, s.keys.tagPosts(key), mid)
		}
		pl.ZIncrBy(ctx, s.keys.tagCounts(), delta, key)
	}
}

// afterWrite tells the people a new message concerns: the author of the
// message it comments or reposts (and that message's live readers its new
// counts), and the users it mentions.
func (s *Store) afterWrite(ctx context.Context, d *draft) {
	actor, mid := d.np.Author, d.post.ID
	notified := []int64{actor}
	switch {
	case d.parent != nil:
		kind := store.NotifyComment
		if d.parent.Kind == store.KindComment {
			kind = store.NotifyReply
		}
		s.notify(ctx, actor, kind, mid, d.parent.Author.ID)
		s.publishCounts(ctx, d.parent.ID, d.parent.Author.ID)
		notified = append(notified, d.parent.Author.ID)
	case d.orig != nil:
		s.notify(ctx, actor, store.NotifyRepost, mid, d.orig.Author.ID)
		s.publishCounts(ctx, d.orig.ID, d.orig.Author.ID)
		notified = append(notified, d.orig.Author.ID)
	}
	var mentioned []int64
	for _, m := range d.mentions {
		if !slices.Contains(notified, m.ID) {
			mentioned = append(mentioned, m.ID)
		}
	}
	s.notify(ctx, actor, store.NotifyMention, mid, mentioned...)
}
