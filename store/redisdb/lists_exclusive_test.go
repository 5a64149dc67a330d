package redisdb

import (
	"slices"
	"testing"

	"microblog/store"
)

// TestListExclusive: the posts and reposts of an exclusive list's members
// leave the owner's home timeline, every page of it and its replay, and
// stay in the list's timeline; a repost by someone else of a member's post
// stays home. Making the list exclusive, adding and removing a member,
// unfollowing one and deleting the list each take effect on the next read,
// and a list that is not exclusive changes nothing.
func TestListExclusive(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	ann, bob, cat, dan := s.user("ann"), s.user("bob"), s.user("cat"), s.user("dan")
	for _, star := range []int64{bob, cat, dan} {
		s.follow(ann, star)
	}
	plain := s.newList(ann, "plain")
	l, err := s.CreateList(s.ctx, ann, store.NewList{Title: "quiet", Exclusive: true})
	if err != nil || !l.Exclusive {
		t.Fatalf("exclusive list %+v, %v", l, err)
	}
	for _, lid := range []int64{plain.ID, l.ID} {
		if err := s.AddListMembers(s.ctx, ann, lid, []int64{bob}); err != nil {
			t.Fatal(err)
		}
	}
	var bobs []int64
	for range 4 {
		bobs = append(bobs, s.post(store.NewPost{Author: bob, Content: "from bob"}).ID)
	}
	catPost := s.post(store.NewPost{Author: cat, Content: "from cat"})
	bobRepost := s.post(store.NewPost{Author: bob, RepostOf: catPost.ID})
	danRepost := s.post(store.NewPost{Author: dan, RepostOf: bobs[0]})
	s.settle()

	home := s.homeIDs(ann) // paged 7 at a time
	for _, mid := range append(slices.Clone(bobs), bobRepost.ID) {
		if slices.Contains(home, mid) {
			t.Fatalf("bob's %d on ann's home %v", mid, home)
		}
	}
	if !slices.Contains(home, catPost.ID) || !slices.Contains(home, danRepost.ID) {
		t.Fatalf("home %v lacks cat's post %d or dan's repost of bob's %d", home, catPost.ID, danRepost.ID)
	}
	since, err := s.HomeSince(s.ctx, ann, 0, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(since), bobs[3]) {
		t.Fatalf("the replay %v carries bob's %d", ids(since), bobs[3])
	}
	up, err := s.HomeTimeline(s.ctx, ann, store.PageQuery{Ascending: true, After: 0, Limit: 50})
	if err != nil || slices.Contains(ids(up.Items), bobs[0]) {
		t.Fatalf("an ascending page %v (%v) carries bob's %d", ids(up.Items), err, bobs[0])
	}
	if got, _ := s.listIDs(ann, l.ID, store.PageQuery{}); !slices.Contains(got, bobs[3]) || !slices.Contains(got, bobRepost.ID) {
		t.Fatalf("the list %v lacks bob's posts", got)
	}
	// Another reader of bob's posts is not touched.
	eve := s.user("eve")
	s.follow(eve, bob)
	if got := s.homeIDs(eve); !slices.Contains(got, bobs[3]) {
		t.Fatalf("eve's home %v lacks bob's %d", got, bobs[3])
	}

	homeHas := func(what string, mid int64, want bool) {
		t.Helper()
		if got := slices.Contains(s.homeIDs(ann), mid); got != want {
			t.Fatalf("%s: %d on ann's home is %v, want %v", what, mid, got, want)
		}
	}
	no := false
	if _, err := s.UpdateList(s.ctx, ann, l.ID, store.ListChange{Exclusive: &no}); err != nil {
		t.Fatal(err)
	}
	homeHas("no longer exclusive", bobs[3], true)
	yes := true
	if _, err := s.UpdateList(s.ctx, ann, l.ID, store.ListChange{Exclusive: &yes}); err != nil {
		t.Fatal(err)
	}
	homeHas("exclusive again", bobs[3], false)
	if err := s.AddListMembers(s.ctx, ann, l.ID, []int64{cat}); err != nil {
		t.Fatal(err)
	}
	homeHas("cat added", catPost.ID, false)
	if err := s.RemoveListMembers(s.ctx, ann, l.ID, []int64{cat}); err != nil {
		t.Fatal(err)
	}
	homeHas("cat taken out", catPost.ID, true)
	if err := s.DeleteList(s.ctx, ann, l.ID); err != nil {
		t.Fatal(err)
	}
	homeHas("the list deleted", bobs[3], true)

	// An unfollow takes dan out of an exclusive list: followed again, he
	// is home again.
	l2, err := s.CreateList(s.ctx, ann, store.NewList{Title: "dan", Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddListMembers(s.ctx, ann, l2.ID, []int64{dan}); err != nil {
		t.Fatal(err)
	}
	homeHas("dan listed", danRepost.ID, false)
	if err := s.Unfollow(s.ctx, ann, dan); err != nil {
		t.Fatal(err)
	}
	s.follow(ann, dan)
	s.settle()
	homeHas("dan followed again", danRepost.ID, true)
}
