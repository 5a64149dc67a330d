package redisdb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/media"
	"microblog/store/redisdb/schema"
)

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
	// claim is what this request holds its idempotency key with (see
	// claimValue), reqHash the request it binds the key to, and finished
	// tells, once indexed, whether the key took the result.
	claim, reqHash string
	finished       *redis.Cmd
	// staleRepost is the mid of a repost of the same original by the same
	// author that is gone though still recorded, which this one replaces;
	// reposted tells, once indexed, whether the repost was recorded.
	staleRepost string
	reposted    *redis.Cmd
	// events are its live events (see queueFinish); written tells, on a
	// cluster, that its keys and indexes are all in, only its finish not.
	events  []liveEvent
	written bool
	// encoded tells that queueIndex encoded the events already, sent that
	// post_index.lua publishes them (queueFinish does neither again).
	encoded, sent bool
	// fields is the message's hash, and tail the fields that follow its
	// own (its Idempotency-Key's, the cluster's unfinished mark): on one
	// Redis post_index.lua writes a post's (queuePost leaves it to it),
	// taking them as fields.IndexArgs and tail. index is that script's
	// call, keys and arguments (queuePostIndex).
	fields schema.PostHash
	tail   []any
	index  scriptCall
	// alone tells, on one Redis, that the post's write is its index script
	// and nothing else (see writeOne): queuePostIndex leaves it unqueued.
	alone bool
	// row is the message as the archive will keep it, made from its hash.
	row store.Archived
	// thread is the post a comment's thread hangs from, read only for a
	// comment with topics (post_comment_tags.go); nil otherwise. public
	// tells that the comment's live event goes on the public channel.
	thread *store.Post
	public bool
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
		if !errors.Is(err, store.ErrReposted) || np.IdempotencyKey == "" {
			return store.Post{}, err
		}
		if p, err := s.repostMade(ctx, np); !errors.Is(err, errKeyFree) {
			return p, err
		}
		// The key is free, and the repost found may have been its earlier
		// request's, taken out between the two reads (unwrite removes the
		// repost, then gives the key back): look again.
		d = &draft{np: np}
		if err := s.resolveTargets(ctx, d); err != nil {
			return store.Post{}, err
		}
	}
	// From the claim on, the write belongs to the server, not to the
	// client's connection: a client that gives up must not stop it half
	// way, where its retry would find a message with no index.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reqpath.WriteTimeout)
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
	s.recordRepost(ctx, d)
	s.afterWrite(ctx, d)
	s.closePollLater(&d.post) // polls_live.go
	return d.post, nil
}

// errKeyFree is repostMade's answer when nothing holds the retry's
// Idempotency-Key.
var errKeyFree = errors.New("idempotency key free")

// repostMade answers the retry of a repost that finds its author's repost
// of the original there: with that repost, when the retry's
// Idempotency-Key says its earlier request made it; with errKeyFree when
// nothing holds the key.
func (s *Store) repostMade(ctx context.Context, np store.NewPost) (store.Post, error) {
	held, err := s.rdb.Get(ctx, s.keys.Idempotency(np.Author, store.TokenHash(np.IdempotencyKey))).Result()
	if errors.Is(err, redis.Nil) {
		return store.Post{}, errKeyFree
	}
	if err != nil {
		return store.Post{}, s.Wrap("create post: idempotency", err)
	}
	return s.firstResult(ctx, &draft{np: np, reqHash: requestHash(np)}, held)
}

// resolveTargets loads the original of a repost (the original of a repost
// of a repost) and the parent of a comment.
func (s *Store) resolveTargets(ctx context.Context, d *draft) error {
	if d.np.RepostOf != 0 {
		o, err := s.target(ctx, d.np.Author, d.np.RepostOf)
		if err != nil {
			return err
		}
		if o.Kind != store.KindPost {
			return store.Invalid(store.CodeInvalidRepost, "only posts can be reposted, not comments")
		}
		orig := o
		if o.RepostOf != nil {
			if o.RepostOf.Deleted {
				return store.ErrPostNotFound
			}
			orig = o.RepostOf
		}
		if orig.Author.Protected {
			return store.ErrProtected
		}
		orig.RepostOf = nil
		orig.Reposted = nil // its live event goes to fans, whose own reposts it does not know
		orig.RepostsCount++ // as it will be once this repost is indexed
		d.orig = orig
		if err := s.repostedBefore(ctx, d); err != nil {
			return err
		}
	}
	if d.np.Parent != 0 {
		parent, err := s.target(ctx, d.np.Author, d.np.Parent)
		if err != nil {
			return err
		}
		d.parent = parent
	}
	if err := s.resolveMedia(ctx, d); err != nil {
		return err
	}
	if err := s.resolveEntities(ctx, d); err != nil {
		return err
	}
	if d.parent != nil && len(d.tags) > 0 { // for its live event on the public channel
		thread, err := s.threadPost(ctx, d.parent, true)
		if err != nil {
			return err
		}
		d.thread = thread
	}
	return nil
}

// repostedBefore refuses a second repost of the same original by the same
// user (409), while the first exists. Two sent at once both pass here; the
// index (repost_add.lua) lets only one be recorded, and write takes the other
// out.
func (s *Store) repostedBefore(ctx context.Context, d *draft) error {
	before, err := s.rdb.ZScore(ctx, s.keys.Reposts(d.orig.ID), id(d.np.Author)).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return s.Wrap("create post: reposts", err)
	}
	// The earlier repost stands while it can be read: a tombstone is gone,
	// a repost that left Redis for the archive is not, and neither is one
	// still unfinished on a cluster (its request is under way, or the
	// checker will finish or remove it): taken for gone, it was replaced
	// in reposts:<orig> by this one, and both reposts of one user stood.
	mid := int64(before)
	ms, err := s.loadPosts(withUnfinished(ctx), []int64{mid}, 0)
	if err != nil {
		return err
	}
	if ms[0] != nil {
		s.healReposted(ctx, d.np.Author, d.orig.ID, mid)
		return store.ErrReposted
	}
	d.staleRepost = id(mid) // deleted half way, or never finished
	return nil
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
	piped, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, name := range ents.Mentions {
			if lower, ok := store.LookupName(name); ok {
				cmds[i] = pl.Get(ctx, s.keys.UsernameIndex(lower))
			}
		}
		return nil
	})
	if err := reqpath.PipeErr(piped, err); err != nil {
		return s.Wrap("create post: mentions", err)
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

// postBucket is the rate-limit bucket of posts (see store.NewPost.Limit).
const postBucket = "post"

// claim takes the author's name, display name, avatar and fan-out mode, the idempotency
// key, a count against the author's rate limit and a new id in one round
// trip (the mode before the id: see promote), and fills in d.post. When an
// earlier request holds the key, it returns that request's post instead. An
// id drawn for a request that then stops is simply never used.
//
// The key is claimed with a token of this request's own, so that a claim
// sent twice (go-redis re-sending a pipeline whose reply it lost) is still
// this request's, and for claimTTL only: a request that dies holds its key
// back that long, not a day.
func (s *Store) claim(ctx context.Context, d *draft) (*store.Post, error) {
	np := d.np
	var author *redis.SliceCmd
	var held *redis.Cmd
	var next, queued *redis.IntCmd
	var spent func() error
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		spent = s.queueAllow(ctx, pl, postBucket, id(np.Author), np.Limit)
		queued = s.queueArchiveRoom(ctx, pl)
		author = pl.HMGet(ctx, s.keys.User(np.Author), schema.FieldUsername, schema.FieldFanOut, schema.FieldAvatar, schema.FieldProtected, schema.FieldCreated, schema.FieldDisplayName, schema.FieldFedFans)
		if np.IdempotencyKey != "" {
			d.reqHash = requestHash(np)
			d.idemKey, d.claim, held = s.queueIdemClaim(ctx, pl, np.Author, np.IdempotencyKey, d.reqHash)
		}
		next = pl.Incr(ctx, s.keys.LastPostID())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		s.release(ctx, d) // the claim may have been taken before the reply was lost
		return nil, s.Wrap("create post", err)
	}
	name, _ := author.Val()[0].(string)
	mode, _ := author.Val()[1].(string)
	avatar, _ := author.Val()[2].(string)
	if name == "" {
		s.release(ctx, d)
		return nil, store.ErrUserNotFound
	}
	if held != nil {
		if h, _ := held.Text(); h != d.claim {
			p, err := s.firstResult(ctx, d, h)
			if err != nil {
				return nil, err
			}
			return &p, nil
		}
	}
	err = spent()
	if err == nil {
		err = s.archiveRoom(queued)
	}
	if err != nil {
		s.release(ctx, d)
		return nil, err
	}
	d.shape(next.Val(), name, avatar, s.Now())
	d.post.Author.Protected = author.Val()[3] == "1"
	d.post.Author.CreatedAt = store.Time(parseInt(author.Val()[4]))
	d.post.Author.DisplayName, _ = author.Val()[5].(string)
	d.post.Federated = author.Val()[6] == "1" // read in the same HMGET: no command more (issue 39)
	d.pulled = mode == schema.ModePull
	return nil, nil
}

// shape fills in d.post, the message as it will read: id mid, written at
// now by its author, whose name and avatar the claim read.
func (d *draft) shape(mid int64, name, avatar string, now int64) {
	np := d.np
	d.post = store.Post{ID: mid, Kind: store.KindPost,
		Author:  store.Author{ID: np.Author, Username: name, AvatarURL: media.AvatarURL(avatar)},
		Content: np.Content, CreatedAt: store.Time(now), RepostOf: d.orig, Spoiler: np.Spoiler, URL: np.URL}
	if d.parent != nil {
		d.post.Kind, d.post.ParentID = store.KindComment, &d.parent.ID
	}
	no := false
	d.post.Liked, d.post.Mentions, d.post.Tags, d.post.Media = &no, d.mentions, d.tags, d.media
	d.post.Pinned, d.post.Bookmarked = &no, &no // a new message: nobody pinned or saved it yet
	d.post.Poll = newPollOf(np.Poll, mid, now)
	d.post.Reposted = &no // nor reposted it (a repost's fans did not repost its original)
}

// write stores the claimed message: its own keys first, then its indexes,
// its fan-out job and live event. A write that fails is settled (see
// settle): taken out again where it may be, so that its 503 is true and its
// retry makes the one post, or kept where it stands and was shown live, for
// its retry to return.
//
// On one Redis the message's own keys and its indexes go in one
// transaction, all or nothing, in one round trip. On a cluster they live on
// different masters: the message is written first and indexed after, so
// that no index points at nothing.
func (s *Store) write(ctx context.Context, d *draft) error {
	var err error
	if s.keys.Cluster() {
		err = s.writePost(ctx, d)
		if err == nil {
			err = s.index(ctx, d)
		}
	} else {
		err = s.writeOne(ctx, d)
	}
	if err != nil {
		s.settle(ctx, d)
		return err
	}
	if err := d.lost(); err != nil {
		s.unwrite(ctx, d)
		return err
	}
	return nil
}

// writeOne writes and indexes the message of d on one Redis, all or
// nothing, in one round trip: a transaction of its writes (EVAL of its
// scripts inside, body and all: EVALSHA inside MULTI answered NOSCRIPT, by
// a Redis restarted, failed over or whose scripts were flushed, would
// leave the transaction's other writes applied without the script's), or,
// when post_index.lua is all there is to it (a post with no topics,
// images, poll, Idempotency-Key or original: most posts), that script
// alone, by EVALSHA, which runs whole or not at all (on NOSCRIPT, EVAL).
func (s *Store) writeOne(ctx context.Context, d *draft) error {
	d.index = scriptCall{}
	d.alone = d.parent == nil && d.stands() && d.post.Poll == nil && len(d.tags) == 0 && len(d.media) == 0 && !d.pulled
	t := s.rdb.TxPipeline()
	s.queuePost(ctx, t, d, d.parent != nil) // else post_index.lua writes B, D and E
	mode := s.queueIndex(ctx, t, d)
	if d.alone {
		if t.Len() == 0 && mode == nil {
			return s.indexed(ctx, d, nil, d.index.run(ctx, s.rdb).Err())
		}
		d.index.script.Eval(ctx, t, d.index.keys, d.index.args...) // not alone after all
	}
	_, err := t.Exec(ctx)
	return s.indexed(ctx, d, mode, err)
}

// scriptCall is a script's call, its keys and arguments.
type scriptCall struct {
	script *redis.Script
	keys   []string
	args   []any
}

// run runs the call on its own: EVALSHA, and EVAL after a NOSCRIPT (a
// script runs whole or not at all, so nothing of it ran then).
func (c scriptCall) run(ctx context.Context, rdb redis.Scripter) *redis.Cmd {
	return c.script.Run(ctx, rdb, c.keys, c.args...)
}

// lost tells, once indexed, whether another request came first: it holds
// the Idempotency-Key now (this request's claim ran out first, and that
// one's post stands), or its author's repost of the same original was
// recorded first. Then this message goes, never shown live (queueFinish).
func (d *draft) lost() error {
	switch {
	case d.reposted != nil && d.reposted.Val() == int64(0),
		d.finished != nil && d.finished.Val() == int64(-1):
		return store.ErrReposted
	case d.finished != nil && d.finished.Val() == int64(0):
		return store.ErrInProgress
	}
	return nil
}

// writePost writes the message's own keys (B, D, E) in one transaction,
// before any index points at them.
func (s *Store) writePost(ctx context.Context, d *draft) error {
	_, err := s.rdb.TxPipelined(ctx, func(t redis.Pipeliner) error {
		s.queuePost(ctx, t, d, true)
		return nil
	})
	return s.Wrap("create post", err)
}

// queuePost queues the writes of the message's own keys (B, D, E), unless
// not keys (on one Redis, a post's come with its index, post_index.lua,
// which takes d.fields and d.tail): then only the keys of its poll.
func (s *Store) queuePost(ctx context.Context, t redis.Pipeliner, d *draft, keys bool) {
	p := d.post
	h := schema.PostHash{Content: p.Content, Author: p.Author.ID, Username: p.Author.Username,
		Time: int64(p.CreatedAt), Kind: p.Kind, Spoiler: p.Spoiler, URL: p.URL}
	if d.orig != nil {
		h.RepostOf = id(d.orig.ID)
	}
	if d.parent != nil {
		h.Parent = id(d.parent.ID)
	}
	mentions, _ := json.Marshal(d.mentions)
	tags, _ := json.Marshal(d.tags)
	h.Mentions, h.Tags, h.Media = string(mentions), string(tags), media.JSON(d.media)
	if p.Poll != nil { // its votes' keys beside it, on its slot (polls.go)
		h.Poll = pollDefinition(p.Poll).JSON()
		s.queuePollKeys(ctx, t, p.Poll)
	}
	d.row = h.Archived(p.ID)
	d.fields, d.tail = h, nil
	if d.idemKey != "" { // for the checker, should the request stop half way
		d.tail = append(d.tail, schema.FieldIdem, d.idemKey[strings.LastIndexByte(d.idemKey, ':')+1:]+" "+d.claim)
	}
	if s.keys.Cluster() { // hidden until finish: its indexes follow on other masters
		d.tail = append(d.tail, schema.FieldUnfinished, "1")
	}
	if !keys {
		return
	}
	t.HSet(ctx, s.keys.Post(p.ID), append(h.Args(), d.tail...)...)
	t.Set(ctx, s.keys.PublicTime(p.ID), int64(p.CreatedAt), 0)
	t.Set(ctx, s.keys.Author(p.ID), p.Author.ID, 0)
}

// index writes the indexes that point at the message in one round trip: a
// comment's entry in its parent's C set; a post's F, the author's own G, the
// public timeline, counters and its push job. Then come the idempotency
// result and the live event, after everything they announce (queueFinish):
// on a cluster, where the pipeline's parts go to their masters side by
// side, they wait for all of them to succeed, in a round trip of their own
// (finish).
//
// A post claimed in pull mode queues no push, but reads the mode again
// after writing F: if a demotion began in between, its backfill may have
// read F too early, so the post pushes itself. So does one whose id is at
// or below pull_from: the promotion fell between its id and its read of the
// mode (on a cluster they go to different nodes side by side), and the
// backfill that ends the pull starts above pull_from.
func (s *Store) index(ctx context.Context, d *draft) error {
	var mode *redis.SliceCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		mode = s.queueIndex(ctx, pl, d)
		return nil
	})
	if err = s.indexed(ctx, d, mode, reqpath.PipeErr(cmds, err)); err != nil || !s.keys.Cluster() || d.lost() != nil {
		return err
	}
	d.written = true
	return s.finish(ctx, d)
}

// queueIndex queues the writes of index. For a post claimed in pull mode it
// returns the command that reads the mode and pull_from again.
func (s *Store) queueIndex(ctx context.Context, pl redis.Pipeliner, d *draft) (mode *redis.SliceCmd) {
	mid, author := d.post.ID, d.np.Author
	z := redis.Z{Score: float64(mid), Member: mid}
	d.encoded, d.sent = false, false
	if d.parent != nil {
		pl.ZAdd(ctx, s.keys.Comments(d.parent.ID), z)
		schema.CountSync.Eval(ctx, pl, []string{s.keys.Post(d.parent.ID), s.keys.Comments(d.parent.ID)}, schema.FieldComments)
		s.queueUserComment(ctx, pl, author, z)
		s.queueCommentTags(ctx, pl, d.tags, mid, 1)
		s.queueFed(ctx, pl, d)
		s.queueArchive(ctx, pl, schema.ArchivePut, d.row)
		s.queueFinish(ctx, pl, d)
		return nil
	}
	single := !s.keys.Cluster()
	if single {
		s.queuePostIndex(ctx, pl, d)
	} else {
		schema.PostAdd.Eval(ctx, pl, []string{s.keys.UserPosts(author), s.keys.User(author)}, mid, schema.FieldPosts)
		s.QueueHomeAdd(ctx, pl, author, z)
		if !d.post.Author.Protected { // its fans' only: unprotecting puts it back (tidyPublic)
			pl.ZAdd(ctx, s.keys.PublicTimeline(), z)
			if s.opt.Archive == nil { // else the archiver trims it, once what it trims is archived
				pl.ZRemRangeByRank(ctx, s.keys.PublicTimeline(), 0, int64(-s.opt.HotWindow-1))
			}
		}
	}
	if d.orig != nil {
		d.reposted = schema.RepostAdd.Eval(ctx, pl, []string{s.keys.Reposts(d.orig.ID), s.keys.Post(d.orig.ID)},
			author, mid, d.staleRepost, schema.FieldReposts)
	}
	s.queueTags(ctx, pl, d.tags, mid, 1)
	s.queueTrends(ctx, pl, d.tags, author, int64(d.post.CreatedAt), 1)
	s.queueAttach(ctx, pl, d.media, mid)
	if d.pulled {
		mode = pl.HMGet(ctx, s.keys.User(author), schema.FieldFanOut, schema.FieldPullFrom)
	} else if !single { // else post_index.lua queued it
		s.queueJob(ctx, pl, schema.OpPush, author, mid)
	}
	// A post that goes out by federation is not post_index.lua alone.
	s.queueFed(ctx, pl, d)
	if !single { // else post_index.lua queued it
		s.queueArchive(ctx, pl, schema.ArchivePut, d.row)
	}
	s.queueFinish(ctx, pl, d)
	return mode
}

// queuePostIndex queues, on one Redis, post_index.lua for the post of d: in
// one script call what a cluster takes up to ten commands and two scripts
// for (see queuePost, queueIndex and queueFinish): its D and E keys, its
// entry in F and posts_count, in its author's own home timeline and the
// public one, its push job with its in-flight mark (markPending) unless
// claimed in pull mode, and its live events when it stands whatever
// happens. They go out inside the transaction that writes the message, as
// before at its end: nobody sees any of it before all of it.
func (s *Store) queuePostIndex(ctx context.Context, pl redis.Pipeliner, d *draft) {
	mid, author := d.post.ID, d.np.Author
	n := s.keys.PullShard(author)
	public := "" // its fans' only: unprotecting puts it back (tidyPublic)
	if !d.post.Author.Protected {
		public = "trim"
		if s.opt.Archive != nil { // the archiver trims it, once what it trims is archived
			public = "add"
		}
	}
	var archive []any
	if s.opt.Archive != nil {
		raw, _ := json.Marshal(d.row)
		archive = schema.ArchiveEntry(schema.ArchivePut, raw)
	}
	job := "" // "1": post_index.lua marks its push in flight and queues its job
	if !d.pulled {
		job = "1"
	}
	s.encodeEvents(ctx, d)
	d.encoded = true
	d.sent = d.stands()
	var hash []any
	more := -1 // no hash: the checker indexes a message written before (IndexUnfinished)
	if d.fields.Kind != "" {
		hash = d.fields.IndexArgs()
		more = len(hash) - len(schema.PostIndexFields) + len(d.tail)
	}
	size := 10 + len(hash) + len(d.tail) + len(archive)
	if d.sent {
		size += 2 * len(d.events)
	}
	args := make([]any, 10, size)
	copy(args, []any{mid, author, schema.FieldPosts, s.opt.HotWindow, public, job, int64(d.post.CreatedAt),
		s.Now(), more, len(archive)})
	if hash != nil {
		args = append(append(args, hash...), d.tail...)
	}
	args = append(args, archive...)
	if d.sent {
		args = appendEvents(args, d.events)
	}
	d.index = scriptCall{schema.PostIndex, []string{s.keys.UserPosts(author), s.keys.User(author), s.keys.Home(author),
		s.keys.PublicTimeline(), s.keys.FanOutPendingShard(n), s.keys.FanOutPushingShard(n), s.keys.FanOutQueue(),
		s.keys.PublicTime(mid), s.keys.Author(mid), s.keys.Post(mid), s.keys.ArchiveQueue()}, args}
	if !d.alone {
		d.index.script.Eval(ctx, pl, d.index.keys, d.index.args...)
	}
}

// indexed finishes index once its writes have run with err: a post claimed
// in pull mode whose author is no longer pulled, or that the pull does not
// cover, queues its push now.
func (s *Store) indexed(ctx context.Context, d *draft, mode *redis.SliceCmd, err error) error {
	mid, author := d.post.ID, d.np.Author
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.Wrap("index post", err)
	}
	if mode == nil || len(mode.Val()) < 2 {
		return nil
	}
	now, _ := mode.Val()[0].(string)
	from, _ := mode.Val()[1].(string)
	if now != schema.ModePull || mid <= parseID(from) {
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			s.queueJob(ctx, pl, schema.OpPush, author, mid)
			return nil
		})
		return s.Wrap("index post", err)
	}
	return nil
}

// repush queues the push of a post claimed in pull mode that indexed
// would have queued, for a write whose end Redis did not answer (settle):
// a push queued twice changes nothing.
func (s *Store) repush(ctx context.Context, d *draft) error {
	if !d.pulled || d.parent != nil {
		return nil
	}
	mode := s.rdb.HMGet(ctx, s.keys.User(d.np.Author), schema.FieldFanOut, schema.FieldPullFrom)
	return s.indexed(ctx, d, mode, mode.Err())
}

// queueFinish queues what must follow every other write of the message: the
// idempotency result and the live event (a post to its author's channel,
// and to the public one unless it is a repost or its author is protected;
// a comment to the parent's author unless they wrote it themselves), only
// if the message stands (see lost): a message taken out again must never
// have been shown live, nor returned to a retry. On one Redis a script
// checks so and finishes it, last in the same transaction; on a cluster the
// events wait in d.events for finish.
func (s *Store) queueFinish(ctx context.Context, pl redis.Pipeliner, d *draft) {
	d.finished = nil
	if !d.encoded {
		s.encodeEvents(ctx, d)
	}
	switch {
	case s.keys.Cluster():
	case d.stands():
		if !d.sent {
			for _, e := range d.events {
				s.queuePublishFrame(ctx, pl, e.channel, e.frame)
			}
		}
	default:
		d.finished = s.queuePostFinish(ctx, pl, d, d.events)
	}
}

// stands tells that the message of d stands whatever happens, so that its
// live events need no script to ask first (see queueFinish): it has no
// Idempotency-Key and is not a repost.
func (d *draft) stands() bool { return d.idemKey == "" && d.orig == nil }

// encodeEvents encodes the message of d once, for its live events and for
// the writer's answer, into d.events and d.post.Encoded.
func (s *Store) encodeEvents(ctx context.Context, d *draft) {
	p := d.post
	d.events = nil
	raw, err := json.Marshal(p)
	if err != nil {
		s.opt.Logger.ErrorContext(ctx, "encode live event", "post", p.ID, "err", err)
		return
	}
	d.post.Encoded = raw
	var parentAuthor int64
	if d.parent != nil {
		parentAuthor = d.parent.Author.ID
	}
	d.events = s.liveEvents(p, raw, parentAuthor)
	if d.thread != nil {
		if data := publicComment(p, raw, d.thread); data != nil {
			d.events = append(d.events, liveEvent{s.keys.PublicChannel(), store.FrameOf(store.EventPost, data)})
			d.public = true
		}
	}
}

// liveEvent is one frame to publish on one channel.
type liveEvent struct {
	channel string
	frame   []byte
}

// liveEvents are the live events of new message p, encoded as raw: a post
// to its author's channel, to the public one unless it is a repost or its
// author is protected, and to the channel of each of its topics unless its
// author is protected; a comment (parentAuthor is its parent's author)
// to the parent's author unless they wrote it themselves.
func (s *Store) liveEvents(p store.Post, raw []byte, parentAuthor int64) []liveEvent {
	switch {
	case p.ParentID == nil:
		frame := store.FrameOf(store.EventPost, raw)
		events := []liveEvent{{s.keys.AuthorChannel(p.Author.ID), frame}}
		if p.RepostOf == nil && !p.Author.Protected {
			events = append(events, liveEvent{s.keys.PublicChannel(), frame})
		}
		if !p.Author.Protected {
			for _, key := range schema.TagKeys(p.Tags) { // for the topics' followers (tags_follow.go)
				events = append(events, liveEvent{s.keys.TagChannel(key), frame})
			}
		}
		return events
	case parentAuthor != p.Author.ID:
		return []liveEvent{{s.keys.NotifyChannel(parentAuthor), store.FrameOf(store.EventComment, raw)}}
	}
	return nil
}

// publishEvents publishes events in one round trip.
func (s *Store) publishEvents(ctx context.Context, events []liveEvent) error {
	if len(events) == 0 {
		return nil
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, e := range events {
			s.queuePublishFrame(ctx, pl, e.channel, e.frame)
		}
		return nil
	})
	return err
}

// queuePostFinish queues post_finish.lua for the message of d, publishing
// events if it stands, on one Redis (pl may be a client too: then it runs).
func (s *Store) queuePostFinish(ctx context.Context, pl redis.Scripter, d *draft, events []liveEvent) *redis.Cmd {
	var keys []string
	args := []any{"", schema.ResultValue(d.post.ID, d.reqHash), schema.IdempotencyTTL.Milliseconds(), "", ""}
	if d.idemKey != "" {
		keys = append(keys, d.idemKey)
		args[0] = d.claim
	}
	if d.orig != nil {
		keys = append(keys, s.keys.Reposts(d.orig.ID), s.keys.Post(d.orig.ID))
		args[3], args[4] = d.np.Author, d.post.ID
	}
	return schema.PostFinish.Eval(ctx, pl, keys, appendEvents(args, events)...)
}

// appendEvents appends events to the arguments of post_index.lua or
// post_finish.lua as channel, frame pairs, a frame the same as the one
// before as "": a post's one frame goes to its author's channel, the public
// one and its topics', and was sent to Redis once a channel, a third of
// the bytes a post sent.
func appendEvents(args []any, events []liveEvent) []any {
	var last []byte
	for _, e := range events {
		if last != nil && bytes.Equal(e.frame, last) {
			args = append(args, e.channel, "")
			continue
		}
		args = append(args, e.channel, e.frame)
		last = e.frame
	}
	return args
}

// finish records, on a cluster, the result of a message written and
// indexed whole under its Idempotency-Key, and then, only if the message
// stands (the key held no other request's claim), shows it to readers
// (takes its unfinished mark off) and publishes its live events (see
// queueFinish). The key and the channels live on different
// masters, so the events wait for the key's answer: sent side by side, they
// once went out for a post that a retry replaced and that was taken out
// again, never acknowledged (issue 27). A keyed post takes one round trip
// more on a cluster for it.
//
// The events also wait for the mark to be off, in a round trip of their
// own: sent side by side with its HDEL (on the message's master), an event
// could go out while a resuming client was not yet listening, and the
// client's replay, reading before the HDEL landed (a master failing over
// holds it for seconds), passed the post by as unfinished: lost to that
// client for good (TestClusterFailover found it). A post with live events
// so takes one more round trip on a cluster.
func (s *Store) finish(ctx context.Context, d *draft) error {
	if d.idemKey != "" {
		d.finished = schema.IdemFinish.Eval(ctx, s.rdb, []string{d.idemKey}, d.claim,
			schema.ResultValue(d.post.ID, d.reqHash), schema.IdempotencyTTL.Milliseconds())
		if err := d.finished.Err(); err != nil {
			return s.Wrap("finish post", err)
		}
		if d.lost() != nil {
			return nil
		}
	}
	if err := s.rdb.HDel(ctx, s.keys.Post(d.post.ID), schema.FieldUnfinished).Err(); err != nil {
		return s.Wrap("finish post", err)
	}
	return s.Wrap("finish post", s.publishEvents(ctx, d.events))
}

// queueUserComment adds comment z to its author's R set, which with an
// archive keeps the newest HotWindow of them (UserComments reads the older
// ones there: a comment is archived long before its author writes a
// HotWindow more).
func (s *Store) queueUserComment(ctx context.Context, pl redis.Pipeliner, author int64, z redis.Z) {
	pl.ZAdd(ctx, s.keys.UserComments(author), z)
	if s.opt.Archive != nil {
		pl.ZRemRangeByRank(ctx, s.keys.UserComments(author), 0, int64(-s.opt.HotWindow-1))
	}
}

// queueTags adds post mid to (delta 1) or takes it from (-1) the index of
// each of its topics, counting the posts that carry each.
func (s *Store) queueTags(ctx context.Context, pl redis.Pipeliner, tags []string, mid int64, delta float64) {
	for _, tag := range tags {
		key := store.TagKey(tag)
		if delta > 0 {
			pl.ZAdd(ctx, s.keys.TagPosts(key), redis.Z{Score: float64(mid), Member: mid})
			pl.ZAdd(ctx, s.keys.TagNames(), redis.Z{Member: key})
		} else {
			pl.ZRem(ctx, s.keys.TagPosts(key), mid)
		}
		pl.ZIncrBy(ctx, s.keys.TagCounts(), delta, key)
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

// resolveMedia checks that every image a post would carry is an upload of
// its author's that no post has taken yet.
func (s *Store) resolveMedia(ctx context.Context, d *draft) error {
	d.media = []store.Media{}
	if len(d.np.MediaIDs) == 0 {
		return nil
	}
	var cmds []*redis.MapStringStringCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		cmds = s.queueMediaRead(ctx, pl, d.np.MediaIDs)
		return nil
	})
	if err != nil {
		return s.Wrap("create post: media", err)
	}
	d.media, err = media.Own(d.np.Author, d.np.MediaIDs, cmds)
	return err
}
