package redisdb

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/media"
	"microblog/store/redisdb/schema"
)

// message reads one message's own hash, in one round trip (or from the
// archive): repost_of holds only the original's id. For writers, which need
// no more.
func (s *Store) message(ctx context.Context, mid int64) (*store.Post, error) {
	m, _, err := s.lookup(ctx, mid)
	return m, err
}

// lookup is message, and tells whether the message is hot (its hash is in
// Redis) or only in the archive.
func (s *Store) lookup(ctx context.Context, mid int64) (m *store.Post, hot bool, err error) {
	if mid <= 0 {
		return nil, false, store.ErrPostNotFound
	}
	ms, hots, err := s.loadPostsHot(ctx, []int64{mid}, 0)
	if err != nil {
		return nil, false, err
	}
	if ms[0] == nil {
		return nil, false, store.ErrPostNotFound
	}
	return ms[0], hots[0], nil
}

// Post returns one message (a post or a comment) as viewer sees it. A
// comment in a thread whose post (or a comment above it) was deleted is
// not found either: deleting a post takes its thread down with it; nor is
// one in a thread whose post viewer may not see.
func (s *Store) Post(ctx context.Context, mid, viewer int64) (store.Post, error) {
	if mid <= 0 {
		return store.Post{}, store.ErrPostNotFound
	}
	ps, err := s.posts(ctx, []int64{mid}, viewer)
	if err != nil {
		return store.Post{}, err
	}
	if err := s.sieve(ctx, ps, viewer, store.InView); err != nil {
		return store.Post{}, err
	}
	if ps[0] == nil {
		return store.Post{}, store.ErrPostNotFound
	}
	root := mid
	for parent, depth := ps[0].ParentID, 0; parent != nil && depth < schema.MaxThreadDepth; depth++ {
		up, err := s.message(ctx, *parent)
		if err != nil {
			return store.Post{}, err // ErrPostNotFound when it was deleted
		}
		root, parent = up.ID, up.ParentID
	}
	if root != mid {
		if _, err := s.Post(ctx, root, viewer); err != nil {
			return store.Post{}, err
		}
	}
	return *ps[0], nil
}

// posts loads messages as viewer (0: anonymous) sees them in at most two
// round trips (the messages, then the originals of the reposts among them).
// A message that is gone is nil.
func (s *Store) posts(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, error) {
	out, err := s.loadPosts(ctx, mids, viewer)
	if err != nil {
		return nil, err
	}
	if err := s.complete(ctx, out, viewer); err != nil {
		return nil, err
	}
	return out, nil
}

// complete fills in loaded messages (nil for those gone) as viewer sees
// them: the originals of the reposts among them, in one more round trip,
// and what each shows of its author.
func (s *Store) complete(ctx context.Context, out []*store.Post, viewer int64) error {
	byID := make(map[int64]*store.Post, len(out))
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
		origs, err := s.loadPosts(ctx, need, viewer)
		if err != nil {
			return err
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
			p.Reposted = cp.Reposted // a repost's button reposts its original
		} else {
			p.RepostOf = &store.Post{ID: p.RepostOf.ID, Deleted: true}
		}
	}
	if err := s.fillAuthors(ctx, out, viewer); err != nil {
		return err
	}
	return s.fillPolls(ctx, out, viewer) // polls.go
}

// loadPosts reads B hashes (HGETALL each) and their likes in one pipeline; repost_of
// holds only the id. likes_count is the size of the likes set (the
// archive's count for an archived message), and liked and bookmarked are
// set when viewer is not 0. A message whose hash has left Redis is read
// from the archive; one deleted (a tombstone) or found nowhere is nil.
func (s *Store) loadPosts(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, error) {
	out, _, err := s.loadPostsHot(ctx, mids, viewer)
	return out, err
}

// unfinishedKey marks a context whose reads see unfinished messages too
// (postHash.Unfinished): the checker's, which finishes them.
type unfinishedKey struct{}

// withUnfinished is ctx with reads that see unfinished messages too.
func withUnfinished(ctx context.Context) context.Context {
	return context.WithValue(ctx, unfinishedKey{}, true)
}

// loadPostsHot is loadPosts, and tells which messages were hot (read
// from Redis, not from the archive).
func (s *Store) loadPostsHot(ctx context.Context, mids []int64, viewer int64) ([]*store.Post, []bool, error) {
	cmds := make([]*redis.MapStringStringCmd, len(mids))
	var liked, saved, reposted *redis.FloatSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.HGetAll(ctx, s.keys.Post(mid))
		}
		if viewer > 0 && len(mids) > 0 {
			// The members are boxed once for the three commands, not by
			// each (go-redis's ZMScore boxes every member again).
			members := make([]any, len(mids))
			for i, mid := range mids {
				members[i] = id(mid)
			}
			zmscore := func(key string) *redis.FloatSliceCmd {
				args := make([]any, 2, 2+len(members))
				args[0], args[1] = "zmscore", key
				cmd := redis.NewFloatSliceCmd(ctx, append(args, members...)...)
				pl.Process(ctx, cmd)
				return cmd
			}
			liked = zmscore(s.keys.UserLikes(viewer))
			saved = zmscore(s.keys.Bookmarks(viewer))
			reposted = zmscore(s.keys.UserReposts(viewer))
		}
		rideAlong(ctx, pl) // a home read's lookup of its pulled stars, on a cluster
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, s.Wrap("load posts", err)
	}
	out := make([]*store.Post, len(mids))
	hot := make([]bool, len(mids))
	var cold []int64 // indexes into mids of the messages to look for in the archive
	for i, c := range cmds {
		h := schema.ScanPostMap(c.Val())
		if h.Unfinished == "1" && ctx.Value(unfinishedKey{}) == nil {
			continue // not written whole yet, or being taken out again
		}
		if c.Err() != nil || h.Kind == "" {
			if h.Deleted == "" && s.opt.Archive != nil {
				cold = append(cold, int64(i))
			}
			continue
		}
		out[i], hot[i] = h.Post(mids[i]), true
		out[i].LikesCount = h.Likes
	}
	if len(cold) > 0 {
		if err := s.loadArchived(ctx, mids, cold, out); err != nil {
			return nil, nil, err
		}
	}
	if liked != nil {
		likes, saves := liked.Val(), saved.Val()
		for i, p := range out {
			if p != nil {
				p.Liked, p.Bookmarked = inSet(likes, i), inSet(saves, i)
			}
		}
		setReposted(out, reposted.Val())
		if len(cold) > 0 { // an archived message's likes are in the archive alone
			if err := s.likedArchived(ctx, viewer, mids, cold, out); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, hot, nil
}

// inSet reads the i-th reply of a ZMSCORE: whether that member is in the set.
func inSet(scores []float64, i int) *bool {
	yes := i < len(scores) && scores[i] != 0
	return &yes
}

// loadArchived fills out[i] for each index i in cold with message mids[i]
// as the archive has it, unless it is deleted there (or not there at all).
func (s *Store) loadArchived(ctx context.Context, mids, cold []int64, out []*store.Post) error {
	ids := make([]int64, len(cold))
	for j, i := range cold {
		ids[j] = mids[i]
	}
	rows, err := s.opt.Archive.Posts(ctx, ids)
	if err != nil {
		return s.Wrap("load posts: archive", err)
	}
	// Their likes are in the archive alone, counted with the row (social/likes.go).
	for _, i := range cold {
		if a, ok := rows[mids[i]]; ok && !a.Deleted {
			out[i] = archivedPost(a)
			out[i].LikesCount = a.LikesCount
		}
	}
	return nil
}

// fillAuthors sets what each post shows of its author (and of the
// originals' authors): the avatar and display name, and the protected and suspended flags
// the safety rule reads; and, for a viewer who is not anonymous, whether
// the author pinned it. Authors read lately come from memory; the others in
// one round trip.
func (s *Store) fillAuthors(ctx context.Context, posts []*store.Post, viewer int64) error {
	var all []*store.Post
	for _, p := range posts {
		if p != nil {
			all = append(all, p)
			if p.RepostOf != nil && !p.RepostOf.Deleted && p.RepostOf.Author.ID != 0 {
				all = append(all, p.RepostOf)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	uids := make([]int64, 0, 4)
	for _, p := range all {
		if !slices.Contains(uids, p.Author.ID) {
			uids = append(uids, p.Author.ID)
		}
	}
	cards, err := s.authorCards(ctx, uids)
	if err != nil {
		return err
	}
	for _, p := range all {
		c := cards[p.Author.ID]
		p.Author.AvatarURL = media.AvatarURL(c.avatar)
		p.Author.DisplayName = c.displayName
		p.Author.Protected, p.Author.Suspended = c.protected, c.suspended
		p.Author.CreatedAt = store.Time(c.created)
		if viewer > 0 {
			pinned := slices.Contains(c.pins, p.ID)
			p.Pinned = &pinned
		}
	}
	return nil
}

// authorCards are the cards of uids, from memory when read lately.
func (s *Store) authorCards(ctx context.Context, uids []int64) (map[int64]authorCard, error) {
	now := time.Now()
	cards := make(map[int64]authorCard, len(uids))
	var missing []int64
	for _, uid := range uids {
		if c, ok := s.caches.authors.Get(uid, now); ok {
			cards[uid] = c
		} else {
			missing = append(missing, uid)
		}
	}
	if len(missing) == 0 {
		return cards, nil
	}
	gen := s.caches.authors.Gen()
	cmds := make([]*redis.SliceCmd, len(missing))
	pins := make([]*redis.StringSliceCmd, len(missing))
	piped, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, uid := range missing {
			cmds[i] = pl.HMGet(ctx, s.keys.User(uid), schema.FieldAvatar, schema.FieldProtected, schema.FieldSuspended, schema.FieldCreated, schema.FieldDisplayName)
			pins[i] = pl.ZRange(ctx, s.keys.Pinned(uid), 0, -1)
		}
		return nil
	})
	if err := reqpath.PipeErr(piped, err); err != nil {
		return nil, s.Wrap("load authors", err)
	}
	for i, uid := range missing {
		v := cmds[i].Val()
		var c authorCard
		if len(v) == 5 {
			c.avatar, _ = v[0].(string)
			c.protected = v[1] == "1"
			c.suspended = v[2] == "1"
			c.created = parseInt(v[3])
			c.displayName, _ = v[4].(string)
		}
		c.pins = schema.ParseIDs(pins[i].Val())
		cards[uid] = c
		s.caches.authors.Put(uid, c, gen, now)
	}
	return cards, nil
}

// parseInt is the integer an HMGET reply's field holds, 0 when it is
// missing or not one.
func parseInt(v any) int64 {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
