package archive_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

func dm(id, from, to int64) store.ArchivedDM {
	return store.ArchivedDM{ID: id, Sender: from, Recipient: to,
		SenderName: fmt.Sprintf("user%d", from), RecipientName: fmt.Sprintf("用户%d", to),
		Content: fmt.Sprintf("私信 %d 🍜 \"quoted\"", id), Created: 1_700_000_000_000 + id,
		Media: `[{"id":3,"url":"/media/a.jpg"}]`}
}

func dmTombstone(m store.ArchivedDM) store.ArchivedDM {
	m.Deleted, m.Content, m.Media = true, "", ""
	return m
}

func saveDMs(t testing.TB, db *archive.DB, put, deleted []store.ArchivedDM) {
	t.Helper()
	if err := db.SaveDMs(context.Background(), put, deleted); err != nil {
		t.Fatalf("save messages: %v", err)
	}
}

func readDMs(t testing.TB, db *archive.DB, ids ...int64) map[int64]store.ArchivedDM {
	t.Helper()
	got, err := db.DMs(context.Background(), ids)
	if err != nil {
		t.Fatalf("direct messages %v: %v", ids, err)
	}
	return got
}

// TestDirectMessages: messages round-trip, a replay changes nothing, a
// tombstone clears a message whether it comes after or before it, and a
// conversation pages and counts the same from either side, past its
// deleted messages, without the messages of other conversations.
func TestDirectMessages(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		// Users 1 and 2 talk; 1 and 3 too.
		var put []store.ArchivedDM
		for id := int64(1); id <= 30; id++ {
			switch {
			case id%5 == 0:
				put = append(put, dm(id, 3, 1))
			case id%2 == 0:
				put = append(put, dm(id, 2, 1))
			default:
				put = append(put, dm(id, 1, 2))
			}
		}
		saveDMs(t, db, put, nil)
		saveDMs(t, db, put, nil) // a replay
		changed := dm(1, 1, 2)
		changed.Content = "changed"
		saveDMs(t, db, []store.ArchivedDM{changed}, nil)
		got := readDMs(t, db, 1, 2, 5, 99)
		if want := map[int64]store.ArchivedDM{1: put[0], 2: put[1], 5: put[4]}; !maps.Equal(got, want) {
			t.Errorf("messages:\n got %+v\nwant %+v", got, want)
		}

		// A delete after its message, and one before it.
		saveDMs(t, db, nil, []store.ArchivedDM{put[2]}) // 3
		early := dm(31, 2, 1)
		saveDMs(t, db, nil, []store.ArchivedDM{early})
		saveDMs(t, db, []store.ArchivedDM{early}, nil)
		got = readDMs(t, db, 3, 31)
		if want := map[int64]store.ArchivedDM{3: dmTombstone(put[2]), 31: dmTombstone(early)}; !maps.Equal(got, want) {
			t.Errorf("tombstones:\n got %+v\nwant %+v", got, want)
		}

		// The conversation of 1 and 2 from either side, newest first.
		var want []int64
		for id := int64(29); id >= 1; id-- {
			if id%5 != 0 && id != 3 {
				want = append(want, id)
			}
		}
		for _, q := range []store.ConversationQuery{{A: 1, B: 2}, {A: 2, B: 1}} {
			var all []int64
			for before := int64(0); ; {
				q.Before, q.Limit = before, 7
				ids, err := db.ConversationIDs(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, ids...)
				if len(ids) < 7 {
					break
				}
				before = ids[len(ids)-1]
			}
			if !slices.Equal(all, want) {
				t.Errorf("conversation %d–%d = %v, want %v", q.A, q.B, all, want)
			}
			n, err := db.CountConversation(ctx, store.ConversationQuery{A: q.A, B: q.B, After: 10, Before: 20})
			if err != nil || n != 8 { // 11–19 but 15
				t.Errorf("count of 11–19 = %d, %v; want 8", n, err)
			}
		}
		if ids, err := db.ConversationIDs(ctx, store.ConversationQuery{A: 3, B: 1, After: 20, Limit: 10}); err != nil || !slices.Equal(ids, []int64{30, 25}) {
			t.Errorf("conversation 3–1 after 20 = %v, %v; want [30 25]", ids, err)
		}
		if has, err := db.HasDMs(ctx, []int64{31, 3, 99, 3}); err != nil || !slices.Equal(has, []int64{31, 3}) {
			t.Errorf("has = %v, %v; want [31 3]", has, err)
		}
		if err := db.SaveDMs(ctx, []store.ArchivedDM{{ID: 5}}, nil); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("save of a message without users: %v, want ErrInvalid", err)
		}
		if _, err := db.ConversationIDs(ctx, store.ConversationQuery{A: 1, B: 2}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("conversation ids without a limit: %v, want ErrInvalid", err)
		}
		// Private messages are not posts: no post query finds them.
		if ids, err := db.IDs(ctx, store.ArchiveQuery{Authors: []int64{1, 2, 3}, Limit: 100}); err != nil || len(ids) != 0 {
			t.Errorf("posts of 1, 2, 3 = %v, %v; want none", ids, err)
		}
	})
}
