package redisdb

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"microblog/store"
)

// TestFollowBringsRecentPostsAndUnfollowTakesThem: following copies the
// star's posts into the fan's home timeline in id order; unfollowing takes
// them out again and leaves the fan's own.
func TestFollowBringsRecentPostsAndUnfollowTakesThem(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	a1 := s.post(store.NewPost{Author: alice, Content: "a1"})
	b1 := s.post(store.NewPost{Author: bob, Content: "b1"})
	a2 := s.post(store.NewPost{Author: alice, Content: "a2"})
	s.follow(bob, alice)
	s.follow(bob, alice) // idempotent
	home, err := s.HomeTimeline(s.ctx, bob, store.PageQuery{})
	if got, want := ids(home.Items), []int64{a2.ID, b1.ID, a1.ID}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("bob's home %v, %v; want %v", got, err, want)
	}
	if stars, _ := s.Stars(s.ctx, bob); !slices.Equal(stars, []int64{alice}) {
		t.Fatalf("bob's stars %v", stars)
	}
	if err := s.Unfollow(s.ctx, bob, alice); err != nil {
		t.Fatal(err)
	}
	home, _ = s.HomeTimeline(s.ctx, bob, store.PageQuery{})
	if got := ids(home.Items); !slices.Equal(got, []int64{b1.ID}) {
		t.Fatalf("bob's home after unfollowing %v, want only his own", got)
	}
	wantCode(t, s.Follow(s.ctx, bob, bob), store.ErrInvalid, store.CodeCannotFollowSelf)
	wantCode(t, s.Follow(s.ctx, bob, 999), store.ErrNotFound, store.CodeUserNotFound)
}

// TestRelationPagesSurviveTies: followers made in the same millisecond page
// by the cursor's (time, member) with no gap and no duplicate, newest first.
func TestRelationPagesSurviveTies(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	frozen := time.UnixMilli(1_700_000_000_000)
	s.opt.Now = func() time.Time { return frozen }
	star := s.user("star")
	var fans []int64
	for i := range 25 {
		if i == 10 {
			frozen = frozen.Add(time.Millisecond)
		}
		fan := s.user(fmt.Sprintf("fan%d", i))
		s.follow(fan, star)
		fans = append(fans, fan)
	}
	var seen []int64
	q := store.PageQuery{Limit: 7}
	for range 10 {
		page, err := s.Followers(s.ctx, star, 0, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range page.Items {
			seen = append(seen, u.ID)
		}
		if page.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != len(fans) {
		t.Fatalf("paged %d followers, want %d: %v", len(seen), len(fans), seen)
	}
	// Newest follow first: the 15 of the later millisecond before the first 10.
	later := map[int64]bool{}
	for _, f := range fans[10:] {
		later[f] = true
	}
	for i, uid := range seen {
		if later[uid] != (i < 15) {
			t.Fatalf("follower %d at position %d is out of follow-time order: %v", uid, i, seen)
		}
	}
	sorted := slices.Clone(seen)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(fans) {
		t.Fatalf("duplicates in %v", seen)
	}
}

// TestTimelinePagesSkipGoneMessages: a page whose ids point at deleted
// messages is filled from further down, and the cursor and after bound page
// through the rest with no gap and no duplicate.
func TestTimelinePagesSkipGoneMessages(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	var all []int64
	for i := range 30 {
		all = append(all, s.post(store.NewPost{Author: alice, Content: fmt.Sprint("p", i)}).ID)
	}
	// Gone behind the store's back, as an archived message would be.
	for _, mid := range all[20:26] {
		s.rdb.Del(s.ctx, s.keys.Post(mid))
	}
	want := slices.Concat(all[5:20], all[26:])
	slices.Reverse(want)
	var got []int64
	q := store.PageQuery{Limit: 4, After: all[4]}
	for range 20 {
		page, err := s.UserPosts(s.ctx, alice, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(page.Items)...)
		if page.NextCursor == nil {
			break
		}
		q = store.PageQuery{Limit: 4} // the cursor carries the after bound
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged %v, want %v", got, want)
	}
	if n, _ := s.rdb.ZCard(s.ctx, s.keys.UserPosts(alice)).Result(); n != 24 {
		t.Fatalf("F holds %d ids, want 24 once the readers dropped the gone ones", n)
	}
}
