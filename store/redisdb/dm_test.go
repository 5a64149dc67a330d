package redisdb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"microblog/store"
	"microblog/store/redisdb/dm"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// send sends a private message and fails the test if it fails.
func (s testStore) send(from, to int64, content string) store.DM {
	s.t.Helper()
	m, err := s.SendDM(s.ctx, store.NewDM{From: from, To: to, Content: content})
	if err != nil {
		s.t.Fatalf("send %d → %d %q: %v", from, to, content, err)
	}
	return m
}

// conversation pages uid's conversation with other to its first message,
// 7 at a time, and returns every id, newest first.
func (s testStore) conversation(uid, other int64) []int64 {
	s.t.Helper()
	var out []int64
	q := store.PageQuery{Limit: 7}
	for range 10000 {
		p, err := s.ConversationDMs(s.ctx, uid, other, q)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, m := range p.Items {
			out = append(out, m.ID)
		}
		if p.NextCursor == nil {
			return out
		}
		if q.Cursor, err = store.DecodeCursor(*p.NextCursor); err != nil {
			s.t.Fatal(err)
		}
	}
	s.t.Fatal("conversation pages without end")
	return nil
}

// conversations is uid's first page of conversations.
func (s testStore) conversations(uid int64) []store.Conversation {
	s.t.Helper()
	p, err := s.ConversationList(s.ctx, uid, store.PageQuery{})
	if err != nil {
		s.t.Fatal(err)
	}
	return p.Items
}

// unreadDMs is /me's unread_messages of uid.
func (s testStore) unreadDMs(uid int64) int64 {
	s.t.Helper()
	u, err := s.User(s.ctx, uid, uid)
	if err != nil {
		s.t.Fatal(err)
	}
	return *u.UnreadDMs
}

func messageIDs(ms ...store.DM) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestDMs: two users talk; each sees the conversation, newest first,
// and its place in their list with its last message and unread count;
// writing marks read for the writer, reading for the reader; a third
// conversation comes first once it is the latest.
func TestDMs(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	m1 := s.send(alice, bob, "你好 bob")
	m2 := s.send(alice, bob, "are you there?")
	if m1.ID != 1 || m2.ID != 2 || m1.Sender != (store.Party{ID: alice, Username: "alice"}) ||
		m1.Recipient != (store.Party{ID: bob, Username: "bob"}) || m1.Content != "你好 bob" || m1.Media == nil {
		t.Fatalf("sent %+v, %+v", m1, m2)
	}
	for _, uid := range []int64{alice, bob} {
		other := alice + bob - uid
		if got := s.conversation(uid, other); !slices.Equal(got, []int64{2, 1}) {
			t.Fatalf("conversation of %d with %d = %v, want [2 1]", uid, other, got)
		}
	}
	if got := s.conversations(bob); len(got) != 1 || got[0].With.ID != alice || got[0].LastDM.ID != 2 ||
		got[0].UnreadCount != 2 || got[0].UpdatedAt != m2.CreatedAt || *got[0].With.Following {
		t.Fatalf("bob's conversations = %+v", got)
	}
	if got := s.conversations(alice); len(got) != 1 || got[0].UnreadCount != 0 {
		t.Fatalf("alice's conversations = %+v, want 0 unread (she wrote them)", got)
	}
	if n := s.unreadDMs(bob); n != 1 {
		t.Fatalf("bob's unread_messages = %d, want 1", n)
	}

	// Reading marks read, never back, never past the newest.
	if err := s.MarkConversationRead(s.ctx, bob, alice, 1); err != nil {
		t.Fatal(err)
	}
	if got := s.conversations(bob); got[0].UnreadCount != 1 || s.unreadDMs(bob) != 1 {
		t.Fatalf("after reading up to 1: %+v", got)
	}
	if err := s.MarkConversationRead(s.ctx, bob, alice, 1000); err != nil {
		t.Fatal(err)
	}
	m3 := s.send(alice, bob, "still there?")
	if got := s.conversations(bob); got[0].UnreadCount != 1 || got[0].LastDM.ID != m3.ID {
		t.Fatalf("after reading up to 1000 and a new message: %+v, want 1 unread (the mark stops at the newest)", got)
	}
	if err := s.MarkConversationRead(s.ctx, bob, alice, 1); err != nil {
		t.Fatal(err)
	}
	// Writing is reading.
	s.send(bob, alice, "yes!")
	if got := s.conversations(bob); got[0].UnreadCount != 0 || s.unreadDMs(bob) != 0 {
		t.Fatalf("after bob answered: %+v, unread_messages %d", got, s.unreadDMs(bob))
	}
	if n := s.unreadDMs(alice); n != 1 {
		t.Fatalf("alice's unread_messages = %d, want 1", n)
	}

	// The latest conversation first.
	s.send(carol, alice, "hi alice")
	got := s.conversations(alice)
	if len(got) != 2 || got[0].With.ID != carol || got[1].With.ID != bob || s.unreadDMs(alice) != 2 {
		t.Fatalf("alice's conversations = %+v", got)
	}
	p, err := s.ConversationList(s.ctx, alice, store.PageQuery{Limit: 1})
	if err != nil || len(p.Items) != 1 || p.NextCursor == nil {
		t.Fatalf("first page of 1 = %+v, %v", p, err)
	}
	c, _ := store.DecodeCursor(*p.NextCursor)
	p, err = s.ConversationList(s.ctx, alice, store.PageQuery{Limit: 1, Cursor: c})
	if err != nil || len(p.Items) != 1 || p.Items[0].With.ID != bob || p.NextCursor != nil {
		t.Fatalf("second page of 1 = %+v, %v", p, err)
	}
	// ?after= as for timelines.
	after, err := s.ConversationDMs(s.ctx, bob, alice, store.PageQuery{After: 2})
	if err != nil || len(after.Items) != 2 {
		t.Fatalf("messages after 2 = %+v, %v", after.Items, err)
	}
	// Since: every message of the user, in order, at most max.
	since, err := s.DMsSince(s.ctx, alice, 1, 100)
	if err != nil || !slices.Equal(messageIDs(since...), []int64{2, 3, 4, 5}) {
		t.Fatalf("alice's messages since 1 = %v, %v", messageIDs(since...), err)
	}
	since, _ = s.DMsSince(s.ctx, alice, 0, 2)
	if !slices.Equal(messageIDs(since...), []int64{4, 5}) {
		t.Fatalf("alice's newest 2 = %v", messageIDs(since...))
	}
	if last, err := s.LastDMID(s.ctx, bob); err != nil || last != 4 {
		t.Fatalf("bob's last message id = %d, %v; want 4", last, err)
	}
}

// TestDMRules: a message to oneself, to a user who blocks the sender
// or whom the sender blocks, to one who takes messages from the users it
// follows only, too long or empty, or with another's image, is refused,
// and writes nothing.
func TestDMRules(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol, dave := s.user("alice"), s.user("bob"), s.user("carol"), s.user("dave")
	if err := s.Block(s.ctx, bob, carol, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDMsFrom(s.ctx, dave, store.DMsFromFollowing); err != nil {
		t.Fatal(err)
	}
	s.follow(dave, alice)
	img, err := s.SaveMedia(s.ctx, bob, store.MediaFile{Name: "a.jpg", ThumbName: "a_t.jpg", Width: 1, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		return fmt.Sprint(storetest.Keys(t, s.rdb, "*conv*"), storetest.Keys(t, s.rdb, "pm:*"))
	}
	before := snapshot()
	for _, c := range []struct {
		name string
		nm   store.NewDM
		kind error
		code store.Code
	}{
		{"to oneself", store.NewDM{From: alice, To: alice, Content: "hi me"}, store.ErrInvalid, store.CodeCannotMessageSelf},
		{"blocked by", store.NewDM{From: carol, To: bob, Content: "hi"}, store.ErrForbidden, store.CodeBlocked},
		{"blocking", store.NewDM{From: bob, To: carol, Content: "hi"}, store.ErrForbidden, store.CodeBlocked},
		{"closed", store.NewDM{From: bob, To: dave, Content: "hi"}, store.ErrForbidden, store.CodeDMsClosed},
		{"empty", store.NewDM{From: alice, To: bob, Content: " \u200b "}, store.ErrInvalid, store.CodeContentEmpty},
		{"1001 characters", store.NewDM{From: alice, To: bob, Content: strings.Repeat("字", 1001)}, store.ErrInvalid, store.CodeContentTooLong},
		{"another's image", store.NewDM{From: alice, To: bob, Content: "look", MediaIDs: []int64{img.ID}}, store.ErrInvalid, store.CodeInvalidMedia},
		{"no such user", store.NewDM{From: alice, To: 999, Content: "hi"}, store.ErrNotFound, store.CodeUserNotFound},
	} {
		_, err := s.SendDM(s.ctx, c.nm)
		var e *store.Error
		if !errors.As(err, &e) || e.Code != c.code || !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %s", c.name, err, c.code)
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("refused messages wrote:\nbefore %s\n after %s", before, after)
	}
	// Those who may write, write: 1000 characters; the one dave follows;
	// one's own image, which no other post or message may take then.
	s.send(alice, bob, strings.Repeat("字", 1000))
	s.send(alice, dave, "hi dave")
	m, err := s.SendDM(s.ctx, store.NewDM{From: bob, To: alice, Content: "look", MediaIDs: []int64{img.ID}})
	if err != nil || len(m.Media) != 1 || m.Media[0].ID != img.ID {
		t.Fatalf("message with bob's image = %+v, %v", m, err)
	}
	if _, err := s.Create(s.ctx, store.NewPost{Author: bob, Content: "again", MediaIDs: []int64{img.ID}}); err == nil {
		t.Fatal("a post took an image a message carries")
	}
	// Who may write, back to everyone.
	if err := s.SetDMsFrom(s.ctx, dave, store.DMsFromEveryone); err != nil {
		t.Fatal(err)
	}
	s.send(bob, dave, "now I may")
	if err := s.SetDMsFrom(s.ctx, dave, "friends"); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("messages_from friends: %v, want invalid", err)
	}
	if u, _ := s.User(s.ctx, dave, dave); u.DMsFrom != store.DMsFromEveryone {
		t.Fatalf("dave's messages_from = %q", u.DMsFrom)
	}
}

// TestDMIdempotency: a retry with the same Idempotency-Key gets the
// first message and writes no second; the key with another body, or the
// key of a post, is refused.
func TestDMIdempotency(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	nm := store.NewDM{From: alice, To: bob, Content: "once", IdempotencyKey: "k1"}
	first, err := s.SendDM(s.ctx, nm)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.SendDM(s.ctx, nm)
	if err != nil || again.ID != first.ID || again.Content != "once" {
		t.Fatalf("retry = %+v, %v; want message %d", again, err, first.ID)
	}
	if got := s.conversation(bob, alice); len(got) != 1 {
		t.Fatalf("bob's conversation holds %v, want one message", got)
	}
	nm.Content = "twice"
	if _, err := s.SendDM(s.ctx, nm); !errors.Is(err, store.ErrIdemKeyReused) {
		t.Fatalf("the key with another body: %v, want reused", err)
	}
	s.post(store.NewPost{Author: alice, Content: "a post", IdempotencyKey: "k2"})
	if _, err := s.SendDM(s.ctx, store.NewDM{From: alice, To: bob, Content: "a post", IdempotencyKey: "k2"}); !errors.Is(err, store.ErrIdemKeyReused) {
		t.Fatalf("a post's key: %v, want reused", err)
	}
	if _, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "once", IdempotencyKey: "k1"}); !errors.Is(err, store.ErrIdemKeyReused) {
		t.Fatalf("a message's key for a post: %v, want reused", err)
	}
}

// TestDeleteMessage: only its sender deletes a message (its recipient gets
// 403, anyone else 404); it is gone for both, their lists show the message
// before it, and the recipient's unread count follows.
func TestDeleteMessage(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	m1 := s.send(alice, bob, "one")
	m2 := s.send(alice, bob, "two")
	if err := s.DeleteDM(s.ctx, bob, m2.ID); !errors.Is(err, store.ErrNotSender) {
		t.Fatalf("recipient's delete: %v, want 403", err)
	}
	if err := s.DeleteDM(s.ctx, carol, m2.ID); !errors.Is(err, store.ErrDMNotFound) {
		t.Fatalf("stranger's delete: %v, want 404", err)
	}
	if err := s.DeleteDM(s.ctx, alice, m2.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDM(s.ctx, alice, m2.ID); !errors.Is(err, store.ErrDMNotFound) {
		t.Fatalf("second delete: %v, want 404", err)
	}
	for _, uid := range []int64{alice, bob} {
		if got := s.conversation(uid, alice+bob-uid); !slices.Equal(got, []int64{m1.ID}) {
			t.Fatalf("conversation of %d = %v, want [%d]", uid, got, m1.ID)
		}
		if c := s.conversations(uid); len(c) != 1 || c[0].LastDM.ID != m1.ID {
			t.Fatalf("conversations of %d = %+v", uid, c)
		}
	}
	if c := s.conversations(bob); c[0].UnreadCount != 1 {
		t.Fatalf("bob's unread = %d, want 1", c[0].UnreadCount)
	}
	if err := s.DeleteDM(s.ctx, alice, m1.ID); err != nil {
		t.Fatal(err)
	}
	if c := s.conversations(bob); len(c) != 0 || s.unreadDMs(bob) != 0 {
		t.Fatalf("bob's conversations with nothing left = %+v, unread %d", c, s.unreadDMs(bob))
	}
}

// TestRepairHalfWrittenMessage: a message whose process stopped after its
// hash (as on a cluster) is finished by the checker: both sides hold it;
// one whose Idempotency-Key a retry holds by now is removed.
func TestRepairHalfWrittenMessage(t *testing.T) {
	parallel(t)
	s, m := newRepairStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	half := func(nm store.NewDM) int64 {
		mid, err := dm.WriteHalf(s.ctx, s.DMs, nm)
		if err != nil {
			t.Fatal(err)
		}
		return mid
	}
	lost := half(store.NewDM{From: alice, To: bob, Content: "stopped half way"})
	retried := half(store.NewDM{From: alice, To: bob, Content: "retried", IdempotencyKey: "k"})
	// The retry, after the first request's claim ran out, made its own.
	s.rdb.Del(s.ctx, s.keys.Idempotency(alice, store.TokenHash("k")))
	kept, err := s.SendDM(s.ctx, store.NewDM{From: alice, To: bob, Content: "retried", IdempotencyKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.repair(); n != 2 {
		t.Fatalf("%d repairs, want 2", n)
	}
	if repairs(m, schema.RepairDMIndexed) != 1 || repairs(m, schema.RepairDMRemoved) != 1 {
		t.Fatalf("repairs: %d indexed, %d removed", repairs(m, schema.RepairDMIndexed), repairs(m, schema.RepairDMRemoved))
	}
	want := []int64{kept.ID, lost}
	for _, uid := range []int64{alice, bob} {
		if got := s.conversation(uid, alice+bob-uid); !slices.Equal(got, want) {
			t.Fatalf("conversation of %d = %v, want %v (not %d)", uid, got, want, retried)
		}
	}
	if n := s.repair(); n != 0 {
		t.Fatalf("a second run made %d repairs", n)
	}
}
