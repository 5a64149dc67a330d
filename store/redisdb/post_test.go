package redisdb

import (
	"strconv"
	"sync"
	"testing"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestCreateWritesEveryFamily: a post's own keys (B, D, E) hold what was
// written, decoded by field name, and its indexes (F, G, global:timeline)
// point at it.
func TestCreateWritesEveryFamily(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	p := s.post(store.NewPost{Author: alice, Content: "hello 世界"})
	if p.Kind != store.KindPost || p.Author.Username != "alice" || p.Content != "hello 世界" || p.ParentID != nil || p.RepostOf != nil {
		t.Fatalf("created %+v", p)
	}
	var h schema.PostHash
	if err := s.rdb.HGetAll(s.ctx, s.keys.Post(p.ID)).Scan(&h); err != nil {
		t.Fatal(err)
	}
	want := schema.PostHash{Content: "hello 世界", Author: alice, Username: "alice", Time: int64(p.CreatedAt), Kind: store.KindPost,
		Mentions: "[]", Tags: "[]", Media: "[]"}
	if h != want {
		t.Fatalf("B hash %+v, want %+v", h, want)
	}
	if d, _ := s.rdb.Get(s.ctx, s.keys.PublicTime(p.ID)).Int64(); d != int64(p.CreatedAt) {
		t.Errorf("D holds %d, want %d", d, p.CreatedAt)
	}
	if e, _ := s.rdb.Get(s.ctx, s.keys.Author(p.ID)).Int64(); e != alice {
		t.Errorf("E holds %d, want %d", e, alice)
	}
	for _, key := range []string{s.keys.UserPosts(alice), s.keys.Home(alice), s.keys.PublicTimeline()} {
		if _, err := s.rdb.ZScore(s.ctx, key, strconv.FormatInt(p.ID, 10)).Result(); err != nil {
			t.Errorf("%s lacks the post: %v", key, err)
		}
	}
	got, err := s.Post(s.ctx, p.ID, 0)
	if err != nil || got.Content != p.Content || got.CreatedAt != p.CreatedAt || got.Author != p.Author {
		t.Fatalf("read back %+v, %v; want %+v", got, err, p)
	}
	if u, _ := s.User(s.ctx, alice, 0); u.PostsCount != 1 {
		t.Errorf("posts_count %d, want 1", u.PostsCount)
	}
}

// TestRepostsPointAtTheOriginal: a repost of a repost is stored as a repost
// of the original, whose counter counts both; deleting the original leaves
// the reposts showing it as deleted.
func TestRepostsPointAtTheOriginal(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	orig := s.post(store.NewPost{Author: alice, Content: "original"})
	r1 := s.post(store.NewPost{Author: bob, RepostOf: orig.ID})
	r2 := s.post(store.NewPost{Author: carol, Content: "again", RepostOf: r1.ID})
	if r2.RepostOf == nil || r2.RepostOf.ID != orig.ID || r2.RepostOf.RepostsCount != 2 {
		t.Fatalf("repost of a repost points at %+v, want the original with 2 reposts", r2.RepostOf)
	}
	if o, _ := s.Post(s.ctx, orig.ID, 0); o.RepostsCount != 2 {
		t.Fatalf("original counts %d reposts, want 2", o.RepostsCount)
	}
	c := s.post(store.NewPost{Author: bob, Content: "a comment", Parent: orig.ID})
	_, err := s.Create(s.ctx, store.NewPost{Author: carol, RepostOf: c.ID})
	wantCode(t, err, store.ErrInvalid, store.CodeInvalidRepost)

	if err := s.Delete(s.ctx, alice, orig.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Post(s.ctx, r1.ID, 0)
	if err != nil || got.RepostOf == nil || !got.RepostOf.Deleted || got.RepostOf.ID != orig.ID {
		t.Fatalf("repost of a deleted original reads %+v, %v", got.RepostOf, err)
	}
	_, err = s.Create(s.ctx, store.NewPost{Author: carol, RepostOf: r1.ID})
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
}

// TestCommentsOnComments: comments go into their parent's C set and counter,
// notify nobody's timeline, and are taken out of both when deleted.
func TestCommentsOnComments(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	p := s.post(store.NewPost{Author: alice, Content: "post"})
	c1 := s.post(store.NewPost{Author: bob, Content: "first", Parent: p.ID})
	c2 := s.post(store.NewPost{Author: alice, Content: "reply", Parent: c1.ID})
	if c2.Kind != store.KindComment || c2.ParentID == nil || *c2.ParentID != c1.ID {
		t.Fatalf("comment %+v", c2)
	}
	page, err := s.Comments(s.ctx, p.ID, store.PageQuery{})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != c1.ID || page.Items[0].CommentsCount != 1 {
		t.Fatalf("comments on the post: %+v, %v", page.Items, err)
	}
	home, _ := s.HomeTimeline(s.ctx, alice, store.PageQuery{})
	if got := ids(home.Items); len(got) != 1 || got[0] != p.ID {
		t.Fatalf("alice's home holds %v, want only the post", got)
	}
	if err := s.Delete(s.ctx, bob, c2.ID); err == nil {
		t.Fatal("bob deleted alice's comment")
	}
	if err := s.Delete(s.ctx, alice, c2.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Post(s.ctx, c1.ID, 0); c.CommentsCount != 0 {
		t.Fatalf("comments_count %d after the delete, want 0", c.CommentsCount)
	}
	if n, _ := s.rdb.ZCard(s.ctx, s.keys.Comments(c1.ID)).Result(); n != 0 {
		t.Fatalf("C set holds %d after the delete", n)
	}
	_, err = s.Post(s.ctx, c2.ID, 0)
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
}

// TestIdempotencyKeyReturnsTheFirstPost: concurrent and later requests with
// one key create one post; a different key or author creates another.
func TestIdempotencyKeyReturnsTheFirstPost(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	np := store.NewPost{Author: alice, Content: "once", IdempotencyKey: "k1"}
	var wg sync.WaitGroup
	got := make([]int64, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p, err := s.Create(s.ctx, np); err == nil {
				got[i] = p.ID
			}
		}()
	}
	wg.Wait()
	first := s.post(np).ID
	for i, id := range got {
		if id != 0 && id != first { // 0: answered request_in_progress while the first ran
			t.Fatalf("request %d made post %d, want %d", i, id, first)
		}
	}
	if n, _ := s.rdb.ZCard(s.ctx, s.keys.UserPosts(alice)).Result(); n != 1 {
		t.Fatalf("alice has %d posts, want 1", n)
	}
	if p := s.post(store.NewPost{Author: bob, Content: "once", IdempotencyKey: "k1"}); p.ID == first {
		t.Fatal("another author's key returned alice's post")
	}
	keys := storetest.Keys(t, s.rdb, "idem:*")
	for _, k := range keys {
		if len(k) < 64 || strconv.Quote(k) == strconv.Quote("idem:"+strconv.FormatInt(alice, 10)+":k1") {
			t.Fatalf("idempotency key stored in the clear: %s", k)
		}
	}
}

// TestDeleteTakesEveryTraceAway: deleting a post removes B, D, E, C and its
// entries in F, G (own and fans') and global:timeline, and fixes counters.
func TestDeleteTakesEveryTraceAway(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	s.follow(bob, alice)
	p := s.post(store.NewPost{Author: alice, Content: "soon gone"})
	s.post(store.NewPost{Author: bob, Content: "comment", Parent: p.ID})
	if err := s.Delete(s.ctx, bob, p.ID); err == nil {
		t.Fatal("bob deleted alice's post")
	} else {
		wantCode(t, err, store.ErrForbidden, store.CodeNotAuthor)
	}
	if err := s.Delete(s.ctx, alice, p.ID); err != nil {
		t.Fatal(err)
	}
	s.settle() // the fans' G sets are cleaned by a job
	mid := strconv.FormatInt(p.ID, 10)
	for _, key := range []string{s.keys.Post(p.ID), s.keys.PublicTime(p.ID), s.keys.Author(p.ID), s.keys.Comments(p.ID)} {
		if n, _ := s.rdb.Exists(s.ctx, key).Result(); n != 0 {
			t.Errorf("%s survived the delete", key)
		}
	}
	for _, key := range []string{s.keys.UserPosts(alice), s.keys.Home(alice), s.keys.Home(bob), s.keys.PublicTimeline()} {
		if _, err := s.rdb.ZScore(s.ctx, key, mid).Result(); err == nil {
			t.Errorf("%s still holds the post", key)
		}
	}
	if u, _ := s.User(s.ctx, alice, 0); u.PostsCount != 0 {
		t.Errorf("posts_count %d, want 0", u.PostsCount)
	}
	err := s.Delete(s.ctx, alice, p.ID)
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
}

// TestIdempotencyKeyInProgress: a retry while the first request still runs
// is told so (409), and creates nothing.
func TestIdempotencyKeyInProgress(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	s.rdb.Set(s.ctx, s.keys.Idempotency(alice, store.TokenHash("k")), 0, schema.IdempotencyTTL) // the first request's claim
	p, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "retry", IdempotencyKey: "k"})
	wantCode(t, err, store.ErrConflict, store.CodeRequestInProgress)
	if p.ID != 0 {
		t.Fatalf("answered %+v with the error", p)
	}
	if n, _ := s.rdb.ZCard(s.ctx, s.keys.UserPosts(alice)).Result(); n != 0 {
		t.Fatalf("%d posts written", n)
	}
}
