package redisdb

import (
	"context"
	"fmt"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/storetest"
)

// TestFanOutReachesEveryFan follows one star by more fans than one pipeline
// batch holds, and checks a post reaches, and its delete leaves, every one.
func TestFanOutReachesEveryFan(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	star, _, err := s.Register(ctx, "star", "password123")
	if err != nil {
		t.Fatal(err)
	}
	const fans = fanOutBatch + 7
	uids := make([]int64, fans)
	for i := range uids {
		u, _, err := s.Register(ctx, fmt.Sprintf("fan%d", i), "password123")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Follow(ctx, u.ID, star.ID); err != nil {
			t.Fatal(err)
		}
		uids[i] = u.ID
	}
	p, err := s.Create(ctx, store.NewPost{Author: star.ID, Content: "to everyone"})
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, u := range uids {
		if last, _ := s.LastID(ctx, u); last != p.ID {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d fans lack the post", missing, fans)
	}
	if err := s.Delete(ctx, star.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	for _, u := range uids {
		if last, _ := s.LastID(ctx, u); last != 0 {
			t.Fatalf("fan %d still has post %d after the delete", u, last)
		}
	}
}

// TestHomeTimelineKeepsHotWindow checks G is trimmed to the newest HotWindow ids.
func TestHomeTimelineKeepsHotWindow(t *testing.T) {
	ctx := context.Background()
	rdb := storetest.Start(t).Client()
	s := New(rdb, Options{BcryptCost: bcrypt.MinCost, HotWindow: 10})
	u, _, err := s.Register(ctx, "writer", "password123")
	if err != nil {
		t.Fatal(err)
	}
	var last store.Post
	for i := range 25 {
		if last, err = s.Create(ctx, store.NewPost{Author: u.ID, Content: fmt.Sprint("post ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rdb.ZCard(ctx, s.keys.home(u.ID)).Val(); n != 10 {
		t.Fatalf("G holds %d ids, want 10", n)
	}
	if n := rdb.ZCard(ctx, s.keys.publicTimeline()).Val(); n != 10 {
		t.Fatalf("global:timeline holds %d ids, want 10", n)
	}
	since, err := s.HomeSince(ctx, u.ID, last.ID-3, 100)
	if err != nil || len(since) != 3 || since[0].ID != last.ID-2 || since[2].ID != last.ID {
		t.Fatalf("HomeSince = %v, %v; want the last 3, oldest first", since, err)
	}
}
