package redisdb

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"microblog/store"
)

// TestPollClock: a poll closes at its time by the store's clock: a vote
// before it counts, one after is poll_expired, and a reader sees expired;
// the vote script checks the time too, for a poll read as open a moment
// before it closed.
func TestPollClock(t *testing.T) {
	parallel(t)
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli())
	s := newTestStoreWith(t, Options{Now: func() time.Time { return time.UnixMilli(now.Load()) }})
	alice, bob, carol, dan := s.user("alice"), s.user("bob"), s.user("carol"), s.user("dan")
	p := s.post(store.NewPost{Author: alice, Content: "soon closed", Poll: &store.NewPoll{Options: []string{"a", "b"}, ExpiresIn: 300}})
	if p.Poll == nil || int64(p.Poll.ExpiresAt) != now.Load()+300_000 || p.Poll.Expired {
		t.Fatalf("new poll %+v", p.Poll)
	}
	got, err := s.Vote(s.ctx, bob, p.ID, []int{1})
	if err != nil || !slices.Equal([]int64{got.Options[0].VotesCount, got.Options[1].VotesCount}, []int64{0, 1}) {
		t.Fatalf("bob's vote: %+v %v", got, err)
	}
	if _, err := s.Vote(s.ctx, bob, p.ID, []int{0}); !errors.Is(err, store.ErrAlreadyVoted) {
		t.Fatalf("bob again: %v", err)
	}
	now.Add(299_999)
	if _, err := s.Vote(s.ctx, carol, p.ID, []int{0}); err != nil {
		t.Fatalf("carol, a millisecond before it closes: %v", err)
	}
	now.Add(1)
	if _, err := s.Vote(s.ctx, dan, p.ID, []int{0}); !errors.Is(err, store.ErrPollExpired) {
		t.Fatalf("dan, as it closes: %v", err)
	}
	read, err := s.Post(s.ctx, p.ID, dan)
	if err != nil || !read.Poll.Expired || read.Poll.VotersCount != 2 || *read.Poll.Voted {
		t.Fatalf("dan reads %+v %v", read.Poll, err)
	}
	// The script's own check: a poll whose time passed between the read
	// and the vote (here: its close time set back in Redis).
	q := s.post(store.NewPost{Author: alice, Content: "another", Poll: &store.NewPoll{Options: []string{"x", "y", "z"}, ExpiresIn: 3600, Multiple: true}})
	if err := s.rdb.HSet(s.ctx, s.keys.PollVotes(q.ID), "expires", now.Load()).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Vote(s.ctx, dan, q.ID, []int{0, 2}); !errors.Is(err, store.ErrPollExpired) {
		t.Fatalf("the script lets a closed poll take a vote: %v", err)
	}
}
