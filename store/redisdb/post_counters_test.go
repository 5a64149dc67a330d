package redisdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// checkCounts fails unless posts_count of author and comments_count of each
// message in mids equal the sets they count.
func (s testStore) checkCounts(author int64, mids ...int64) {
	s.t.Helper()
	posts := s.rdb.ZCard(s.ctx, s.keys.UserPosts(author)).Val()
	if n, _ := s.rdb.HGet(s.ctx, s.keys.User(author), schema.FieldPosts).Int64(); n != posts {
		s.t.Errorf("posts_count %d, F holds %d", n, posts)
	}
	for _, mid := range mids {
		comments := s.rdb.ZCard(s.ctx, s.keys.Comments(mid)).Val()
		if n, _ := s.rdb.HGet(s.ctx, s.keys.Post(mid), schema.FieldComments).Int64(); n != comments {
			s.t.Errorf("comments_count of %d is %d, C holds %d", mid, n, comments)
		}
	}
}

// checkWhole fails unless every message of author is indexed (a post in F,
// a comment in its parent's C set) or gone entirely.
func (s testStore) checkWhole(author int64) {
	s.t.Helper()
	for _, mid := range s.dmsOf(author) {
		p, err := s.message(s.ctx, mid)
		if err != nil {
			s.t.Fatal(err)
		}
		index := s.keys.UserPosts(author)
		if p.ParentID != nil {
			index = s.keys.Comments(*p.ParentID)
		}
		if s.rdb.ZScore(s.ctx, index, id(mid)).Err() != nil {
			s.t.Errorf("message %d (%q) is written but not in %s", mid, p.Content, index)
		}
	}
}

// TestLostRepliesAreNotResent: when Redis's reply to the write of a post or
// a comment is lost (a network fault, a stall the client gave up on), the
// server's client does not send the write again: counters stay equal to
// the sets they count, and no message is left half indexed.
func TestLostRepliesAreNotResent(t *testing.T) {
	parallel(t)
	r := storetest.Start(t)
	proxy := newLossyProxy(t, r.Addr())
	opened, err := Open("redis://"+proxy.Addr()+"/0", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opened.Close() })
	s := newTestStoreOn(t, r.Client(), Options{}) // for the users, and to look
	alice, bob := s.user("alice"), s.user("bob")
	p := s.post(store.NewPost{Author: alice, Content: "first"})

	proxy.loseReplyTo(containing("commentID")) // the comment's index
	_, err1 := opened.Create(s.ctx, store.NewPost{Author: bob, Content: "a comment", Parent: p.ID})
	proxy.loseReplyTo(containing("F:")) // the post's index
	_, err2 := opened.Create(s.ctx, store.NewPost{Author: alice, Content: "second"})
	if proxy.lost.Load() != 2 {
		t.Fatalf("%d replies lost, want 2", proxy.lost.Load())
	}
	for _, err := range []error{err1, err2} {
		if err != nil && !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("a lost reply answers %v, want 503", err)
		}
	}
	s.checkCounts(alice, p.ID)
	s.checkWhole(alice)
	s.checkWhole(bob)
}

// TestStoppedWriteIsUndone: a write that fails after the message's own keys
// are in (Redis refusing or dropping the indexes) takes the message out
// again and gives up its Idempotency-Key, so that the 503 it answers is
// true and a retry makes the post, once.
func TestStoppedWriteIsUndone(t *testing.T) {
	parallel(t)
	rdb := storetest.Start(t).Client()
	var fail atomic.Bool
	rdb.AddHook(failHook{fail: &fail})
	s := newTestStoreOn(t, rdb, Options{})
	alice := s.user("alice")
	p := s.post(store.NewPost{Author: alice, Content: "to comment on"})
	for _, np := range []store.NewPost{
		{Author: alice, Content: "a post", IdempotencyKey: "k1"},
		{Author: alice, Content: "a comment", Parent: p.ID, IdempotencyKey: "k2"},
	} {
		fail.Store(true)
		_, err := s.Create(s.ctx, np)
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("a failed index answers %v, want 503", err)
		}
		s.checkWhole(alice)
		again := s.post(np)
		if got := s.post(np); got.ID != again.ID {
			t.Fatalf("the retry made %d, then %d", again.ID, got.ID)
		}
	}
	s.checkWhole(alice)
	s.checkCounts(alice, p.ID)
	if n := len(s.dmsOf(alice)); n != 3 {
		t.Fatalf("alice has %d messages, want 3", n)
	}
}

// failHook fails, once when told, the pipeline that indexes a message (the
// one naming an F or C set), as a Redis gone away would, without sending it.
type failHook struct{ fail *atomic.Bool }

func (failHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (failHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h failHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if (names(cmds, ":messageID") || names(cmds, ":commentID")) && h.fail.CompareAndSwap(true, false) {
			err := fmt.Errorf("connection lost (test): %w", io.EOF)
			for _, c := range cmds {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// names tells whether any argument of cmds contains s.
func names(cmds []redis.Cmder, s string) bool {
	for _, c := range cmds {
		for _, a := range c.Args() {
			if str, ok := a.(string); ok && strings.Contains(str, s) {
				return true
			}
		}
	}
	return false
}
