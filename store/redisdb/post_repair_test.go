package redisdb

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
)

// halfWrite does what Create does up to the message's own keys (B, D, E)
// and stops there, as a request whose process died, or whose Redis went
// away, before the indexes: it returns the message's id.
func (s testStore) halfWrite(np store.NewPost) int64 {
	s.t.Helper()
	d := &draft{np: np}
	if err := s.resolveTargets(s.ctx, d); err != nil {
		s.t.Fatal(err)
	}
	if first, err := s.claim(s.ctx, d); err != nil || first != nil {
		s.t.Fatalf("claim: %v, %v", first, err)
	}
	if err := s.writePost(s.ctx, d); err != nil {
		s.t.Fatal(err)
	}
	return d.post.ID
}

// repair runs the checker once, judging every message old enough.
func (s testStore) repair() int {
	s.t.Helper()
	n, err := runner.NewChecker(s.Store, runner.CheckerOptions{Grace: time.Nanosecond, Metrics: s.metrics}).Check(s.ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

func newRepairStore(t *testing.T) (testStore, *runner.Metrics) {
	s := newTestStore(t)
	s.metrics = runner.NewMetrics(prometheus.NewRegistry())
	return s, s.metrics
}

func repairs(m *runner.Metrics, kind string) int {
	var pb dto.Metric
	m.Repairs.WithLabelValues(kind).Write(&pb)
	return int(pb.GetCounter().GetValue())
}

// TestRepairIndexesHalfWrittenMessages: a post and a comment written without
// their indexes are indexed by the checker as Create would have: the post
// into F, its author's G, the public timeline and, by its fan-out job, its
// fans' G; the comment into its parent's C set and count.
func TestRepairIndexesHalfWrittenMessages(t *testing.T) {
	parallel(t)
	s, m := newRepairStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	s.follow(bob, alice)
	p := s.post(store.NewPost{Author: alice, Content: "whole"})
	half := s.halfWrite(store.NewPost{Author: alice, Content: "half written #topic"})
	s.halfWrite(store.NewPost{Author: bob, Content: "half a comment", Parent: p.ID})
	reply := s.halfWrite(store.NewPost{Author: alice, Content: "keyed", IdempotencyKey: "k"})

	if n := s.repair(); n != 3 {
		t.Fatalf("%d repairs, want 3", n)
	}
	s.settle()
	for _, key := range []string{s.keys.UserPosts(alice), s.keys.Home(alice), s.keys.Home(bob), s.keys.PublicTimeline()} {
		for _, mid := range []int64{half, reply} {
			if s.rdb.ZScore(s.ctx, key, id(mid)).Err() != nil {
				t.Errorf("%s lacks the mended post %d", key, mid)
			}
		}
	}
	if page, _ := s.TagPosts(s.ctx, "topic", store.PageQuery{}); len(page.Items) != 1 || page.Items[0].ID != half {
		t.Errorf("the topic lists %v, want [%d]", ids(page.Items), half)
	}
	s.checkWhole(alice)
	s.checkWhole(bob)
	s.checkCounts(alice, p.ID)
	if got, _ := s.Post(s.ctx, p.ID, 0); got.CommentsCount != 1 {
		t.Errorf("comments_count %d, want 1", got.CommentsCount)
	}
	// The keyed request's retry finds its post.
	if got := s.post(store.NewPost{Author: alice, Content: "keyed", IdempotencyKey: "k"}); got.ID != reply {
		t.Errorf("the retry made %d, want the mended %d", got.ID, reply)
	}
	if repairs(m, schema.RepairPostIndexed) != 2 || repairs(m, schema.RepairCommentIndexed) != 1 {
		t.Errorf("metrics: %d posts, %d comments indexed", repairs(m, schema.RepairPostIndexed), repairs(m, schema.RepairCommentIndexed))
	}
	if n := s.repair(); n != 0 {
		t.Fatalf("a second run made %d repairs", n)
	}
}

// TestRepairRemovesWhatARetryReplaced: a keyed request wrote its message and
// died; its claim ran out and its retry made the post. The checker removes
// the first message entirely, leaving the retry's post.
func TestRepairRemovesWhatARetryReplaced(t *testing.T) {
	parallel(t)
	s, m := newRepairStore(t)
	alice := s.user("alice")
	np := store.NewPost{Author: alice, Content: "sent twice #t", IdempotencyKey: "k"}
	dead := s.halfWrite(np)
	s.rdb.Del(s.ctx, s.keys.Idempotency(alice, store.TokenHash("k"))) // the claim ran out
	retry := s.post(np)

	if n := s.repair(); n != 1 || repairs(m, schema.RepairRemoved) != 1 {
		t.Fatalf("%d repairs, %d removals; want 1", n, repairs(m, schema.RepairRemoved))
	}
	if got := s.dmsOf(alice); len(got) != 1 || got[0] != retry.ID {
		t.Fatalf("alice's messages %v, want only the retry's %d", got, retry.ID)
	}
	for _, key := range []string{s.keys.PublicTime(dead), s.keys.Author(dead)} {
		if s.rdb.Exists(s.ctx, key).Val() != 0 {
			t.Errorf("%s survived", key)
		}
	}
	if got := s.post(np); got.ID != retry.ID {
		t.Fatalf("the key now gives %d, want %d", got.ID, retry.ID)
	}
	s.checkCounts(alice)
}

// TestRepairFixesCountersAndLeftovers: counters that drifted from their
// sets (comments_count, reposts_count) are set to them; D and E keys a stopped delete left are removed.
func TestRepairFixesCountersAndLeftovers(t *testing.T) {
	parallel(t)
	s, m := newRepairStore(t)
	alice := s.user("alice")
	p := s.post(store.NewPost{Author: alice, Content: "counted"})
	s.post(store.NewPost{Author: alice, Content: "a comment", Parent: p.ID})
	s.post(store.NewPost{Author: s.user("bob"), RepostOf: p.ID})
	gone := s.post(store.NewPost{Author: alice, Content: "deleted half way"})
	s.rdb.HSet(s.ctx, s.keys.Post(p.ID), schema.FieldComments, 5, schema.FieldReposts, 7) // re-sent HINCRBYs, say
	s.rdb.Del(s.ctx, s.keys.Post(gone.ID))                                                // Delete's first step, and no more

	if n := s.repair(); n != 3 || repairs(m, schema.RepairCounter) != 2 || repairs(m, schema.RepairOrphanKeys) != 1 {
		t.Fatalf("%d repairs (%d counters, %d leftovers), want 2 and 1", n, repairs(m, schema.RepairCounter), repairs(m, schema.RepairOrphanKeys))
	}
	s.checkCounts(alice, p.ID)
	if got, _ := s.Post(s.ctx, p.ID, 0); got.RepostsCount != 1 {
		t.Errorf("reposts_count %d, want 1", got.RepostsCount)
	}
	if n := s.rdb.Exists(s.ctx, s.keys.PublicTime(gone.ID), s.keys.Author(gone.ID)).Val(); n != 0 {
		t.Fatalf("%d of D, E left", n)
	}
}

// TestRepairLeavesYoungMessagesAndTakesTurns: a message younger than Grace
// may still be being written: the checker leaves it, and its checkpoint
// stops before it, so a later run mends it. Only one process checks at a
// time.
func TestRepairLeavesYoungMessagesAndTakesTurns(t *testing.T) {
	parallel(t)
	s, _ := newRepairStore(t)
	alice := s.user("alice")
	half := s.halfWrite(store.NewPost{Author: alice, Content: "being written"})
	if n, err := runner.NewChecker(s.Store, runner.CheckerOptions{Grace: time.Hour}).Check(s.ctx); err != nil || n != 0 {
		t.Fatalf("a young message: %d repairs, %v", n, err)
	}
	if cp, _ := s.rdb.Get(s.ctx, s.keys.RepairCheckpoint()).Int64(); cp >= half {
		t.Fatalf("checkpoint %d passed the young message %d", cp, half)
	}
	s.rdb.Set(s.ctx, s.keys.RepairLock(), "another process", time.Minute)
	if n := s.repair(); n != 0 {
		t.Fatalf("ran beside another process: %d repairs", n)
	}
	s.rdb.Del(s.ctx, s.keys.RepairLock())
	if n := s.repair(); n != 1 {
		t.Fatalf("%d repairs, want 1", n)
	}
	s.checkWhole(alice)
	if cp, _ := s.rdb.Get(s.ctx, s.keys.RepairCheckpoint()).Int64(); cp != half {
		t.Fatalf("checkpoint %d, want %d", cp, half)
	}
}

// TestRepairRemovesASecondRepost: a repost whose request died before its
// index, while its author reposted the same post again meanwhile, would be a
// second repost: the checker removes it.
func TestRepairRemovesASecondRepost(t *testing.T) {
	parallel(t)
	s, m := newRepairStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	orig := s.post(store.NewPost{Author: alice, Content: "shared"})
	dead := s.halfWrite(store.NewPost{Author: bob, RepostOf: orig.ID})
	again := s.post(store.NewPost{Author: bob, RepostOf: orig.ID})
	if n := s.repair(); n != 1 || repairs(m, schema.RepairRemoved) != 1 {
		t.Fatalf("%d repairs, %d removals; want 1", n, repairs(m, schema.RepairRemoved))
	}
	if got := s.dmsOf(bob); len(got) != 1 || got[0] != again.ID {
		t.Fatalf("bob's messages %v, want only %d (not %d)", got, again.ID, dead)
	}
	if p, _ := s.Post(s.ctx, orig.ID, 0); p.RepostsCount != 1 {
		t.Fatalf("reposts_count %d, want 1", p.RepostsCount)
	}
	s.checkCounts(bob)
}

// TestRepairWaitsForAClaimedID: a run of the checker that comes between a
// request's claim of an id and its write of the message (two round trips)
// does not pass that id by as never written: once the message is there and
// old enough, a later run still finds it half written, and indexes it. The
// ids of messages that are gone are passed by once a message after them is
// old enough, or once they are far below the newest id.
func TestRepairWaitsForAClaimedID(t *testing.T) {
	parallel(t)
	s, _ := newRepairStore(t)
	alice := s.user("alice")
	s.post(store.NewPost{Author: alice, Content: "whole"})
	claimed := s.rdb.Incr(s.ctx, s.keys.LastPostID()).Val() // claimed, not yet written
	if n := s.repair(); n != 0 {
		t.Fatalf("%d repairs of a claim still on its way", n)
	}
	// The claimed id's request writes its message now, and stops before its indexes.
	at := time.Now().Add(-2 * time.Minute).UnixMilli()
	s.rdb.HSet(s.ctx, s.keys.Post(claimed), "content", "written after the run", "author", alice, "username", "alice",
		"time", at, "kind", "post", "mentions", "[]", "tags", "[]", "media", "[]")
	s.rdb.Set(s.ctx, s.keys.PublicTime(claimed), at, 0)
	s.rdb.Set(s.ctx, s.keys.Author(claimed), alice, 0)
	if n := s.repair(); n != 1 {
		t.Fatalf("%d repairs, want 1: the message of the claimed id", n)
	}
	if s.rdb.ZScore(s.ctx, s.keys.UserPosts(alice), id(claimed)).Err() != nil {
		t.Fatal("the message written after a run passed its id was never indexed")
	}
	// Past the gap the checkpoint moves on: the next new post is checked as well.
	again := s.halfWrite(store.NewPost{Author: alice, Content: "after the gap"})
	if n := s.repair(); n != 1 || s.rdb.ZScore(s.ctx, s.keys.UserPosts(alice), id(again)).Err() != nil {
		t.Fatalf("%d repairs, and the post after the gap is not indexed", n)
	}
}
