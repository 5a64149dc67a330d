package redisdb

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// clock is a test's time: it moves only when told, so that pins and
// bookmarks made in a row have the times the test means.
type clock struct{ ms atomic.Int64 }

func newClock() *clock {
	c := new(clock)
	c.ms.Store(time.Now().UnixMilli())
	return c
}

func (c *clock) now() time.Time { return time.UnixMilli(c.ms.Load()) }
func (c *clock) tick()          { c.ms.Add(1) }

// newKeepsStore is a test store on the clock c.
func newKeepsStore(t *testing.T, c *clock) testStore {
	return newTestStoreWith(t, Options{Now: c.now})
}

// pin pins (or unpins) mid for uid and fails the test on an error.
func (s testStore) pin(uid, mid int64, on bool) {
	s.t.Helper()
	if err := s.Pin(s.ctx, uid, mid, on); err != nil {
		s.t.Fatalf("pin %d by %d (%v): %v", mid, uid, on, err)
	}
}

// bookmark saves (or lets go of) mid for uid and fails the test on an error.
func (s testStore) bookmark(uid, mid int64, on bool) {
	s.t.Helper()
	if err := s.Bookmark(s.ctx, uid, mid, on); err != nil {
		s.t.Fatalf("bookmark %d by %d (%v): %v", mid, uid, on, err)
	}
}

// pinnedIDs are the ids of uid's pinned posts as viewer sees them.
func (s testStore) pinnedIDs(uid, viewer int64) []int64 {
	s.t.Helper()
	ps, err := s.Pinned(s.ctx, uid, viewer)
	if err != nil {
		s.t.Fatal(err)
	}
	if ps == nil {
		s.t.Fatal("Pinned gave nil, want a list")
	}
	return ids(ps)
}

// bookmarkIDs are every id of uid's bookmarks, paging with the cursor.
func (s testStore) bookmarkIDs(uid int64) []int64 {
	s.t.Helper()
	return s.pageAll(func(q store.PageQuery) (store.Page[store.Post], error) { return s.Bookmarks(s.ctx, uid, q) })
}

// flags are a post's pinned and bookmarked as viewer reads it.
func (s testStore) flags(mid, viewer int64) (pinned, bookmarked *bool) {
	s.t.Helper()
	p, err := s.Post(s.ctx, mid, viewer)
	if err != nil {
		s.t.Fatal(err)
	}
	return p.Pinned, p.Bookmarked
}

func (s testStore) inSet(key string, mid int64) bool {
	return s.rdb.ZScore(s.ctx, key, id(mid)).Err() == nil
}

// TestPins: a user pins up to MaxPins of its own posts (not comments, not
// another's), newest pin first; a sixth is refused with nothing written;
// every reader who is signed in sees which posts are pinned, anonymous ones
// see null; a deleted pin frees its place at once.
func TestPins(t *testing.T) {
	parallel(t)
	c := newClock()
	s := newKeepsStore(t, c)
	a, bob := s.user("alice"), s.user("bob")
	var p []int64
	for i := range 8 {
		p = append(p, s.post(store.NewPost{Author: a, Content: "post " + id(int64(i))}).ID)
	}
	comment := s.post(store.NewPost{Author: a, Parent: p[0], Content: "my own comment"}).ID
	for _, i := range []int{3, 0, 4, 1, 2} {
		c.tick()
		s.pin(a, p[i], true)
	}
	order := []int64{p[2], p[1], p[4], p[0], p[3]}
	if got := s.pinnedIDs(a, bob); !slices.Equal(got, order) {
		t.Fatalf("pinned %v, want %v (newest pin first)", got, order)
	}
	c.tick()
	wantCode(t, s.Pin(s.ctx, a, p[5], true), store.ErrConflict, store.CodePinLimit)
	if s.inSet(s.keys.Pinned(a), p[5]) || !slices.Equal(s.pinnedIDs(a, a), order) {
		t.Fatalf("a refused sixth pin wrote something: %v", s.pinnedIDs(a, a))
	}
	s.pin(a, p[3], true) // again, while full: nothing changes
	if got := s.pinnedIDs(a, bob); !slices.Equal(got, order) {
		t.Fatalf("pinning again moved the pins: %v, want %v", got, order)
	}
	wantCode(t, s.Pin(s.ctx, bob, p[6], true), store.ErrForbidden, store.CodeNotYours)
	wantCode(t, s.Pin(s.ctx, bob, p[0], false), store.ErrForbidden, store.CodeNotYours)
	wantCode(t, s.Pin(s.ctx, a, comment, true), store.ErrInvalid, store.CodeBadRequest)
	wantCode(t, s.Pin(s.ctx, a, 1<<40, true), store.ErrNotFound, store.CodePostNotFound)
	if _, err := s.Pinned(s.ctx, 1<<40, bob); err == nil {
		t.Fatal("pinned posts of nobody: no error")
	}

	// The flag, on every read.
	if pinned, _ := s.flags(p[0], bob); !isTrue(pinned) {
		t.Fatalf("a pinned post read by bob: pinned %v", pinned)
	}
	if pinned, _ := s.flags(p[5], bob); pinned == nil || *pinned {
		t.Fatalf("a post not pinned read by bob: pinned %v", pinned)
	}
	if pinned, saved := s.flags(p[0], 0); pinned != nil || saved != nil {
		t.Fatalf("read anonymously: pinned %v bookmarked %v, want null", pinned, saved)
	}
	page, err := s.UserPosts(s.ctx, a, store.PageQuery{Viewer: bob})
	if err != nil {
		t.Fatal(err)
	}
	for _, post := range page.Items {
		if post.Pinned == nil || *post.Pinned != slices.Contains(order, post.ID) {
			t.Errorf("alice's posts read by bob: %d pinned %v", post.ID, post.Pinned)
		}
	}
	page, _ = s.UserPosts(s.ctx, a, store.PageQuery{})
	for _, post := range page.Items {
		if post.Pinned != nil || post.Bookmarked != nil {
			t.Errorf("alice's posts read anonymously: %d pinned %v bookmarked %v", post.ID, post.Pinned, post.Bookmarked)
		}
	}
	repost := s.post(store.NewPost{Author: bob, RepostOf: p[0]})
	if r, err := s.Post(s.ctx, repost.ID, a); err != nil || !isTrue(r.RepostOf.Pinned) || r.Pinned == nil || *r.Pinned {
		t.Fatalf("bob's repost of a pinned post: %+v, %v; want the original pinned, the repost not", r, err)
	}

	s.pin(a, p[1], false)
	s.pin(a, p[1], false) // again
	if pinned, _ := s.flags(p[1], bob); pinned == nil || *pinned {
		t.Fatalf("an unpinned post: pinned %v", pinned)
	}
	// A deleted pin frees its place at once, and leaves the list.
	if err := s.Delete(s.ctx, a, p[2]); err != nil {
		t.Fatal(err)
	}
	if s.inSet(s.keys.Pinned(a), p[2]) {
		t.Fatal("a deleted post is still pinned")
	}
	s.pin(a, p[2], false) // unpinning what is gone is no error
	c.tick()
	s.pin(a, p[5], true)
	c.tick()
	s.pin(a, p[6], true)
	if got, want := s.pinnedIDs(a, bob), []int64{p[6], p[5], p[4], p[0], p[3]}; !slices.Equal(got, want) {
		t.Fatalf("pinned after a delete %v, want %v", got, want)
	}
	wantCode(t, s.Pin(s.ctx, a, p[7], true), store.ErrConflict, store.CodePinLimit)
}

// TestPinsLeftByDeletes: pins of posts deleted while being pinned, which
// Delete could not clean, do not hold places: they are dropped when the
// pins are full, and from the list when it is read.
func TestPinsLeftByDeletes(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a := s.user("alice")
	var p []int64
	for range store.MaxPins + 2 {
		p = append(p, s.post(store.NewPost{Author: a, Content: "hello"}).ID)
	}
	for _, mid := range p[:store.MaxPins] {
		s.pin(a, mid, true)
	}
	for _, mid := range p[:2] {
		if err := s.Delete(s.ctx, a, mid); err != nil {
			t.Fatal(err)
		}
		s.rdb.ZAdd(s.ctx, s.keys.Pinned(a), redis.Z{Score: 1, Member: mid}) // as a pin racing the delete leaves it
	}
	if got := s.pinnedIDs(a, a); len(got) != store.MaxPins-2 || slices.Contains(got, p[0]) || s.inSet(s.keys.Pinned(a), p[0]) {
		t.Fatalf("pinned %v; want the deleted ones skipped and dropped", got)
	}
	for _, mid := range p[:2] {
		s.rdb.ZAdd(s.ctx, s.keys.Pinned(a), redis.Z{Score: 1, Member: mid})
	}
	s.pin(a, p[store.MaxPins], true)
	s.pin(a, p[store.MaxPins+1], true)
	if n := s.rdb.ZCard(s.ctx, s.keys.Pinned(a)).Val(); n != store.MaxPins {
		t.Fatalf("%d pins, want %d", n, store.MaxPins)
	}
}

// TestPinnedSafety: the pinned posts follow the safety rule: none for a
// blocked reader, a protected author's only for its approved fans.
func TestPinnedSafety(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, bob, fan := s.user("alice"), s.user("bob"), s.user("fan")
	s.follow(fan, a)
	p := s.post(store.NewPost{Author: a, Content: "pinned"}).ID
	s.pin(a, p, true)
	if err := s.Block(s.ctx, a, bob, true); err != nil {
		t.Fatal(err)
	}
	if got := s.pinnedIDs(a, bob); len(got) != 0 {
		t.Fatalf("a blocked reader sees pins %v", got)
	}
	if err := s.Block(s.ctx, a, bob, false); err != nil {
		t.Fatal(err)
	}
	if got := s.pinnedIDs(a, bob); !slices.Equal(got, []int64{p}) {
		t.Fatalf("once unblocked, pins %v", got)
	}
	if _, err := s.SetProtected(s.ctx, a, true); err != nil {
		t.Fatal(err)
	}
	for viewer, want := range map[int64]int{0: 0, bob: 0, fan: 1, a: 1} {
		if got := s.pinnedIDs(a, viewer); len(got) != want {
			t.Errorf("a protected author's pins seen by %d: %v, want %d", viewer, got, want)
		}
	}
}

// TestBookmarks: bookmarks are private, idempotent and newest first (paged
// by bookmark time, ties of one millisecond included); only what the reader
// may open can be saved; a deleted one (or a comment whose post is deleted)
// leaves the list and the set, one the reader may no longer see is skipped
// but kept.
func TestBookmarks(t *testing.T) {
	parallel(t)
	c := newClock()
	s := newKeepsStore(t, c)
	a, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	var p []int64
	for i := range 5 {
		p = append(p, s.post(store.NewPost{Author: a, Content: "post " + id(int64(i))}).ID)
	}
	comment := s.post(store.NewPost{Author: carol, Parent: p[1], Content: "a comment"}).ID
	reply := s.post(store.NewPost{Author: a, Parent: comment, Content: "a reply"}).ID
	for _, mid := range []int64{p[2], p[0], p[3], reply} {
		c.tick()
		s.bookmark(bob, mid, true)
	}
	c.tick()
	s.bookmark(bob, p[0], true) // again: keeps its place
	if got, want := s.bookmarkIDs(bob), []int64{reply, p[3], p[0], p[2]}; !slices.Equal(got, want) {
		t.Fatalf("bookmarks %v, want %v (newest bookmark first)", got, want)
	}
	if got := s.bookmarkIDs(carol); len(got) != 0 {
		t.Fatalf("carol's bookmarks %v, want none", got)
	}
	if _, saved := s.flags(p[0], bob); !isTrue(saved) {
		t.Fatalf("bob's bookmark read by bob: bookmarked %v", saved)
	}
	if _, saved := s.flags(p[0], carol); saved == nil || *saved {
		t.Fatalf("bob's bookmark read by carol: bookmarked %v, want false", saved)
	}
	home, err := s.UserPosts(s.ctx, a, store.PageQuery{Viewer: bob})
	if err != nil {
		t.Fatal(err)
	}
	for _, post := range home.Items {
		if post.Bookmarked == nil || *post.Bookmarked != slices.Contains([]int64{p[0], p[2], p[3]}, post.ID) {
			t.Errorf("alice's posts read by bob: %d bookmarked %v", post.ID, post.Bookmarked)
		}
	}
	wantCode(t, s.Bookmark(s.ctx, bob, 1<<40, true), store.ErrNotFound, store.CodePostNotFound)

	s.bookmark(bob, p[0], false)
	s.bookmark(bob, p[0], false) // again
	if _, saved := s.flags(p[0], bob); saved == nil || *saved {
		t.Fatalf("after letting go: bookmarked %v", saved)
	}
	// Deleting the post of a thread takes the reply out too; a deleted
	// post leaves; both are dropped from the set.
	for _, mid := range []int64{p[1], p[3]} {
		if err := s.Delete(s.ctx, a, mid); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := s.bookmarkIDs(bob), []int64{p[2]}; !slices.Equal(got, want) {
		t.Fatalf("bookmarks after deletes %v, want %v", got, want)
	}
	if s.inSet(s.keys.Bookmarks(bob), reply) || s.inSet(s.keys.Bookmarks(bob), p[3]) {
		t.Fatal("deleted bookmarks stay in the set")
	}

	// A block hides the bookmark, and keeps it; so does a protected author.
	if err := s.Block(s.ctx, a, bob, true); err != nil {
		t.Fatal(err)
	}
	if got := s.bookmarkIDs(bob); len(got) != 0 {
		t.Fatalf("bookmarks of a blocked reader %v", got)
	}
	wantCode(t, s.Bookmark(s.ctx, bob, p[4], true), store.ErrNotFound, store.CodePostNotFound)
	if err := s.Block(s.ctx, a, bob, false); err != nil {
		t.Fatal(err)
	}
	if got := s.bookmarkIDs(bob); !slices.Equal(got, []int64{p[2]}) {
		t.Fatalf("bookmarks once unblocked %v", got)
	}
	if _, err := s.SetProtected(s.ctx, a, true); err != nil {
		t.Fatal(err)
	}
	if got := s.bookmarkIDs(bob); len(got) != 0 {
		t.Fatalf("bookmarks of a protected author's post, not a fan: %v", got)
	}
	wantCode(t, s.Bookmark(s.ctx, carol, p[4], true), store.ErrNotFound, store.CodePostNotFound)
}

// TestBookmarksInOneMillisecond: bookmarks made in the same millisecond
// page through without a gap or a repeat.
func TestBookmarksInOneMillisecond(t *testing.T) {
	parallel(t)
	c := newClock()
	s := newKeepsStore(t, c)
	a, bob := s.user("alice"), s.user("bob")
	var want []int64
	for range 9 {
		mid := s.post(store.NewPost{Author: a, Content: "same time"}).ID
		s.bookmark(bob, mid, true)
		want = append(want, mid)
	}
	got := s.bookmarkIDs(bob)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("bookmarks %v, want each of %v once", got, want)
	}
}

// TestKeepsArchived: a pinned and bookmarked post that has left Redis for
// the archive is still listed, read from there, with its flags; an archived
// post can be pinned and bookmarked; deleting it takes it out of both.
func TestKeepsArchived(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			const window = 5
			s := newArchivedStore(t, e.dsn(t), Options{HotWindow: window})
			a, bob := s.user("alice"), s.user("bob")
			var p []int64
			for i := range 4 * window {
				p = append(p, s.post(store.NewPost{Author: a, Content: "post " + id(int64(i))}).ID)
				if i == 0 {
					s.pin(a, p[0], true)
					s.bookmark(bob, p[0], true)
				}
			}
			s.archived()
			if s.hotHashes(p[:2]) != 0 {
				t.Fatal("the oldest posts are still in Redis")
			}
			s.pin(a, p[1], true)
			s.bookmark(bob, p[1], true)
			if got, want := s.bookmarkIDs(bob), []int64{p[1], p[0]}; !slices.Equal(got, want) {
				t.Fatalf("bookmarks of archived posts %v, want %v", got, want)
			}
			pins, err := s.Pinned(s.ctx, a, bob)
			if err != nil || !slices.Equal(ids(pins), []int64{p[1], p[0]}) {
				t.Fatalf("pins of archived posts %v, %v", ids(pins), err)
			}
			if pins[1].Content != "post 0" || !isTrue(pins[1].Pinned) || !isTrue(pins[1].Bookmarked) {
				t.Fatalf("an archived pin read by bob: %+v", pins[1])
			}
			if err := s.Delete(s.ctx, a, p[0]); err != nil {
				t.Fatal(err)
			}
			s.archived()
			if got := s.bookmarkIDs(bob); !slices.Equal(got, []int64{p[1]}) {
				t.Fatalf("bookmarks after deleting an archived one %v", got)
			}
			if got := s.pinnedIDs(a, bob); !slices.Equal(got, []int64{p[1]}) {
				t.Fatalf("pins after deleting an archived one %v", got)
			}
		})
	}
}

// TestKeepsAccountDeleted: deleting an account removes its pins and
// bookmarks, and its posts from the others' bookmarks.
func TestKeepsAccountDeleted(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, bob := s.user("alice"), s.user("bob")
	pa := s.post(store.NewPost{Author: a, Content: "alice's"}).ID
	pb := s.post(store.NewPost{Author: bob, Content: "bob's"}).ID
	s.pin(a, pa, true)
	s.bookmark(a, pb, true)
	s.bookmark(bob, pa, true)
	if err := s.DeleteAccount(s.ctx, a, "password123", store.Attempt{}); err != nil {
		t.Fatal(err)
	}
	if n := s.rdb.Exists(s.ctx, s.keys.Pinned(a), s.keys.Bookmarks(a)).Val(); n != 0 {
		t.Fatalf("%d of the deleted account's pins and bookmarks keys are left", n)
	}
	if got := s.bookmarkIDs(bob); len(got) != 0 {
		t.Fatalf("bob's bookmarks of a deleted account's post: %v", got)
	}
}

// TestPinnedAcrossProcesses: whether a post is pinned travels with its
// author's card, which every process remembers: a pin made on one process
// shows on another's reads as soon as the change reaches it.
func TestPinnedAcrossProcesses(t *testing.T) {
	parallel(t)
	a := newTestStore(t)
	b := testStore{Store: New(a.rdb, Options{BcryptCost: a.opt.BcryptCost}), t: t, ctx: a.ctx}
	runCaches(t, a.Store)
	runCaches(t, b.Store)
	alice, bob := a.user("alice"), a.user("bob")
	p := a.post(store.NewPost{Author: alice, Content: "pin me"}).ID
	pinnedOnB := func() bool {
		pinned, _ := b.flags(p, bob)
		return isTrue(pinned)
	}
	if pinnedOnB() { // b now remembers alice's card
		t.Fatal("pinned before any pin")
	}
	a.pin(alice, p, true)
	waitFor(t, "the pin to reach b", pinnedOnB)
	a.pin(alice, p, false)
	waitFor(t, "the unpin to reach b", func() bool { return !pinnedOnB() })
}
