package redisdb

import (
	"fmt"
	"slices"
	"testing"
)

// hotPosts counts the messages of ids whose hash is still in Redis.
func (s testStore) hotPosts(ids []int64) int {
	n := 0
	for _, pmid := range ids {
		if s.rdb.Exists(s.ctx, s.keys.DM(pmid)).Val() == 1 {
			n++
		}
	}
	return n
}

// TestConversationArchive: with a window of 20, two users write 150
// messages. Both page back to the first, across the seam between Redis and
// the archive; Redis keeps about 20 of them; the unread count, the live
// replay and deletes reach into the archive.
func TestConversationArchive(t *testing.T) {
	parallel(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			const window, total = 20, 150
			s := newArchivedStore(t, e.dsn(t), Options{HotWindow: window})
			alice, bob := s.user("alice"), s.user("bob")
			var sent []int64
			for i := range total {
				from, to := alice, bob
				if i%3 == 2 {
					from, to = bob, alice
				}
				sent = append(sent, s.send(from, to, fmt.Sprintf("message %d 第%d条", i, i)).ID)
			}
			s.archived()
			newestFirst := slices.Clone(sent)
			slices.Reverse(newestFirst)
			for _, uid := range []int64{alice, bob} {
				if got := s.conversation(uid, alice+bob-uid); !slices.Equal(got, newestFirst) {
					t.Fatalf("conversation of %d: %d ids %v…, want the %d newest first", uid, len(got), got[:min(5, len(got))], total)
				}
			}
			if hot := s.hotPosts(sent); hot > window+5 {
				t.Fatalf("Redis holds %d of the %d messages' hashes, want about %d", hot, total, window)
			}
			for _, key := range []string{s.keys.Conversation(alice, bob), s.keys.Conversation(bob, alice)} {
				if n := s.rdb.ZCard(s.ctx, key).Val(); n > window+5 {
					t.Fatalf("%s holds %d ids, want about %d", key, n, window)
				}
			}
			// Writing is reading: bob wrote the last message, alice the one
			// before.
			if c := s.conversations(bob); len(c) != 1 || c[0].UnreadCount != 0 || c[0].LastDM.ID != sent[total-1] {
				t.Fatalf("bob's conversations = %+v", c)
			}
			if c := s.conversations(alice); c[0].UnreadCount != 1 {
				t.Fatalf("alice's unread = %d, want 1", c[0].UnreadCount)
			}
			// Carol writes to dave, who never reads: most of the unread
			// messages are archived.
			carol, dave := s.user("carol"), s.user("dave")
			var unread []int64
			for i := range 3 * window {
				unread = append(unread, s.send(carol, dave, fmt.Sprint("unread ", i)).ID)
			}
			s.archived()
			if c := s.conversations(dave); len(c) != 1 || c[0].UnreadCount != 3*window {
				t.Fatalf("dave's conversations = %+v, want %d unread", c, 3*window)
			}
			if err := s.DeleteDM(s.ctx, carol, unread[0]); err != nil {
				t.Fatal(err)
			}
			if err := s.MarkConversationRead(s.ctx, dave, carol, unread[window]); err != nil {
				t.Fatal(err)
			}
			if c := s.conversations(dave); c[0].UnreadCount != 2*window-1 || s.unreadDMs(dave) != 1 {
				t.Fatalf("dave's unread after a delete and reading %d = %d", window, c[0].UnreadCount)
			}
			// The live replay reaches into the archive too.
			since, err := s.DMsSince(s.ctx, alice, sent[9], 200)
			if err != nil || !slices.Equal(messageIDs(since...), sent[10:]) {
				t.Fatalf("alice's messages since the 10th: %d, %v", len(since), err)
			}
			// A delete of an archived message, by its sender.
			if err := s.DeleteDM(s.ctx, bob, sent[2]); err != nil {
				t.Fatal(err)
			}
			if err := s.DeleteDM(s.ctx, bob, sent[0]); err == nil {
				t.Fatal("bob deleted alice's archived message")
			}
			s.archived()
			if got := s.conversation(alice, bob); slices.Contains(got, sent[2]) || len(got) != total-1 {
				t.Fatalf("after the delete alice's conversation holds %d messages (%v)", len(got), slices.Contains(got, sent[2]))
			}
			if err := s.MarkConversationRead(s.ctx, alice, bob, sent[total-1]); err != nil {
				t.Fatal(err)
			}
			if c := s.conversations(alice); c[0].UnreadCount != 0 || s.unreadDMs(alice) != 0 {
				t.Fatalf("alice's unread after reading = %+v", c)
			}
			if n := s.rdb.Exists(s.ctx, s.keys.DM(sent[2])).Val(); n != 0 {
				t.Fatal("the tombstone of the archived delete is still in Redis")
			}
		})
	}
}

// TestConversationMemoryFlat measures Redis memory per conversation past
// its window: the keys of one conversation (its two sides and the hashes
// of its messages in Redis, every element counted) after 2 windows of
// messages and after 10 are the same size, within a little. The window is above 128, where Redis
// keeps a sorted set as a skip list rather than a listpack: a set that
// has once grown past it keeps that encoding, so a window below it would
// measure when the archiver lagged, not how much was written.
func TestConversationMemoryFlat(t *testing.T) {
	parallel(t)
	const window = 150
	s := newArchivedStore(t, engines[0].dsn(t), Options{HotWindow: window})
	alice, bob := s.user("alice"), s.user("bob")
	var sent []int64
	// Written half a window at a time, the archiver keeping up, as it does
	// in a steady state: a set the archiver lags behind holds the lag too,
	// and Redis shrinks the hash table grown for it only later.
	write := func(n int) {
		for i := range n {
			from, to := alice, bob
			if i%2 == 1 {
				from, to = bob, alice
			}
			sent = append(sent, s.send(from, to, fmt.Sprintf("消息 %d: a message of some length, like people write", len(sent))).ID)
			if i%(window/2) == window/2-1 {
				s.archived()
			}
		}
		s.archived()
	}
	usage := func() int64 {
		keys := []string{s.keys.Conversation(alice, bob), s.keys.Conversation(bob, alice),
			s.keys.Conversations(alice), s.keys.Conversations(bob), s.keys.ConversationsRead(alice),
			s.keys.ConversationsRead(bob), s.keys.ConversationsArchived(alice), s.keys.ConversationsArchived(bob)}
		for _, pmid := range sent {
			keys = append(keys, s.keys.DM(pmid))
		}
		var total int64
		for _, k := range keys {
			total += s.rdb.MemoryUsage(s.ctx, k, 0).Val() // SAMPLES 0: every element, not an estimate
		}
		return total
	}
	write(2 * window)
	small := usage()
	write(8 * window)
	large := usage()
	t.Logf("Redis memory of one conversation, window %d: %d B after %d messages, %d B after %d (%.2fx); "+
		"%.0f B per message in the window, %.1f B per message past it",
		window, small, 2*window, large, 10*window, float64(large)/float64(small),
		float64(small)/window, float64(large-small)/(8*window))
	// The two sides' sorted sets hold the window either way; their size
	// still varies by some 15% from one run to another (the random levels
	// of a skip list, and a hash table sized for the most ids the set held
	// while the archiver caught up), not with what was written.
	if float64(large) > 1.25*float64(small) {
		t.Fatalf("memory grew from %d B to %d B with 5 times the messages", small, large)
	}
}
