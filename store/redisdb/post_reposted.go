package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// A reader's reposts (Post.Reposted, and taking one back). Each user's
// user:userid:<uid>:reposts names the posts it reposted, so that a page
// says which of its posts its reader reposted with one ZMSCORE beside the
// likes' (loadPostsHot), whatever the page holds. The repost itself stays
// recorded where it always was, in reposts:<orig> (one per user, kept by
// repost_add.lua): that set decides, and this one follows it.
//
// A repost is added here once it stands (Create, after its write: the
// loser of two sent at once, and a write taken out again, never are), in
// a round trip of reposts alone; plain posts pay nothing. Should that
// round trip fail, the reader's next repost of the post, refused as
// already made, adds it (healReposted). Delete takes it out with the
// repost's other index entries.

// recordRepost adds the repost of d, which stands, to its author's reposts.
func (s *Store) recordRepost(ctx context.Context, d *draft) {
	if d.orig == nil {
		return
	}
	s.healReposted(ctx, d.np.Author, d.orig.ID, d.post.ID)
}

// healReposted records that uid's repost mid of orig stands.
func (s *Store) healReposted(ctx context.Context, uid, orig, mid int64) {
	err := s.rdb.ZAdd(ctx, s.keys.UserReposts(uid), redis.Z{Score: float64(mid), Member: orig}).Err()
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "record repost", "user", uid, "post", orig, "repost", mid, "err", err)
	}
}

// Unrepost deletes uid's repost of mid (or, when mid is a repost, of its
// original), if there is one: idempotent. A post uid may not see is not
// found, whether uid reposted it or not.
func (s *Store) Unrepost(ctx context.Context, uid, mid int64) error {
	p, err := s.Post(ctx, mid, uid)
	if err != nil {
		return err
	}
	orig := p.ID
	if p.RepostOf != nil {
		orig = p.RepostOf.ID
	}
	mine, err := s.RepostsBy(ctx, uid, []int64{orig})
	if err != nil {
		return err
	}
	// A delete once begun is carried through, as Delete's callers do.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	if mine[0] == 0 { // none recorded: drop any stale mark of one
		return s.Wrap("unrepost", s.rdb.ZRem(ctx, s.keys.UserReposts(uid), orig).Err())
	}
	if err := s.Delete(ctx, uid, mine[0]); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// setReposted sets Reposted on the posts of out (loaded for a reader) from
// the reply of the ZMSCORE of the reader's reposts over mids, and on each
// repost that of its original (complete does, once it has them).
func setReposted(out []*store.Post, scores []float64) {
	for i, p := range out {
		if p != nil {
			p.Reposted = &repostedNo
			if i < len(scores) && scores[i] != 0 {
				p.Reposted = &repostedYes
			}
		}
	}
}

// repostedYes and repostedNo are what every Post.Reposted read points at
// (never written through): a page's flags cost no allocation each.
var repostedYes, repostedNo = true, false
