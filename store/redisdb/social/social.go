package social

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Like makes uid like message mid (on) or stop liking it, idempotently; a
// change notifies the author (or takes the notification back) and sends the
// message's new counts to live readers. A hot message keeps its likes in
// Redis (likes:<mid>, and the liker's own set); an archived one in the
// archive alone (likes.go).
func (s *Social) Like(ctx context.Context, uid, mid int64, on bool) error {
	// Unliking too is only for what uid may see: its answer must not tell
	// a hidden message from a missing one (CONTRACT.md §17).
	if _, err := s.target(ctx, uid, mid); err != nil {
		return err
	}
	m, _, err := s.core.Lookup(ctx, mid)
	if err != nil {
		return err
	}
	// The like and its archive entry in one round trip; the entry is
	// idempotent, so it goes even when nothing changed.
	l := store.ArchivedLike{MID: mid, UID: uid, At: s.core.Now(), Version: s.likeVersion()}
	var res *redis.Cmd
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		keys := []string{s.keys.Post(mid), s.keys.Likes(mid)}
		if on {
			res = schema.LikeHot.Eval(ctx, pl, keys, l.At, uid, l.Version)
			pl.ZAddNX(ctx, s.keys.UserLikes(uid), redis.Z{Score: float64(l.At), Member: mid})
			s.core.QueueArchiveLike(ctx, pl, schema.ArchiveLike, l)
		} else {
			res = schema.UnlikeHot.Eval(ctx, pl, keys, uid, l.Version)
			pl.ZRem(ctx, s.keys.UserLikes(uid), mid)
			s.core.QueueArchiveLike(ctx, pl, schema.ArchiveUnlike, l)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.core.Wrap("like", err)
	}
	changed, version := likeResult(res)
	switch {
	case changed == -1 && on:
		s.rdb.ZRem(ctx, s.keys.UserLikes(uid), mid)
		return store.ErrPostNotFound // deleted meanwhile
	case changed == -1:
		return nil
	case changed == -2: // archived: its likes are in the archive alone
		if on {
			s.rdb.ZRem(ctx, s.keys.UserLikes(uid), mid)
		}
		if changed, err = s.likeArchived(ctx, l, on); err != nil {
			return err
		}
	case version > l.Version && s.opt.Archive != nil:
		// Another process's clock ran ahead of this one's: the archive
		// gets the version Redis's order gave (likes.go). Should this
		// fail, the request does, and its retry queues it.
		l.Version = version
		op := schema.ArchiveLike
		if !on {
			op = schema.ArchiveUnlike
		}
		_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			s.core.QueueArchiveLike(ctx, pl, op, l)
			return nil
		})
		if err != nil {
			return s.core.Wrap("like: queue for the archive", err)
		}
	}
	if changed == 0 {
		return nil
	}
	if on {
		s.notify(ctx, uid, store.NotifyLike, mid, m.Author.ID)
	} else {
		s.unnotify(ctx, m.Author.ID, uid, store.NotifyLike, mid)
	}
	s.publishCounts(ctx, mid, m.Author.ID)
	return nil
}

// likeResult reads the reply of like_hot.lua or unlike_hot.lua: how many
// likes it changed (-1, -2: deleted, archived) and the version it gave.
func likeResult(res *redis.Cmd) (changed, version int64) {
	reply, _ := res.Slice()
	if len(reply) != 2 {
		return 0, 0
	}
	changed, _ = reply[0].(int64)
	switch v := reply[1].(type) {
	case int64:
		version = v
	case string:
		version, _ = strconv.ParseInt(v, 10, 64)
	}
	return changed, version
}

// Likers is a page of the users who like mid, newest like first: from
// likes:<mid> while mid is hot, from the archive once it has left Redis;
// those q.Viewer may not see there are left out (seenPeople).
func (s *Social) Likers(ctx context.Context, mid int64, q store.PageQuery) (store.Page[store.User], error) {
	if _, err := s.core.Post(ctx, mid, q.Viewer); err != nil { // not found for whom may not see it
		return store.Page[store.User]{}, err
	}
	_, hot, err := s.core.Lookup(ctx, mid)
	if err != nil {
		return store.Page[store.User]{}, err
	}
	var page store.Page[store.User]
	if hot || s.opt.Archive == nil {
		page, err = s.relationPage(ctx, s.keys.Likes(mid), q)
	} else {
		page, err = s.archivedLikers(ctx, mid, q)
	}
	if err != nil {
		return store.Page[store.User]{}, err
	}
	return s.seenPeople(ctx, page, q.Viewer)
}

// seenPeople takes out of a page of the people attached to a post (its
// likers, its reposters) those viewer may not meet there, by the one rule
// of store.Lens (HidesPerson). The page keeps its cursor, so it may come
// back short, or empty with more to come.
func (s *Social) seenPeople(ctx context.Context, page store.Page[store.User], viewer int64) (store.Page[store.User], error) {
	lens, err := s.lens(ctx, viewer)
	if err != nil {
		return store.Page[store.User]{}, err
	}
	page.Items = slices.DeleteFunc(page.Items, func(u store.User) bool {
		// Following is viewer's follow, which for a protected user is an
		// approved one.
		approved := u.Following != nil && *u.Following
		return lens.HidesPerson(store.Author{ID: u.ID, Protected: u.Protected, Suspended: u.Suspended, Approved: approved})
	})
	return page, nil
}

// publishCounts tells the live readers of author's posts (the author and its
// fans) the counters of message mid as they are now.
func (s *Social) publishCounts(ctx context.Context, mid, author int64) {
	ms, err := s.core.Posts(ctx, []int64{mid}, 0) // a repost's with its original's author
	if err != nil || ms[0] == nil {
		return // the counts are right on the next read; only the live update is lost
	}
	m := ms[0]
	s.core.Publish(ctx, s.keys.AuthorChannel(author), store.EventCounts, store.CountsData{
		ID: mid, LikesCount: m.LikesCount, CommentsCount: m.CommentsCount, RepostsCount: m.RepostsCount,
		PostRef: store.RefOf(m)})
}

// TagPosts is a page of the posts carrying tag, newest first: those in
// Redis's T: set, then, with the same cursor, those only the archive has.
func (s *Social) TagPosts(ctx context.Context, tag string, q store.PageQuery) (store.Page[store.Post], error) {
	key, err := searchKey(tag, store.MaxTagLen)
	if err != nil {
		return store.Page[store.Post]{}, err
	}
	return s.core.TagPage(ctx, key, q)
}

// searchKey checks a topic or a search prefix and returns its index form.
func searchKey(q string, maxLen int) (string, error) {
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return "", store.Invalid(store.CodeInvalidQuery, "the query is not valid UTF-8 text")
	}
	q = strings.TrimSpace(q)
	if n := utf8.RuneCountInString(q); n == 0 || n > maxLen {
		return "", store.Invalid(store.CodeInvalidQuery, "the query must be 1 to "+id(int64(maxLen))+" characters")
	}
	return store.TagKey(q), nil
}

// prefixRange is the lexical range of the members that start with prefix
// (0xff never occurs in UTF-8).
func prefixRange(prefix string) *redis.ZRangeBy {
	return &redis.ZRangeBy{Min: "[" + prefix, Max: "[" + prefix + "\xff"}
}

// searchCandidates bounds how many prefix matches are ranked per search.
const searchCandidates = 200

// SearchUsers are the users whose name or display name starts with
// prefix (in any letter case, any script), most followed first. A display
// name's entry left behind by a rename that raced another is skipped:
// the display name read with the user must still start with prefix.
func (s *Social) SearchUsers(ctx context.Context, prefix string, q store.PageQuery) (store.Page[store.User], error) {
	key, err := searchKey(prefix, store.MaxUsername)
	if err != nil {
		return store.Page[store.User]{}, err
	}
	by := prefixRange(key)
	by.Count = searchCandidates
	var names, shown *redis.StringSliceCmd
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		names = pl.ZRangeByLex(ctx, s.keys.Usernames(), by)
		shown = pl.ZRangeByLex(ctx, s.keys.DisplayNames(), by)
		return nil
	})
	if err != nil {
		return store.Page[store.User]{}, s.core.Wrap("search users", err)
	}
	uids := make([]int64, 0, len(names.Val())+len(shown.Val()))
	byName := make(map[int64]bool, len(names.Val()))
	for _, m := range names.Val() {
		if i := strings.LastIndexByte(m, ':'); i >= 0 {
			uid := parseID(m[i+1:])
			byName[uid] = true
			uids = append(uids, uid)
		}
	}
	for _, m := range shown.Val() {
		if i := strings.LastIndexByte(m, ':'); i >= 0 {
			if uid := parseID(m[i+1:]); !byName[uid] && !slices.Contains(uids, uid) {
				uids = append(uids, uid)
			}
		}
	}
	if uids, err = s.unhidden(ctx, uids, q.Viewer); err != nil {
		return store.Page[store.User]{}, err
	}
	uids, err = s.byFans(ctx, uids, q.Size())
	if err != nil {
		return store.Page[store.User]{}, err
	}
	users, err := s.core.Users(ctx, uids, q.Viewer)
	out := users[:0]
	for _, u := range users {
		if byName[u.ID] || strings.HasPrefix(store.TagKey(u.DisplayName), key) {
			out = append(out, u)
		}
	}
	return store.Page[store.User]{Items: out}, err
}

// unhidden are those of uids whom viewer may meet in a list of users:
// neither blocking nor blocked (store.Lens).
func (s *Social) unhidden(ctx context.Context, uids []int64, viewer int64) ([]int64, error) {
	return s.unhiddenAt(ctx, uids, viewer, store.InView)
}

// unhiddenAt is unhidden at a place of the lens: at store.InFeed (what is
// offered unasked, as suggestions are) the muted leave too.
func (s *Social) unhiddenAt(ctx context.Context, uids []int64, viewer int64, at store.Place) ([]int64, error) {
	lens, err := s.lens(ctx, viewer)
	if err != nil || lens == nil {
		return uids, err
	}
	out := uids[:0:0]
	for _, u := range uids {
		if !lens.HidesUser(u, at) {
			out = append(out, u)
		}
	}
	return out, nil
}

// byFans orders uids by follower count, most first, and keeps limit.
func (s *Social) byFans(ctx context.Context, uids []int64, limit int) ([]int64, error) {
	cmds := make([]*redis.IntCmd, len(uids))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, u := range uids {
			cmds[i] = pl.ZCard(ctx, s.keys.Fans(u))
		}
		return nil
	})
	if err != nil {
		return nil, s.core.Wrap("rank users", err)
	}
	fans := make(map[int64]int64, len(uids))
	for i, u := range uids {
		fans[u] = cmds[i].Val()
	}
	slices.SortStableFunc(uids, func(a, b int64) int { return int(fans[b] - fans[a]) })
	return uids[:min(limit, len(uids))], nil
}

// Topic suggestions list only the topics with a post the reader may see
// (CONTRACT.md §17): a topic is free text, and one that only a protected
// or suspended account used, or only one that blocks the reader or is
// blocked, would tell what it wrote. Trends leave such authors out by the
// same rule (trends.go); here each reader gets its own answer, by
// store.Lens at InSearch: a protected author's topics for itself and its
// approved fans, a suspended author's for nobody else, a blocked or
// blocking author's (and a muted one's) not when theirs are all that was
// read.
const (
	// tagProbe is how many of a topic's newest posts a suggestion reads:
	// to find one the reader may see, and to count those it may. They are
	// read in one round trip for a page of topics (and from the archive
	// for a topic whose posts have left Redis).
	tagProbe = 10
	// tagChecks bounds the topics one suggestion reads, in pages of
	// limit: twice limit, so that a page comes back short only for a
	// reader who may see few of the topics.
	tagChecks = 2
)

// SearchTags are the topics that start with prefix (in any letter case)
// with a post q.Viewer may see, carried by most posts first, at most
// q.Size(). Candidates are read most posted first, a page at a time.
//
// The count shown is the topic's count of posts only when every post read
// of it (its tagProbe newest) is one the reader may see; else it is the
// number of those the reader may see. So a hidden post among the newest
// changes nothing the reader is shown; one older than tagProbe visible
// posts of the topic is still counted, which tells that the topic has
// some post the reader cannot see, but neither what nor whose (the topic
// itself is public by then).
func (s *Social) SearchTags(ctx context.Context, prefix string, q store.PageQuery) ([]store.TagCount, error) {
	key, err := searchKey(prefix, store.MaxTagLen)
	if err != nil {
		return nil, err
	}
	by := prefixRange(key)
	by.Count = searchCandidates
	tags, err := s.rdb.ZRangeByLex(ctx, s.keys.TagNames(), by).Result()
	if err != nil || len(tags) == 0 {
		return []store.TagCount{}, s.core.Wrap("search topics", err)
	}
	counts, err := s.rdb.ZMScore(ctx, s.keys.TagCounts(), tags...).Result()
	if err != nil {
		return nil, s.core.Wrap("search topics", err)
	}
	cands := make([]store.TagCount, 0, len(tags))
	for i, t := range tags {
		if counts[i] > 0 {
			cands = append(cands, store.TagCount{Tag: t, PostsCount: int64(counts[i])})
		}
	}
	slices.SortStableFunc(cands, func(a, b store.TagCount) int { return int(b.PostsCount - a.PostsCount) })
	limit := q.Size()
	out := make([]store.TagCount, 0, limit)
	for checks := tagChecks * limit; len(out) < limit && checks > 0 && len(cands) > 0; {
		n := min(limit-len(out), checks, len(cands))
		seen, err := s.seenTags(ctx, cands[:n], q.Viewer)
		if err != nil {
			return nil, err
		}
		out = append(out, seen...)
		cands, checks = cands[n:], checks-n
	}
	slices.SortStableFunc(out, func(a, b store.TagCount) int { return int(b.PostsCount - a.PostsCount) })
	return out, nil
}

// seenTags are those of tags with a post among their tagProbe newest that
// viewer may see in search, with the count SearchTags shows.
func (s *Social) seenTags(ctx context.Context, tags []store.TagCount, viewer int64) ([]store.TagCount, error) {
	cmds := make([]*redis.StringSliceCmd, len(tags))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, t := range tags {
			cmds[i] = pl.ZRevRange(ctx, s.keys.TagPosts(t.Tag), 0, tagProbe-1)
		}
		return nil
	})
	if err != nil {
		return nil, s.core.Wrap("search topics", err)
	}
	ids := make([][]int64, len(tags))
	var all []int64
	for i, t := range tags {
		ids[i] = schema.ParseIDs(cmds[i].Val())
		// T: holds the hot posts; the archive, all of them.
		if n := len(ids[i]); n < tagProbe && int64(n) < t.PostsCount && s.opt.Archive != nil {
			older, err := s.core.ArchiveTail(store.ArchiveQuery{Tag: t.Tag})(ctx, 0, 0, tagProbe)
			if err != nil {
				return nil, err
			}
			ids[i] = reqpath.MergeNewest(ids[i], older, tagProbe)
		}
		all = append(all, ids[i]...)
	}
	posts, err := s.core.Posts(ctx, all, 0)
	if err != nil {
		return nil, err
	}
	gone := make([]bool, len(posts))
	for i, p := range posts {
		// A topic's comments (post_comment_tags.go) neither suggest it
		// nor count: as if not there.
		if gone[i] = p == nil || p.Kind == store.KindComment; gone[i] {
			posts[i] = nil
		}
	}
	if err := s.sieve(ctx, posts, viewer, store.InSearch); err != nil {
		return nil, err
	}
	var out []store.TagCount
	next := 0
	for i, t := range tags {
		var seen, hidden int64
		for j := next; j < next+len(ids[i]); j++ {
			switch {
			case posts[j] != nil:
				seen++
			case !gone[j]:
				hidden++
			}
		}
		next += len(ids[i])
		if seen == 0 {
			continue
		}
		if hidden > 0 {
			t.PostsCount = seen
		}
		out = append(out, t)
	}
	return out, nil
}

// Suggestions are the most followed local users q.Viewer does not follow
// yet, none suspended.
func (s *Social) Suggestions(ctx context.Context, q store.PageQuery) (store.Page[store.User], error) {
	limit := q.Size()
	top, err := s.rdb.ZRevRange(ctx, s.keys.Popular(), 0, int64(3*limit+10)).Result()
	if err != nil {
		return store.Page[store.User]{}, s.core.Wrap("suggestions", err)
	}
	candidates := schema.ParseIDs(top)
	if q.Viewer > 0 && len(candidates) > 0 {
		follows, err := s.rdb.ZMScore(ctx, s.keys.Stars(q.Viewer), top...).Result()
		if err != nil {
			return store.Page[store.User]{}, s.core.Wrap("suggestions", err)
		}
		candidates = candidates[:0]
		for i, t := range top {
			if u := parseID(t); follows[i] == 0 && u != q.Viewer {
				candidates = append(candidates, u)
			}
		}
	}
	if candidates, err = s.unhiddenAt(ctx, candidates, q.Viewer, store.InFeed); err != nil {
		return store.Page[store.User]{}, err
	}
	// Read a few more than asked, since some may not be suggested: a
	// suspended account, or one of another server (federation): those are
	// found by name@domain, not suggested (their popularity here counts
	// only local followers, and their server's moderation is not ours, nor
	// may an operator's domain block let any show).
	users, err := s.core.Users(ctx, candidates[:min(limit+limit/2+2, len(candidates))], q.Viewer)
	users = slices.DeleteFunc(users, func(u store.User) bool {
		return u.Suspended || u.Remote || strings.Contains(u.Username, "@")
	})
	return store.Page[store.User]{Items: users[:min(limit, len(users))]}, err
}
