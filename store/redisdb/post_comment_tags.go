package redisdb

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Comments carry topics too (Mastodon's replies carry hashtags): a comment
// with #topic# is in the topic's T: set beside its posts, so the topic's
// page (both APIs) lists it, and goes out live on the public channel for
// the hashtag streams, as Mastodon's FanOutOnWriteService sends a reply to
// its hashtags' streams. It counts neither in the topic's count nor in
// trends, which stay of posts, and it stays out of the home timeline
// (store.InHome), into which a followed topic's set is merged, and out of
// the public timeline and streams: a thread's replies live under its
// post, and the public timeline is everyone's posts.
//
// What a reader may see of a comment on a topic's page is what it may see
// of it opened on its own (Store.Post): the comment, and the post its
// thread hangs from (visibleThreads); live, the public channel carries only
// comments whose thread hangs from a public post, and names that post's
// author (threadAuthorField) for the hub's blocks.

// threadAuthorField is the field of a comment's live frame on the public
// channel that names the author of its thread's post: {"id": uid}.
const threadAuthorField = "thread_author"

// queueCommentTags adds comment mid to (delta 1) or takes it from (-1)
// the T: set of each of its topics, without counting it (nor naming the
// topic for suggestions, which are of topics with posts).
func (s *Store) queueCommentTags(ctx context.Context, pl redis.Pipeliner, tags []string, mid int64, delta int) {
	for _, key := range schema.TagKeys(tags) {
		if delta > 0 {
			pl.ZAdd(ctx, s.keys.TagPosts(key), redis.Z{Score: float64(mid), Member: mid})
		} else {
			pl.ZRem(ctx, s.keys.TagPosts(key), mid)
		}
	}
}

// threadPost is the post that the thread of a comment on parent hangs
// from, its author filled in (protected, suspended): parent itself when it
// is a post, else found by going up from it, a round trip a level. Only a
// comment with topics asks, to know whether its live events may go public.
// filled says parent's author is filled in already (as a write loads it):
// then a comment on a post costs nothing more.
func (s *Store) threadPost(ctx context.Context, parent *store.Post, filled bool) (*store.Post, error) {
	p := parent
	for depth := 0; p.ParentID != nil; depth++ {
		if depth >= schema.MaxThreadDepth {
			return nil, store.ErrPostNotFound
		}
		up, err := s.message(ctx, *p.ParentID)
		if err != nil {
			return nil, err
		}
		p = up
	}
	if p == parent && filled {
		return p, nil
	}
	if err := s.fillAuthors(ctx, []*store.Post{p}, 0); err != nil {
		return nil, err
	}
	return p, nil
}

// commentWentPublic tells whether comment m's live event went out on the
// public channel (publicComment), for its delete to follow it there: read
// only for a comment with topics.
func (s *Store) commentWentPublic(ctx context.Context, m *store.Post) bool {
	if m.ParentID == nil || len(m.Tags) == 0 || m.Author.Protected {
		return false
	}
	parent, err := s.message(ctx, *m.ParentID)
	if err != nil {
		return false
	}
	root, err := s.threadPost(ctx, parent, false)
	return err == nil && !root.Author.Protected && !root.Author.Suspended
}

// publicComment is the data of comment p's frames (raw, as its other
// events carry it) on the public channel, nil when it goes nowhere public:
// it carries no topic, or its author or the author of its thread's post
// (root) is protected or suspended. It names root's author, so that the
// hub keeps the comment from whoever is across a block from them.
func publicComment(p store.Post, raw []byte, root *store.Post) []byte {
	if len(p.Tags) == 0 || root == nil || p.Author.Protected || p.Author.Suspended ||
		root.Author.Protected || root.Author.Suspended || len(raw) < 2 || raw[len(raw)-1] != '}' {
		return nil
	}
	data := make([]byte, 0, len(raw)+40)
	data = append(data, raw[:len(raw)-1]...)
	data = append(data, `,"`+threadAuthorField+`":{"id":`...)
	data = strconv.AppendInt(data, root.Author.ID, 10)
	return append(data, "}}"...)
}

// visibleThreads takes out of posts (setting them nil) the comments whose
// thread viewer may not see: its post is gone, or hidden from viewer
// (InView: blocks, protected and suspended authors), as Store.Post rules
// for a comment opened on its own. It costs nothing for a page without
// comments, and a round trip a level of the threads plus one for the
// posts they hang from for one with some.
func (s *Store) visibleThreads(ctx context.Context, posts []*store.Post, viewer int64) error {
	type walk struct {
		i  int   // the comment's place in posts
		at int64 // the message reached so far up its thread
	}
	var walks []walk
	for i, p := range posts {
		if p != nil && p.ParentID != nil {
			walks = append(walks, walk{i, *p.ParentID})
		}
	}
	if len(walks) == 0 {
		return nil
	}
	rootOf := make(map[int]int64, len(walks))
	for depth := 0; len(walks) > 0; depth++ {
		if depth >= schema.MaxThreadDepth {
			for _, w := range walks {
				posts[w.i] = nil
			}
			break
		}
		mids := make([]int64, len(walks))
		for j, w := range walks {
			mids[j] = w.at
		}
		ups, err := s.loadPosts(ctx, mids, 0)
		if err != nil {
			return err
		}
		next := walks[:0]
		for j, w := range walks {
			switch up := ups[j]; {
			case up == nil: // the thread was taken down
				posts[w.i] = nil
			case up.ParentID == nil:
				rootOf[w.i] = up.ID
			default:
				next = append(next, walk{w.i, *up.ParentID})
			}
		}
		walks = next
	}
	if len(rootOf) == 0 {
		return nil
	}
	var mids []int64
	for _, mid := range rootOf {
		mids = append(mids, mid)
	}
	rs, err := s.posts(ctx, mids, viewer)
	if err != nil {
		return err
	}
	if err := s.sieve(ctx, rs, viewer, store.InView); err != nil {
		return err
	}
	seen := make(map[int64]bool, len(rs))
	for _, r := range rs {
		if r != nil {
			seen[r.ID] = true
		}
	}
	for i, mid := range rootOf {
		if !seen[mid] {
			posts[i] = nil
		}
	}
	return nil
}
