package runner

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb"

	"microblog/store/redisdb/schema"
)

// likeAt likes (or unlikes) and fails the test if that fails; a millisecond
// apart, so that likes are ordered by time.
func (s testStore) likeAt(uid, mid int64, on bool) {
	s.t.Helper()
	time.Sleep(2 * time.Millisecond)
	if err := s.Like(s.ctx, uid, mid, on); err != nil {
		s.t.Fatalf("like %d by %d (%v): %v", mid, uid, on, err)
	}
}

// inRedis tells which of a message's likes and topic keys (and its likers'
// entries of it) are still in Redis.
func (s testStore) inRedis(mid int64, tag string, likers ...int64) []string {
	var out []string
	if s.rdb.Exists(s.ctx, s.keys.Post(mid)).Val() == 1 {
		out = append(out, "B")
	}
	if s.rdb.Exists(s.ctx, s.keys.Likes(mid)).Val() == 1 {
		out = append(out, "likes")
	}
	if _, err := s.rdb.ZScore(s.ctx, s.keys.TagPosts(tag), id(mid)).Result(); err == nil {
		out = append(out, "T:"+tag)
	}
	for _, uid := range likers {
		if _, err := s.rdb.ZScore(s.ctx, s.keys.UserLikes(uid), id(mid)).Result(); err == nil {
			out = append(out, fmt.Sprint("liked by ", uid))
		}
	}
	return out
}

// checkArchivedLikes checks what readers see of post mid, archived: its
// count, who likes it (newest first) and whether each of them and the
// others like it.
func (s testStore) checkArchivedLikes(when string, mid int64, likers []int64, others ...int64) {
	s.t.Helper()
	p, err := s.Post(s.ctx, mid, 0)
	if err != nil || p.LikesCount != int64(len(likers)) {
		s.t.Fatalf("%s: post %d has %d likes (%v), want %d", when, mid, p.LikesCount, err, len(likers))
	}
	page, err := s.Likers(s.ctx, mid, store.PageQuery{Limit: 1})
	var got []int64
	for err == nil {
		for _, u := range page.Items {
			got = append(got, u.ID)
		}
		if page.NextCursor == nil {
			break
		}
		var q store.PageQuery
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err == nil {
			q.Limit = 1
			page, err = s.Likers(s.ctx, mid, q)
		}
	}
	if err != nil || !slices.Equal(got, likers) {
		s.t.Fatalf("%s: likers of %d = %v (%v), want %v", when, mid, got, err, likers)
	}
	for _, uid := range append(slices.Clone(likers), others...) {
		p, err := s.Post(s.ctx, mid, uid)
		want := slices.Contains(likers, uid)
		if err != nil || p.Liked == nil || *p.Liked != want {
			s.t.Fatalf("%s: post %d read by %d: liked %v (%v), want %v", when, mid, uid, p.Liked, err, want)
		}
		liked, err := s.Liked(s.ctx, uid, store.PageQuery{Limit: 50})
		if err != nil || slices.Contains(ids(liked.Items), mid) != want {
			s.t.Fatalf("%s: %d's liked list %v (%v) holds %d: want %v", when, uid, ids(liked.Items), err, mid, want)
		}
	}
}

// newSteppedStore is a test store with a hot window of 2 and the archive
// at dsn, and an archiver that does not run: the test runs its steps.
func newSteppedStore(t *testing.T, dsn string) (testStore, *Archiver, *archive.DB) {
	t.Helper()
	db, err := archive.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := newTestStoreWith(t, redisdb.Options{HotWindow: 2, Archive: db})
	return s, NewArchiver(s.Store, ArchiverOptions{}), db
}

// TestArchiveLikesAndTopicsLeaveRedis: a liked, tagged post that leaves
// the hot window leaves no likes set, topic entry or likers' entry in
// Redis; its count, likers, liked-by-me, its likers' liked lists and its
// topic's page are still right, read from the archive, and so they stay
// after likes and unlikes of it, which create no key in Redis again.
func TestArchiveLikesAndTopicsLeaveRedis(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			const window = 3
			s := newArchivedStore(t, e.dsn(t), redisdb.Options{HotWindow: window})
			writer, fan, other, late := s.user("writer"), s.user("fan"), s.user("other"), s.user("late")
			first := s.post(store.NewPost{Author: writer, Content: "hello #Go and #话题"}).ID
			s.likeAt(fan, first, true)
			s.likeAt(other, first, true)
			topic := []int64{first}
			for i := range 10 {
				content := fmt.Sprintf("post %d", i)
				if i%2 == 0 {
					content += " #go"
				}
				mid := s.post(store.NewPost{Author: writer, Content: content}).ID
				if i%2 == 0 {
					topic = append(topic, mid)
				}
			}
			s.archived()
			if left := s.inRedis(first, "go", fan, other); len(left) != 0 {
				t.Fatalf("the archived post leaves in Redis: %v", left)
			}
			s.checkArchivedLikes("archived", first, []int64{other, fan}, late, writer)
			slices.Reverse(topic)
			for _, tag := range []string{"go", "GO"} {
				if got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) { return s.TagPosts(s.ctx, tag, q) }); !slices.Equal(got, topic) {
					t.Fatalf("topic %s: %v, want %v", tag, got, topic)
				}
			}
			if page, err := s.TagPosts(s.ctx, "话题", store.PageQuery{}); err != nil || !slices.Equal(ids(page.Items), []int64{first}) {
				t.Fatalf("topic 话题: %v, %v", ids(page.Items), err)
			}

			// Likes and unlikes of the archived post, right at once and once
			// their queue entries are archived too.
			s.likeAt(late, first, true)
			s.likeAt(late, first, true) // no change
			s.likeAt(fan, first, false)
			s.likeAt(fan, first, false) // no change
			s.checkArchivedLikes("after likes and unlikes", first, []int64{late, other}, fan, writer)
			s.archived()
			s.checkArchivedLikes("once archived", first, []int64{late, other}, fan, writer)
			if left := s.inRedis(first, "go", fan, other, late); len(left) != 0 {
				t.Fatalf("likes of the archived post put back in Redis: %v", left)
			}

			// An edit of the archived post moves it between topics.
			if _, err := s.Edit(s.ctx, writer, first, "now #rust"); err != nil {
				t.Fatal(err)
			}
			if page, err := s.TagPosts(s.ctx, "rust", store.PageQuery{}); err != nil || !slices.Equal(ids(page.Items), []int64{first}) {
				t.Fatalf("topic rust after the edit: %v, %v", ids(page.Items), err)
			}
			if page, err := s.TagPosts(s.ctx, "话题", store.PageQuery{}); err != nil || len(page.Items) != 0 {
				t.Fatalf("topic 话题 after the edit: %v, %v", ids(page.Items), err)
			}
			tags, err := s.SearchTags(s.ctx, "r", store.PageQuery{Limit: 5})
			if err != nil || len(tags) != 1 || tags[0].PostsCount != 1 {
				t.Fatalf("topics after the edit: %+v, %v", tags, err)
			}
			if left := s.inRedis(first, "rust"); len(left) != 0 {
				t.Fatalf("the edit put the archived post back in Redis: %v", left)
			}
		})
	}
}

// TestArchiveEvictStepsTwice: the archiver's steps run again after a crash
// at any point lose no like and no topic entry, and leave nothing behind:
// the archive saved but Redis untouched; the message's hash and likes gone
// but its topic and likers' entries still there; and a like still on its
// way to the archive, which keeps the post in Redis until it is there.
func TestArchiveEvictStepsTwice(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			s, a, _ := newSteppedStore(t, e.dsn(t))
			writer, fan, other := s.user("writer"), s.user("fan"), s.user("other")
			first := s.post(store.NewPost{Author: writer, Content: "#crash test"}).ID
			s.likeAt(fan, first, true)
			s.likeAt(other, first, true)
			for i := range 4 {
				s.post(store.NewPost{Author: writer, Content: fmt.Sprint("later ", i)})
			}
			s.settle()
			entries, err := s.rdb.XRange(s.ctx, s.keys.ArchiveQueue(), "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			b := a.parse(entries)

			// The like of other still on its way: the posts are archived, the
			// likes not all; the post stays hot, with its likes.
			b2 := b
			b2.likes = slices.DeleteFunc(slices.Clone(b.likes), func(l store.ArchivedLike) bool { return l.UID == other })
			if !a.save(s.ctx, b2) {
				t.Fatal("save")
			}
			if err := a.evict(s.ctx, b2); err != nil {
				t.Fatal(err)
			}
			if left := s.inRedis(first, "crash", fan, other); len(left) != 5 {
				t.Fatalf("with a like not archived, Redis holds %v of the post; want all of it", left)
			}

			// A crash after the archive write: the batch runs again, twice.
			if !a.save(s.ctx, b) {
				t.Fatal("save")
			}
			// A crash in the middle of the Redis step: the hash and likes
			// went, the topic and likers' entries not yet.
			states, err := a.inspect(s.ctx, []int64{first})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.leave(s.ctx, states); err != nil {
				t.Fatal(err)
			}
			if left := s.inRedis(first, "crash", fan, other); !slices.Equal(left, []string{"T:crash", "liked by " + id(fan), "liked by " + id(other)}) {
				t.Fatalf("after step 1, Redis holds %v of the post", left)
			}
			for range 2 {
				a.do(s.ctx, entries)
			}
			if left := s.inRedis(first, "crash", fan, other); len(left) != 0 {
				t.Fatalf("after the batch ran again, Redis still holds %v of the post", left)
			}
			s.checkArchivedLikes("after the batch ran again", first, []int64{other, fan}, writer)
			if page, err := s.TagPosts(s.ctx, "crash", store.PageQuery{}); err != nil || !slices.Equal(ids(page.Items), []int64{first}) {
				t.Fatalf("topic crash: %v, %v", ids(page.Items), err)
			}
		})
	}
}

// TestMigrateArchivedLikes: what an older archiver left in Redis of a
// liked, tagged post it archived (its likes set, topic entry and likers'
// entries, as KeepLikesAndTopics leaves them) goes with schema 7, the
// archive taking the set's likes, and the post's likes and topic read as
// before; a hot post keeps all of it.
func TestMigrateArchivedLikes(t *testing.T) {
	parallel(t)
	s, a, db := newSteppedStore(t, archivetest.SQLite(t))
	a.opt.KeepLikesAndTopics = true // the archiver before schema 7
	writer, fan, other := s.user("writer"), s.user("fan"), s.user("other")
	first := s.post(store.NewPost{Author: writer, Content: "old #news"}).ID
	s.likeAt(fan, first, true)
	s.likeAt(other, first, true)
	var hot int64
	for i := range 3 {
		hot = s.post(store.NewPost{Author: writer, Content: fmt.Sprint("later #news ", i)}).ID
	}
	s.likeAt(fan, hot, true)
	s.settle()
	entries, err := s.rdb.XRange(s.ctx, s.keys.ArchiveQueue(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	a.do(s.ctx, entries)
	if left := s.inRedis(first, "news", fan, other); !slices.Equal(left, []string{"likes", "T:news", "liked by " + id(fan), "liked by " + id(other)}) {
		t.Fatalf("the older archiver left %v of the post in Redis", left)
	}
	// The archive and the set disagree (an older archiver saved batches out
	// of order): the set, which readers counted, is what the archive takes.
	if err := db.SaveLikes(s.ctx, []store.ArchivedLike{{MID: first, UID: writer, At: 1}}, []store.ArchivedLike{{MID: first, UID: other}}); err != nil {
		t.Fatal(err)
	}
	s.rdb.Set(s.ctx, s.keys.Schema(), 6, 0)
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatal(err)
	}
	if left := s.inRedis(first, "news", fan, other); len(left) != 0 {
		t.Fatalf("after the migration Redis still holds %v of the archived post", left)
	}
	if left := s.inRedis(hot, "news", fan); len(left) != 4 {
		t.Fatalf("after the migration Redis holds %v of the hot post, want all of it", left)
	}
	s.checkArchivedLikes("migrated", first, []int64{other, fan}, writer)
	if page, err := s.TagPosts(s.ctx, "news", store.PageQuery{}); err != nil || len(page.Items) != 4 || page.Items[3].ID != first {
		t.Fatalf("topic news after the migration: %v, %v", ids(page.Items), err)
	}
}

// TestArchiveLikeInFlightHoldsComment: a comment whose like the archive
// does not have yet stays in Redis when its post leaves, and leaves once
// the batch that saves the like has run.
func TestArchiveLikeInFlightHoldsComment(t *testing.T) {
	parallel(t)
	s, a, _ := newSteppedStore(t, archivetest.SQLite(t))
	writer, fan := s.user("writer"), s.user("fan")
	first := s.post(store.NewPost{Author: writer, Content: "a thread"}).ID
	c := s.post(store.NewPost{Author: fan, Parent: first, Content: "a comment"}).ID
	s.likeAt(writer, c, true)
	for i := range 3 {
		s.post(store.NewPost{Author: writer, Content: fmt.Sprint("later ", i)})
	}
	s.settle()
	entries, err := s.rdb.XRange(s.ctx, s.keys.ArchiveQueue(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var likes, rest []redis.XMessage
	for _, m := range entries {
		if m.Values["op"] == schema.ArchiveLike {
			likes = append(likes, m)
		} else {
			rest = append(rest, m)
		}
	}
	a.do(s.ctx, rest)
	if s.hotHashes([]int64{first}) != 0 || s.hotHashes([]int64{c}) != 1 {
		t.Fatalf("with the comment's like on its way: post hot %d, comment hot %d; want 0 and 1", s.hotHashes([]int64{first}), s.hotHashes([]int64{c}))
	}
	a.do(s.ctx, likes)
	if left := s.inRedis(c, "", writer); len(left) != 0 {
		t.Fatalf("once its like is archived, Redis still holds %v of the comment", left)
	}
	s.checkArchivedLikes("comment", c, []int64{writer}, fan)
}
