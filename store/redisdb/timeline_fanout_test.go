package redisdb

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
)

// TestFanOutReachesEveryFan follows one star by more fans than one batch of
// the fan-out holds (a batch of 10 here, so that the fans sign up and
// follow through the store in a moment; runner's tests walk batches of the
// real size over seeded fans), and checks the workers push a post into, and
// its delete takes it out of, every fan's G set.
func TestFanOutReachesEveryFan(t *testing.T) {
	parallel(t)
	const batch = 10
	s := newTestStoreFanOut(t, Options{}, runner.FanOutOptions{ClaimIdle: time.Second, Batch: batch})
	star := s.user("star")
	uids := make([]int64, 3*batch+7)
	for i := range uids {
		uids[i] = s.user(fmt.Sprintf("fan%d", i))
		s.follow(uids[i], star)
	}
	p := s.post(store.NewPost{Author: star, Content: "to everyone"})
	s.settle()
	missing := 0
	for _, u := range uids {
		if !s.inHome(u, p.ID) {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d fans lack the post", missing, len(uids))
	}
	if err := s.Delete(s.ctx, star, p.ID); err != nil {
		t.Fatal(err)
	}
	s.settle()
	for _, u := range uids {
		if s.inHome(u, p.ID) {
			t.Fatalf("fan %d still has post %d after the delete", u, p.ID)
		}
	}
}

// TestHomeTimelineKeepsHotWindow checks G is trimmed to the newest HotWindow ids.
func TestHomeTimelineKeepsHotWindow(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{HotWindow: 10})
	u := s.user("writer")
	var last store.Post
	for i := range 25 {
		last = s.post(store.NewPost{Author: u, Content: fmt.Sprint("post ", i)})
	}
	if n := s.rdb.ZCard(s.ctx, s.keys.Home(u)).Val(); n != 10 {
		t.Fatalf("G holds %d ids, want 10", n)
	}
	if n := s.rdb.ZCard(s.ctx, s.keys.PublicTimeline()).Val(); n != 10 {
		t.Fatalf("global:timeline holds %d ids, want 10", n)
	}
	since, err := s.HomeSince(s.ctx, u, last.ID-3, 100, nil)
	if err != nil || len(since) != 3 || since[0].ID != last.ID-2 || since[2].ID != last.ID {
		t.Fatalf("HomeSince = %v, %v; want the last 3, oldest first", since, err)
	}
	// A resume's ?seen= (store.ResumePoint): the posts a client has are
	// neither returned nor counted against max.
	since, err = s.HomeSince(s.ctx, u, last.ID-6, 2, []int64{last.ID, last.ID - 2, last.ID - 3})
	if err != nil || len(since) != 2 || since[0].ID != last.ID-4 || since[1].ID != last.ID-1 {
		t.Fatalf("HomeSince skipping 3 = %v, %v; want %d and %d", since, err, last.ID-4, last.ID-1)
	}
}

// TestCelebritiesArePulled: an author with CelebrityFans fans is not pushed;
// its fans' home timelines merge its F set by id with their G, and paging
// with the cursor has no gap and no duplicate.
func TestCelebritiesArePulled(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{CelebrityFans: 3})
	celeb, plain := s.user("celeb"), s.user("plain")
	fans := []int64{s.user("f1"), s.user("f2"), s.user("f3")}
	for _, f := range fans {
		s.follow(f, celeb)
		s.follow(f, plain)
	}
	if ok, _ := s.rdb.SIsMember(s.ctx, s.keys.Celebrities(), celeb).Result(); !ok {
		t.Fatal("an author with 3 fans is not a celebrity at threshold 3")
	}
	var want []int64
	for i := range 40 {
		author := plain
		if i%3 != 0 {
			author = celeb
		}
		want = append(want, s.post(store.NewPost{Author: author, Content: fmt.Sprint(i)}).ID)
	}
	s.settle()
	slices.Reverse(want)
	for _, f := range fans {
		if got := s.homeIDs(f); !slices.Equal(got, want) {
			t.Fatalf("fan %d's home: %v, want %v", f, got, want)
		}
		for _, mid := range want {
			if post, _ := s.Post(s.ctx, mid, 0); post.Author.ID == celeb && s.inHome(f, mid) {
				t.Fatalf("the celebrity's post %d was pushed into fan %d's G", mid, f)
			}
		}
	}
	since, err := s.HomeSince(s.ctx, fans[0], want[5], 100, nil)
	if err != nil || len(since) != 5 || since[4].ID != want[0] {
		t.Fatalf("HomeSince after %d: %v, %v", want[5], ids(since), err)
	}
}

// TestCrossingTheThresholdLosesNothing: fans come and go around the
// threshold while the author posts; once the queue settles, every fan sees
// every post of the author exactly once, and the mode matches the count.
func TestCrossingTheThresholdLosesNothing(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{CelebrityFans: 3})
	star := s.user("star")
	fans := []int64{s.user("f1"), s.user("f2"), s.user("f3"), s.user("f4")}
	var posts []int64
	write := func() { posts = append(posts, s.post(store.NewPost{Author: star, Content: "x"}).ID) }
	s.follow(fans[0], star)
	write()
	s.follow(fans[1], star)
	write()
	s.follow(fans[2], star) // up: a celebrity
	write()
	write()
	if err := s.Unfollow(s.ctx, fans[2], star); err != nil { // down
		t.Fatal(err)
	}
	write()
	s.follow(fans[3], star) // up again, perhaps while the backfill runs
	write()
	if err := s.Unfollow(s.ctx, fans[3], star); err != nil { // and down
		t.Fatal(err)
	}
	write()
	s.settle()
	want := slices.Clone(posts)
	slices.Reverse(want)
	for _, f := range fans[:2] {
		if got := s.homeIDs(f); !slices.Equal(got, want) {
			t.Fatalf("fan %d sees %v, want %v", f, got, want)
		}
	}
	mode, _ := s.rdb.HGet(s.ctx, s.keys.User(star), schema.FieldFanOut).Result()
	celeb, _ := s.rdb.SIsMember(s.ctx, s.keys.Celebrities(), star).Result()
	if mode != "" || celeb {
		t.Fatalf("with 2 fans the author is in mode %q (celebrity %v), want push", mode, celeb)
	}
	for _, f := range fans[:2] {
		for _, mid := range posts {
			if !s.inHome(f, mid) {
				t.Fatalf("post %d is not in fan %d's G once the author is pushed again", mid, f)
			}
		}
	}
}

// TestReturningUsersPull: a fan away longer than InactiveAfter gets no
// pushes (its G untouched); when it comes back its home timeline is rebuilt
// from its stars' F sets and equals that of a twin who never left.
func TestReturningUsersPull(t *testing.T) {
	parallel(t)
	clock := time.UnixMilli(1_800_000_000_000)
	s := newTestStoreWith(t, Options{InactiveAfter: time.Hour, Now: func() time.Time { return clock }})
	a, b := s.user("aa"), s.user("bb")
	away, twin := s.user("away"), s.user("twin")
	for _, f := range []int64{away, twin} {
		s.follow(f, a)
		s.follow(f, b)
	}
	s.post(store.NewPost{Author: a, Content: "before"})
	s.homeIDs(away)
	s.settle()
	gBefore, _ := s.rdb.ZRange(s.ctx, s.keys.Home(away), 0, -1).Result()

	clock = clock.Add(2 * time.Hour) // away is away; twin keeps reading
	s.homeIDs(twin)
	for i := range 6 {
		s.post(store.NewPost{Author: []int64{a, b}[i%2], Content: fmt.Sprint("while away ", i)})
	}
	s.settle()
	if gNow, _ := s.rdb.ZRange(s.ctx, s.keys.Home(away), 0, -1).Result(); !slices.Equal(gNow, gBefore) {
		t.Fatalf("pushes reached a user away for 2h: G %v, was %v", gNow, gBefore)
	}
	if got, want := s.homeIDs(away), s.homeIDs(twin); !slices.Equal(got, want) || len(want) != 7 {
		t.Fatalf("back after 2h: %v, the twin sees %v", got, want)
	}
	p := s.post(store.NewPost{Author: a, Content: "after the return"})
	s.settle()
	if !s.inHome(away, p.ID) {
		t.Fatal("a returned user gets no pushes")
	}
}
