package redisdb

import (
	"slices"
	"testing"

	"microblog/store"
)

// TestFedPollCounts: a remote poll's counts are set as its server reports
// them, and read back as any poll's; a post without a poll, or deleted, is
// left without one.
func TestFedPollCounts(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	p := s.post(store.NewPost{Author: alice, Content: "which?", Poll: &store.NewPoll{Options: []string{"a", "b", "c"}, ExpiresIn: 3600}})
	if err := s.SetPollCounts(s.ctx, p.ID, []int64{4, -1, 2, 9}, 6); err != nil {
		t.Fatal(err)
	}
	got, err := s.Poll(s.ctx, alice, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	counts := []int64{got.Options[0].VotesCount, got.Options[1].VotesCount, got.Options[2].VotesCount}
	if !slices.Equal(counts, []int64{4, 0, 2}) || got.VotersCount != 6 || got.VotesCount != 6 {
		t.Errorf("poll after the counts: %+v", got)
	}
	plain := s.post(store.NewPost{Author: alice, Content: "no poll"})
	if err := s.SetPollCounts(s.ctx, plain.ID, []int64{1, 2}, 3); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.rdb.Exists(s.ctx, s.keys.PollVotes(plain.ID)).Result(); n != 0 {
		t.Errorf("a post without a poll got counts")
	}
}

// TestFedActivities: an activity id kept is taken once, per user and
// name; an unknown one is "".
func TestFedActivities(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	if err := s.RememberActivity(s.ctx, 7, "follow:9", "https://here.example/ap/activities/f1"); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberActivity(s.ctx, 8, "follow:9", "other"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"https://here.example/ap/activities/f1", ""} {
		if got, err := s.TakeActivity(s.ctx, 7, "follow:9"); err != nil || got != want {
			t.Errorf("take %d: %q %v, want %q", i, got, err, want)
		}
	}
	if got, _ := s.TakeActivity(s.ctx, 8, "follow:9"); got != "other" {
		t.Errorf("user 8's: %q", got)
	}
}
