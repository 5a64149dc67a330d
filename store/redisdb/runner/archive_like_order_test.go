package runner

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb"
)

// TestArchiveLikesOutOfOrder: two processes' archivers save the likes and
// unlikes of one user out of order, one taking a batch and stalling while
// the other saves a later one, and one dying with a batch that the other
// takes over after the later ones; once the posts have left Redis, the
// archive reads as the user left them (the undone like gone, the standing
// one there), in the count, the likers and liked-by-me.
func TestArchiveLikesOutOfOrder(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			s, _, db := newSteppedStore(t, e.dsn(t))
			const claimIdle = 50 * time.Millisecond
			first := NewArchiver(s.Store, ArchiverOptions{ClaimIdle: claimIdle})
			second := NewArchiver(redisdb.New(s.rdb, redisdb.Options{HotWindow: 2, Archive: db}), ArchiverOptions{ClaimIdle: claimIdle})
			first.c.createGroup(s.ctx)
			first.c.poll, second.c.poll = true, true
			take := func(a *Archiver) []redis.XMessage {
				t.Helper()
				msgs, err := a.c.read(s.ctx)
				if err != nil || len(msgs) == 0 {
					t.Fatalf("read the archive queue: %d entries, %v", len(msgs), err)
				}
				return msgs
			}
			writer, fan, other := s.user("writer"), s.user("fan"), s.user("other")
			undone := s.post(store.NewPost{Author: writer, Content: "liked, then not"}).ID
			stands := s.post(store.NewPost{Author: writer, Content: "liked, not, liked again"}).ID

			// The first process takes the like and stalls; the second saves
			// the unlike; then the first saves the like, late.
			s.likeAt(fan, undone, true)
			stalled := take(first)
			s.likeAt(fan, undone, false)
			second.do(s.ctx, take(second))
			first.do(s.ctx, stalled)

			// The first process takes a like and its undoing and dies; the
			// second saves the like again, then takes the dead one's batch
			// over.
			s.likeAt(fan, stands, true)
			s.likeAt(fan, stands, false)
			take(first)
			s.likeAt(fan, stands, true)
			s.likeAt(other, stands, true)
			second.do(s.ctx, take(second))
			time.Sleep(2 * claimIdle)
			if err := second.c.reclaim(s.ctx, 100, second.takeOver); err != nil {
				t.Fatal(err)
			}

			s.archiveOut(second, writer, undone, stands)
			s.checkArchivedLikes("undone", undone, nil, fan)
			s.checkArchivedLikes("liked again", stands, []int64{other, fan}, writer)
		})
	}
}

// TestLikesAcrossSkewedClocks: one user's likes of a hot post go through
// two processes, one whose clock runs 2 s ahead. A like through the fast
// one undone a moment later through the slow one is undone in the archive
// too, once the post has left Redis; and a like, an unlike through the
// fast one and a like again through the slow one stands; so again once the
// post is archived. The versions the slow process gives are older than the
// fast one's, so without the message's own order (like_version), and the
// archive's for an archived one (LikeNow), the archive kept the fast one's.
func TestLikesAcrossSkewedClocks(t *testing.T) {
	parallel(t)
	s, archiver, db := newSteppedStore(t, engines[0].dsn(t))
	ahead := storeOn(t, s.rdb, redisdb.Options{HotWindow: 2, Archive: db,
		Now: func() time.Time { return time.Now().Add(2 * time.Second) }})
	writer, fan := s.user("writer"), s.user("fan")
	undone := s.post(store.NewPost{Author: writer, Content: "liked fast, undone slow"}).ID
	stands := s.post(store.NewPost{Author: writer, Content: "liked, undone fast, liked slow"}).ID

	ahead.likeAt(fan, undone, true)
	s.likeAt(fan, undone, false)
	s.likeAt(fan, stands, true)
	ahead.likeAt(fan, stands, false)
	s.likeAt(fan, stands, true)
	s.checkArchivedLikes("in Redis, undone", undone, nil, fan)
	s.checkArchivedLikes("in Redis, liked again", stands, []int64{fan}, writer)

	archiver.c.createGroup(s.ctx)
	archiver.c.poll = true
	s.archiveOut(archiver, writer, undone, stands)
	s.checkArchivedLikes("archived, undone", undone, nil, fan)
	s.checkArchivedLikes("archived, liked again", stands, []int64{fan}, writer)

	// Once archived, the archive takes the likes at once, in the same
	// order.
	ahead.likeAt(fan, undone, true)
	s.likeAt(fan, undone, false)
	ahead.likeAt(fan, stands, false)
	s.likeAt(fan, stands, true)
	s.checkArchivedLikes("liked and undone once archived", undone, nil, fan)
	s.checkArchivedLikes("undone and liked once archived", stands, []int64{fan}, writer)
}

// archiveOut has writer post 3 more, so that mids (2 at most) leave the
// hot window of 2, and a saves the archive queue to its end: mids must
// have left Redis.
func (s testStore) archiveOut(a *Archiver, writer int64, mids ...int64) {
	s.t.Helper()
	for i := range 3 {
		s.post(store.NewPost{Author: writer, Content: fmt.Sprint("later ", i)})
	}
	for {
		msgs, err := a.c.read(s.ctx)
		if err != nil {
			s.t.Fatal(err)
		}
		if len(msgs) == 0 {
			break
		}
		a.do(s.ctx, msgs)
	}
	if n := s.hotHashes(mids); n != 0 {
		s.t.Fatalf("%d of the posts still in Redis", n)
	}
}
