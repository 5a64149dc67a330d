package social

import (
	"context"

	"microblog/store"
)

// Where likes live. While a message is hot, its likers are the ZSET
// likes:<mid> (its size the hash's likes_count) and each liker's own set
// user:userid:<uid>:likes holds it; every like and unlike is queued for the
// archive too. When the archiver moves the message out of Redis, and only
// once the archive holds every like of that set (runner/archiver_evict.go), the
// set goes with the hash and the message leaves its likers' own sets: from
// then on the archive alone has its likes, and a like or an unlike of it is
// written there at once (likeArchived). So a reader counts a hot message's
// likes in Redis and an archived one's in the archive, and asks each whether
// the reader likes it.
//
// The archive gets the likes and unlikes out of order: the archivers of
// several processes save their batches side by side, a batch left by a
// killed process is taken over later, and an archived message's like is
// written at once while older entries may still wait in the queue. So each
// like and unlike carries a version (likeVersion), and the archive applies
// one only if it is not older than the newest it saved for that user and
// message (store.Archive's SaveLikes).
//
// The version is not archive:queue's entry id, though that is monotonic,
// because the entry is not added in one step with the like: on a cluster
// the queue and likes:<mid> are on different masters, so the order of the
// entries of one pair can differ from the order the likes were made in.
// It is the time of the action, in microseconds, from the clock of the
// process that takes it, made strictly increasing within the process
// (likeVersion); and while the message is hot, the like's script raises it
// above the newest version given to any like or unlike of the message
// (the hash's like_version field), should another process's clock run
// ahead. So the versions of a hot message's actions follow the order Redis
// took them in, which is the order of the likes in Redis: a like made
// through one process and undone a moment later through another, whose
// clock is behind, is undone in the archive too. A raised version is
// queued for the archive again (the first entry, with the process's
// version, is older, and changes nothing the raised one would not). An
// entry without a version (queued by an older release) takes its entry
// id's time (entryVersion). An archived message's likes go to the archive
// at once, which orders them in the same way (likeArchived).

// likeVersion returns the version of a like or an unlike taken now: the
// time in microseconds, or one more than the last version it returned when
// the clock has not moved on (or went back).
func (s *Social) likeVersion() int64 {
	for {
		last, now := s.likeVersions.Load(), s.opt.Now().UnixMicro()
		if now <= last {
			now = last + 1
		}
		if s.likeVersions.CompareAndSwap(last, now) {
			return now
		}
	}
}

// likeArchived likes (on) or unlikes an archived message in the archive
// itself, at once, so that the next read counts it (Archive.LikeNow). It
// wins over every action of the pair saved before, at its version or one
// above theirs should another process's clock be ahead; its queue entry,
// sent with it, carries its own version, so saving it changes nothing. It
// returns 1 when the like changed, else 0.
func (s *Social) likeArchived(ctx context.Context, l store.ArchivedLike, on bool) (int64, error) {
	if s.opt.Archive == nil {
		return 0, store.ErrPostNotFound // no hash and no archive: gone
	}
	changed, err := s.opt.Archive.LikeNow(ctx, l, on)
	if err != nil {
		return 0, s.core.Wrap("like: archive", err)
	}
	if !changed {
		return 0, nil
	}
	return 1, nil
}

// archivedLikers is Likers of an archived message: its likes in the
// archive, paged by the same (time, uid) cursor as likes:<mid>.
func (s *Social) archivedLikers(ctx context.Context, mid int64, q store.PageQuery) (store.Page[store.User], error) {
	limit := q.Size()
	likes, err := s.opt.Archive.Likes(ctx, store.LikeQuery{MID: mid, BeforeAt: q.Cursor.Score, BeforeID: q.Cursor.Member, Limit: limit + 1})
	if err != nil {
		return store.Page[store.User]{}, s.core.Wrap("likers: archive", err)
	}
	page := store.Page[store.User]{Items: []store.User{}}
	if len(likes) > limit {
		likes = likes[:limit]
		last := likes[limit-1]
		page.NextCursor = store.NextCursor(store.Cursor{Score: last.At, Member: last.UID})
	}
	uids := make([]int64, len(likes))
	for i, l := range likes {
		uids[i] = l.UID
	}
	users, err := s.core.Users(ctx, uids, q.Viewer)
	if err != nil {
		return store.Page[store.User]{}, err
	}
	page.Items = append(page.Items, users...)
	return page, nil
}

// likedArchived sets Liked on the posts of out read from the archive (the
// indexes cold into mids): whether viewer likes them, as the archive says.
func (s *Social) likedArchived(ctx context.Context, viewer int64, mids, cold []int64, out []*store.Post) error {
	ids := make([]int64, 0, len(cold))
	for _, i := range cold {
		if out[i] != nil {
			ids = append(ids, mids[i])
		}
	}
	if len(ids) == 0 {
		return nil
	}
	liked, err := s.opt.Archive.Liked(ctx, viewer, ids)
	if err != nil {
		return s.core.Wrap("load posts: archive likes", err)
	}
	yes := make(map[int64]bool, len(liked))
	for _, mid := range liked {
		yes[mid] = true
	}
	for _, i := range cold {
		if p := out[i]; p != nil {
			l := yes[p.ID]
			p.Liked = &l
		}
	}
	return nil
}

// likedTail is the part of uid's liked messages that only the archive
// holds, for Liked (keptPage): below the cursor c, newest like first, at
// most n, as (mid, when) pairs.
func (s *Social) likedTail(uid int64) keptTail {
	if s.opt.Archive == nil {
		return nil
	}
	return func(ctx context.Context, c store.Cursor, n int) (mids, scores []int64, err error) {
		likes, err := s.opt.Archive.Likes(ctx, store.LikeQuery{UID: uid, BeforeAt: c.Score, BeforeID: c.Member, Limit: n})
		if err != nil {
			return nil, nil, s.core.Wrap("liked: archive", err)
		}
		for _, l := range likes {
			mids, scores = append(mids, l.MID), append(scores, l.At)
		}
		return mids, scores, nil
	}
}
