package redisdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb/runner"
	"microblog/store/storetest"
)

// engines are the archives every archive test runs on: the embedded SQLite
// and a real MariaDB server, each started by the test.
var engines = []struct {
	name string
	dsn  func(testing.TB) string
}{
	{"sqlite", archivetest.SQLite},
	{"mariadb", archivetest.MariaDB},
}

// newArchivedStore is a test store with the archive at dsn, its archiver
// running until the test ends.
func newArchivedStore(t *testing.T, dsn string, opt Options) testStore {
	t.Helper()
	db, err := archive.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	opt.Archive = db
	s := newTestStoreWith(t, opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runner.NewArchiver(s.Store, runner.ArchiverOptions{Batch: 40, ClaimIdle: time.Second}).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// archived waits until the fan-out and archive queues are empty.
func (s testStore) archived() {
	s.t.Helper()
	s.settle()
	deadline := time.Now().Add(storetest.HangWait)
	for {
		n, err := s.rdb.XLen(s.ctx, s.keys.ArchiveQueue()).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("archive queue still holds %d entries (%v)", n, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pageAll pages a list to its end with the cursor, 7 at a time, and
// returns every id in order.
func (s testStore) pageAll(page func(store.PageQuery) (store.Page[store.Post], error)) []int64 {
	s.t.Helper()
	var out []int64
	q := store.PageQuery{Limit: 7}
	for range 1000 {
		p, err := page(q)
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, ids(p.Items)...)
		if p.NextCursor == nil {
			return out
		}
		if q.Cursor, err = store.DecodeCursor(*p.NextCursor); err != nil {
			s.t.Fatal(err)
		}
	}
	s.t.Fatal("pages without end")
	return nil
}

// hotHashes counts the messages of mids whose hash is still in Redis.
func (s testStore) hotHashes(mids []int64) int {
	n := 0
	for _, mid := range mids {
		if s.rdb.Exists(s.ctx, s.keys.Post(mid)).Val() == 1 {
			n++
		}
	}
	return n
}

// TestArchiveHotWindow: with a hot window of 50, a user posts 300. Its
// posts, a fan's home timeline and the public timeline page through all 300
// in order, across the seam between Redis and the archive, and Redis keeps
// about 50 of the messages; the oldest post and its comment thread open by
// id, take new comments and likes, and an archived post can be deleted.
func TestArchiveHotWindow(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			const window, total = 50, 300
			s := newArchivedStore(t, e.dsn(t), Options{HotWindow: window})
			writer, fan, other := s.user("writer"), s.user("fan"), s.user("other")
			s.follow(fan, writer)
			var posts []int64
			for i := range total {
				posts = append(posts, s.post(store.NewPost{Author: writer, Content: fmt.Sprintf("post %d 第%d条", i, i)}).ID)
				if i == 0 {
					// A thread on the oldest post while it is hot.
					c := s.post(store.NewPost{Author: other, Parent: posts[0], Content: "first!"})
					s.post(store.NewPost{Author: writer, Parent: c.ID, Content: "thanks"})
					s.post(store.NewPost{Author: other, RepostOf: posts[1-1], Content: "look"})
				}
			}
			s.archived()
			newestFirst := slices.Clone(posts)
			slices.Reverse(newestFirst)

			if got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
				return s.UserPosts(s.ctx, writer, q)
			}); !slices.Equal(got, newestFirst) {
				t.Fatalf("user posts: got %d ids %v..., want the %d posts newest first", len(got), got[:min(10, len(got))], total)
			}
			if got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
				return s.HomeTimeline(s.ctx, fan, q)
			}); !slices.Equal(got, newestFirst) {
				t.Fatalf("fan's home: got %d ids, want the %d posts newest first", len(got), total)
			}
			public := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
				return s.PublicTimeline(s.ctx, q)
			})
			if len(public) != total+1 || !slices.IsSortedFunc(public, func(a, b int64) int { return int(b - a) }) {
				t.Fatalf("public timeline: got %d ids, want %d (the posts and the repost) newest first", len(public), total+1)
			}
			if hot := s.hotHashes(posts); hot > window+5 {
				t.Fatalf("Redis still holds %d of the %d posts' hashes, want about %d", hot, total, window)
			}
			if n := s.rdb.ZCard(s.ctx, s.keys.UserPosts(writer)).Val(); n > window+5 {
				t.Fatalf("F holds %d ids, want about %d", n, window)
			}
			if n := s.rdb.ZCard(s.ctx, s.keys.PublicTimeline()).Val(); n > window+5 {
				t.Fatalf("global:timeline holds %d ids, want about %d", n, window)
			}

			// The oldest post and its thread, from the archive.
			oldest, err := s.Post(s.ctx, posts[0], other)
			if err != nil || oldest.Content != "post 0 第0条" || oldest.CommentsCount != 1 || oldest.RepostsCount != 1 {
				t.Fatalf("oldest post = %+v, %v; want it with 1 comment and 1 repost", oldest, err)
			}
			thread, err := s.Comments(s.ctx, posts[0], store.PageQuery{})
			if err != nil || len(thread.Items) != 1 || thread.Items[0].Content != "first!" {
				t.Fatalf("comments of the oldest = %+v, %v", thread.Items, err)
			}
			replies, err := s.Comments(s.ctx, thread.Items[0].ID, store.PageQuery{})
			if err != nil || len(replies.Items) != 1 || replies.Items[0].Content != "thanks" {
				t.Fatalf("replies = %+v, %v", replies.Items, err)
			}
			if hot := s.hotHashes([]int64{thread.Items[0].ID, replies.Items[0].ID}); hot != 0 {
				t.Fatalf("%d hashes of the archived thread are still in Redis", hot)
			}

			// New comments and likes on an archived post.
			late := s.post(store.NewPost{Author: fan, Parent: posts[0], Content: "late to the party"})
			if err := s.Like(s.ctx, fan, posts[0], true); err != nil {
				t.Fatal(err)
			}
			thread, err = s.Comments(s.ctx, posts[0], store.PageQuery{})
			if err != nil || len(thread.Items) != 2 || thread.Items[0].ID != late.ID {
				t.Fatalf("comments after a late one = %v, %v", ids(thread.Items), err)
			}
			s.archived()
			thread, err = s.Comments(s.ctx, posts[0], store.PageQuery{})
			if err != nil || len(thread.Items) != 2 || s.hotHashes([]int64{late.ID}) != 0 {
				t.Fatalf("comments once the late one is archived = %v, %v", ids(thread.Items), err)
			}
			if p, _ := s.Post(s.ctx, posts[0], fan); p.LikesCount != 1 || !*p.Liked || p.CommentsCount != 2 {
				t.Fatalf("archived post after a like and a comment = %+v", p)
			}
			// Likes reach the archive too, hot or archived, and so do unlikes.
			if err := s.Like(s.ctx, other, posts[len(posts)-1], true); err != nil {
				t.Fatal(err)
			}
			if err := s.Like(s.ctx, other, posts[0], true); err != nil {
				t.Fatal(err)
			}
			if err := s.Like(s.ctx, other, posts[0], false); err != nil {
				t.Fatal(err)
			}
			s.archived()
			rows, err := s.opt.Archive.Posts(s.ctx, []int64{posts[0], posts[len(posts)-1]})
			if err != nil || rows[posts[0]].LikesCount != 1 || rows[posts[len(posts)-1]].LikesCount != 1 {
				t.Fatalf("the archive's likes: %+v, %v; want 1 each (fan's; other's on the newest)", rows, err)
			}
			if liked, _ := s.opt.Archive.Liked(s.ctx, fan, []int64{posts[0]}); len(liked) != 1 {
				t.Fatalf("the archive does not know the fan likes the oldest post")
			}
			// A repost of an archived post.
			r := s.post(store.NewPost{Author: other, RepostOf: posts[2], Content: "from the archive"})
			if r.RepostOf == nil || r.RepostOf.Content != "post 2 第2条" {
				t.Fatalf("repost of an archived post = %+v", r)
			}
			if _, err := s.Create(s.ctx, store.NewPost{Author: other, RepostOf: posts[2]}); !errors.Is(err, store.ErrConflict) {
				t.Fatalf("a second repost of an archived post: %v, want already reposted", err)
			}
			s.archived()
			if p, _ := s.Post(s.ctx, posts[2], 0); p.RepostsCount != 1 {
				t.Fatalf("archived post after a repost = %+v", p)
			}

			// Deleting an archived post, which someone reposted.
			if err := s.Delete(s.ctx, writer, posts[0]); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Post(s.ctx, posts[0], 0); !errors.Is(err, store.ErrPostNotFound) {
				t.Fatalf("deleted archived post by id: %v, want not found", err)
			}
			check := func(when string) {
				t.Helper()
				got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
					return s.UserPosts(s.ctx, writer, q)
				})
				if len(got) != total-1 || slices.Contains(got, posts[0]) {
					t.Fatalf("%s: user posts hold %d ids (deleted one there: %v)", when, len(got), slices.Contains(got, posts[0]))
				}
				page, err := s.PublicTimeline(s.ctx, store.PageQuery{Limit: 100, Cursor: store.Cursor{Score: posts[5]}})
				if err != nil || len(page.Items) == 0 {
					t.Fatalf("%s: public timeline past the window: %v", when, err)
				}
				for _, p := range page.Items {
					if p.ID == posts[0] {
						t.Fatalf("%s: deleted post on the public timeline", when)
					}
					if p.RepostOf != nil && p.RepostOf.ID == posts[0] && !p.RepostOf.Deleted {
						t.Fatalf("%s: repost of a deleted post shows it: %+v", when, p.RepostOf)
					}
				}
			}
			check("before the archive has the delete")
			s.archived()
			check("after")
			if s.rdb.Exists(s.ctx, s.keys.Post(posts[0])).Val() != 0 {
				t.Fatal("the tombstone stays in Redis after the archive has the delete")
			}
			if err := s.Delete(s.ctx, writer, posts[0]); !errors.Is(err, store.ErrPostNotFound) {
				t.Fatalf("second delete: %v, want not found", err)
			}
		})
	}
}

// TestArchiveReturningFanSeesEverything: a fan away while its star posts
// more than a hot window comes back to a home timeline with every post, in
// order: its G is cut where the star's archived posts begin, and the pull
// tail carries on from there.
func TestArchiveReturningFanSeesEverything(t *testing.T) {
	parallel(t)
	clock := time.UnixMilli(1_800_000_000_000)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{HotWindow: 20, InactiveAfter: time.Hour,
		Now: func() time.Time { return clock }})
	star, quiet, fan := s.user("star"), s.user("quiet"), s.user("fan")
	s.follow(fan, star)
	s.follow(fan, quiet)
	var want []int64
	for i := range 10 {
		want = append(want, s.post(store.NewPost{Author: quiet, Content: fmt.Sprint("quiet ", i)}).ID)
	}
	if _, err := s.HomeTimeline(s.ctx, fan, store.PageQuery{}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(2 * time.Hour) // the fan is away
	for i := range 60 {
		want = append(want, s.post(store.NewPost{Author: star, Content: fmt.Sprint("star ", i)}).ID)
	}
	s.archived()
	slices.Reverse(want)
	got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
		return s.HomeTimeline(s.ctx, fan, q)
	})
	if !slices.Equal(got, want) {
		t.Fatalf("home after an absence: got %v, want %v", got, want)
	}
}

// TestArchiveDownOnlyDelays: with the archive's MariaDB killed, posting goes
// on, the archive queue grows, pages within the hot window still read, and a
// page that needs the archive says it is unavailable (never a wrong page);
// once the database is back, everything is archived and pages run through.
func TestArchiveDownOnlyDelays(t *testing.T) {
	parallel(t)
	db := archivetest.StartMariaDB(t)
	s := newArchivedStore(t, db.NewDatabase(t), Options{HotWindow: 10})
	u := s.user("writer")
	var want []int64
	for i := range 15 {
		want = append(want, s.post(store.NewPost{Author: u, Content: fmt.Sprint("before ", i)}).ID)
	}
	s.archived()

	db.Kill()
	for i := range 30 {
		want = append(want, s.post(store.NewPost{Author: u, Content: fmt.Sprint("while down ", i)}).ID)
	}
	if n := s.rdb.XLen(s.ctx, s.keys.ArchiveQueue()).Val(); n < 30 {
		t.Fatalf("archive queue holds %d entries with the archive down, want 30", n)
	}
	if on, err := s.PingArchive(s.ctx); !on || !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("PingArchive with the archive down = %v, %v", on, err)
	}
	first, err := s.UserPosts(s.ctx, u, store.PageQuery{Limit: 20})
	if err != nil || len(first.Items) != 20 || first.Items[0].ID != want[len(want)-1] {
		t.Fatalf("a hot page with the archive down: %v, %v", ids(first.Items), err)
	}
	if _, err := s.UserPosts(s.ctx, u, store.PageQuery{Limit: 20, Cursor: store.Cursor{Score: want[16]}}); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a page past the window with the archive down: %v, want unavailable", err)
	}

	db.Restart(t)
	s.archived()
	slices.Reverse(want)
	if got := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) {
		return s.UserPosts(s.ctx, u, q)
	}); !slices.Equal(got, want) {
		t.Fatalf("after the archive came back: %v, want %v", got, want)
	}
	if hot := s.hotHashes(want); hot > 10 {
		t.Fatalf("%d hashes still in Redis once archived, want 10", hot)
	}
}

// TestArchiveRepostOnce: a repost that has left Redis for the archive still
// counts as the user's one repost of the original; once deleted (its hash a
// tombstone until the archive has the delete) the user may repost again.
func TestArchiveRepostOnce(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{HotWindow: 10})
	author, reposter := s.user("author"), s.user("reposter")
	orig := s.post(store.NewPost{Author: author, Content: "worth sharing"})
	r := s.post(store.NewPost{Author: reposter, RepostOf: orig.ID})
	for i := range 15 {
		s.post(store.NewPost{Author: reposter, Content: fmt.Sprint("later ", i)})
	}
	s.archived()
	if s.hotHashes([]int64{r.ID}) != 0 {
		t.Fatal("the repost did not leave Redis: the test proves nothing")
	}
	if _, err := s.Create(s.ctx, store.NewPost{Author: reposter, RepostOf: orig.ID}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second repost while the archived first stands: %v, want already reposted", err)
	}
	if err := s.Delete(s.ctx, reposter, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(s.ctx, store.NewPost{Author: reposter, RepostOf: orig.ID}); err != nil {
		t.Fatalf("a repost after the first was deleted: %v", err)
	}
}

// TestArchiveUndoneWriteLeavesNoRow: of eight reposts sent at once by one
// user, seven are refused after their index (and archive entry) was
// written; the archive ends with the original and the one repost only.
func TestArchiveUndoneWriteLeavesNoRow(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{HotWindow: 10})
	author, reposter := s.user("author"), s.user("reposter")
	orig := s.post(store.NewPost{Author: author, Content: "worth sharing"})
	var wg sync.WaitGroup
	var made atomic.Int32
	for range 8 {
		wg.Go(func() {
			if _, err := s.Create(s.ctx, store.NewPost{Author: reposter, RepostOf: orig.ID}); err == nil {
				made.Add(1)
			}
		})
	}
	wg.Wait()
	s.archived()
	n, _, err := s.opt.Archive.(*archive.DB).Count(s.ctx)
	if err != nil || made.Load() != 1 || n != 2 {
		t.Fatalf("%d reposts made; the archive holds %d messages (%v), want 1 and 2", made.Load(), n, err)
	}
	public := s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) { return s.PublicTimeline(s.ctx, q) })
	if len(public) != 2 {
		t.Fatalf("public timeline %v, want the original and one repost", public)
	}
}

// TestArchiveRepairedMessage: a message the checker indexes after its
// request stopped half way reaches the archive too.
func TestArchiveRepairedMessage(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{})
	u := s.user("writer")
	half := s.halfWrite(store.NewPost{Author: u, Content: "half written"})
	if n := s.repair(); n != 1 {
		t.Fatalf("%d repairs, want 1", n)
	}
	s.archived()
	rows, err := s.opt.Archive.Posts(s.ctx, []int64{half})
	if err != nil || rows[half].Content != "half written" {
		t.Fatalf("the repaired message in the archive: %+v, %v", rows[half], err)
	}
}

// TestArchiveKeepsURL: a remote note's url (the address of its original,
// which federation gives a post it takes in) is read from its hash while
// hot and from the archive once it has left Redis; a local post has none.
func TestArchiveKeepsURL(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{HotWindow: 10})
	author := s.user("author")
	const url = "https://remote.example/@author/1"
	remote := s.post(store.NewPost{Author: author, Content: "from afar", URL: url})
	local := s.post(store.NewPost{Author: author, Content: "from here"})
	if remote.URL != url {
		t.Errorf("the written post's url %q, want %q", remote.URL, url)
	}
	if p, err := s.Post(s.ctx, remote.ID, 0); err != nil || p.URL != url {
		t.Fatalf("hot: url %q, %v", p.URL, err)
	}
	for i := range 15 {
		s.post(store.NewPost{Author: author, Content: fmt.Sprint("later ", i)})
	}
	s.archived()
	if s.hotHashes([]int64{remote.ID, local.ID}) != 0 {
		t.Fatal("the posts did not leave Redis: the test proves nothing")
	}
	if p, err := s.Post(s.ctx, remote.ID, 0); err != nil || p.URL != url {
		t.Errorf("archived: url %q, %v; want %q", p.URL, err, url)
	}
	if p, err := s.Post(s.ctx, local.ID, 0); err != nil || p.URL != "" {
		t.Errorf("archived local post: url %q, %v", p.URL, err)
	}
}
