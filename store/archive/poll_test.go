package archive_test

import (
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

// TestSavePoll: a post's poll definition is archived with it and read
// back; a tombstone clears it with the text.
func TestSavePoll(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		def := store.PollDefinition{Options: []string{"茶", "coffee"}, ExpiresAt: 1_700_000_600_000, Multiple: true}.JSON()
		p := post(1, 7, "a poll")
		p.Poll = def
		save(t, db, []store.Archived{p, post(2, 7, "no poll")}, nil)
		got := messages(t, db, 1, 2)
		if got[1].Poll != def || got[2].Poll != "" {
			t.Fatalf("polls read back %q and %q, want %q and none", got[1].Poll, got[2].Poll, def)
		}
		if d := store.ParsePollDefinition(got[1].Poll); d == nil || d.Options[0] != "茶" || !d.Multiple {
			t.Fatalf("definition %+v", d)
		}
		save(t, db, nil, []store.Archived{tombstone(p)})
		if got := messages(t, db, 1); got[1].Poll != "" || !got[1].Deleted {
			t.Fatalf("tombstone keeps its poll: %+v", got[1])
		}
	})
}
