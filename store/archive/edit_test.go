package archive_test

import (
	"context"
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

// edited is m as an edit at (unix ms) leaves it, with history as given.
func edited(m store.Archived, content string, at int64, history string) store.Archived {
	m.Content, m.Edited, m.History = content, at, history
	m.Tags = `["edited"]`
	return m
}

func saveEdits(t testing.TB, db *archive.DB, edits ...store.Archived) {
	t.Helper()
	if err := db.SaveEdits(context.Background(), edits); err != nil {
		t.Fatalf("save edits: %v", err)
	}
}

// TestSaveEdits: an edit saved before its message inserts the whole row
// (the put that follows changes nothing); a newer edit replaces an older
// one, never the other way round, and a replay changes nothing.
func TestSaveEdits(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		p := post(1, 1, "first")
		e1 := edited(p, "second", 2000, `[{"content":"first","created_at":"2023-11-14T22:13:20.001Z"}]`)
		e2 := edited(p, "third", 3000, `[{"content":"first","created_at":"2023-11-14T22:13:20.001Z"},{"content":"second","created_at":"1970-01-01T00:00:02.000Z"}]`)

		saveEdits(t, db, e1)
		save(t, db, []store.Archived{p}, nil)
		if got := messages(t, db, 1)[1]; got != e1 {
			t.Errorf("edit saved before its put:\n got %+v\nwant %+v", got, e1)
		}
		saveEdits(t, db, e2)
		saveEdits(t, db, e1, e2) // a replay, and an older edit after the newer
		if got := messages(t, db, 1)[1]; got != e2 {
			t.Errorf("after the newer edit and a replay:\n got %+v\nwant %+v", got, e2)
		}
	})
}

// TestSaveEditsKeepsTombstones: an edit saved after its delete, or before
// it, leaves a tombstone with no text and no history.
func TestSaveEditsKeepsTombstones(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		a, b := post(1, 1, "a"), post(2, 1, "b")
		save(t, db, []store.Archived{a, b}, []store.Archived{tombstone(post(1, 1, ""))})
		saveEdits(t, db, edited(a, "a2", 2000, `[{"content":"a","created_at":"1970-01-01T00:00:01.000Z"}]`),
			edited(b, "b2", 2000, `[{"content":"b","created_at":"1970-01-01T00:00:01.000Z"}]`))
		save(t, db, nil, []store.Archived{tombstone(post(2, 1, ""))})
		for mid, got := range messages(t, db, 1, 2) {
			if !got.Deleted || got.Content != "" || got.History != "" || got.Tags != "" {
				t.Errorf("message %d = %+v, want a tombstone", mid, got)
			}
		}
	})
}

// TestEdit: an edit in place takes only while the row is as its editor
// read it, and never on a tombstone.
func TestEdit(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		p := post(1, 1, "first")
		save(t, db, []store.Archived{p, post(2, 1, "gone")}, []store.Archived{tombstone(post(2, 1, ""))})
		e1 := edited(p, "second", 2000, `[{"content":"first","created_at":"2023-11-14T22:13:20.001Z"}]`)
		if ok, err := db.Edit(ctx, e1, 0); !ok || err != nil {
			t.Fatalf("first edit = %v, %v; want true", ok, err)
		}
		if ok, err := db.Edit(ctx, edited(p, "lost", 2500, ""), 0); ok || err != nil {
			t.Errorf("an edit of what changed meanwhile = %v, %v; want false", ok, err)
		}
		if got := messages(t, db, 1)[1]; got != e1 {
			t.Errorf("after the edits:\n got %+v\nwant %+v", got, e1)
		}
		for _, m := range []store.Archived{edited(post(2, 1, ""), "back", 2000, ""), edited(post(3, 1, ""), "never", 2000, "")} {
			if ok, err := db.Edit(ctx, m, 0); ok || err != nil {
				t.Errorf("edit of message %d (deleted, or never archived) = %v, %v; want false", m.ID, ok, err)
			}
		}
	})
}
