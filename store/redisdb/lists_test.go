package redisdb

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// newList makes a list of uid's titled title and fails the test on an error.
func (s testStore) newList(uid int64, title string) store.List {
	s.t.Helper()
	l, err := s.CreateList(s.ctx, uid, store.NewList{Title: title})
	if err != nil {
		s.t.Fatalf("create list %q: %v", title, err)
	}
	return l
}

// listIDs are the ids of the posts of one page of uid's list lid.
func (s testStore) listIDs(uid, lid int64, q store.PageQuery) ([]int64, *string) {
	s.t.Helper()
	pg, err := s.ListTimeline(s.ctx, uid, lid, q)
	if err != nil {
		s.t.Fatal(err)
	}
	return ids(pg.Items), pg.NextCursor
}

// TestListsCRUD makes, reads, changes and removes lists, refuses bad
// input without writing anything, keeps another user's lists out of reach
// and caps the lists one user may have.
func TestListsCRUD(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	ann, bob := s.user("ann"), s.user("bob")

	l := s.newList(ann, "  Friends  ")
	if l.Title != "Friends" || l.RepliesPolicy != store.RepliesList || l.Exclusive {
		t.Fatalf("new list %+v", l)
	}
	for _, bad := range []store.NewList{{Title: ""}, {Title: " \u200b "}, {Title: strings.Repeat("x", 101)},
		{Title: "a\x00b"}, {Title: "ok", RepliesPolicy: "all"}} {
		if _, err := s.CreateList(s.ctx, ann, bad); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("create %+v: %v, want invalid", bad, err)
		}
	}
	two, err := s.CreateList(s.ctx, ann, store.NewList{Title: "工作", RepliesPolicy: store.RepliesNone, Exclusive: true})
	if err != nil || !two.Exclusive || two.RepliesPolicy != store.RepliesNone {
		t.Fatalf("second list %+v, %v", two, err)
	}
	all, err := s.Lists(s.ctx, ann)
	if err != nil || len(all) != 2 || all[0].ID != l.ID || all[1].Title != "工作" {
		t.Fatalf("lists %+v, %v", all, err)
	}
	if got, _ := s.Lists(s.ctx, bob); len(got) != 0 {
		t.Fatalf("bob's lists %+v", got)
	}
	if _, err := s.List(s.ctx, bob, l.ID); err != store.ErrListNotFound {
		t.Fatalf("bob reads ann's list: %v", err)
	}
	if err := s.DeleteList(s.ctx, bob, l.ID); err != store.ErrListNotFound {
		t.Fatalf("bob deletes ann's list: %v", err)
	}

	title, no := "Close friends", false
	got, err := s.UpdateList(s.ctx, ann, two.ID, store.ListChange{Title: &title, Exclusive: &no})
	if err != nil || got.Title != title || got.Exclusive || got.RepliesPolicy != store.RepliesNone {
		t.Fatalf("updated %+v, %v", got, err)
	}
	empty, bad := "", "every"
	if _, err := s.UpdateList(s.ctx, ann, two.ID, store.ListChange{Title: &empty}); err == nil {
		t.Fatal("empty title accepted")
	}
	if _, err := s.UpdateList(s.ctx, ann, two.ID, store.ListChange{RepliesPolicy: &bad}); err == nil {
		t.Fatal("bad policy accepted")
	}
	if got, _ := s.List(s.ctx, ann, two.ID); got.Title != title {
		t.Fatalf("a refused update changed the list: %+v", got)
	}

	if err := s.DeleteList(s.ctx, ann, two.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(s.ctx, ann, two.ID); err != store.ErrListNotFound {
		t.Fatalf("deleted list: %v", err)
	}
	for i := 1; i < store.MaxLists; i++ {
		s.newList(ann, "list "+strconv.Itoa(i))
	}
	_, err = s.CreateList(s.ctx, ann, store.NewList{Title: "one too many"})
	wantCode(t, err, store.ErrConflict, store.CodeListLimit)
	if n, _ := s.rdb.ZCard(s.ctx, s.keys.Lists(ann)).Result(); n != store.MaxLists {
		t.Fatalf("ann has %d lists", n)
	}
}

// TestListMembers adds only followed accounts, all or none, caps a list,
// and takes a member out on an unfollow, a block and its account's
// deletion; an owner's deletion takes its lists.
func TestListMembers(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	ann, bob, cat, dan := s.user("ann"), s.user("bob"), s.user("cat"), s.user("dan")
	s.follow(ann, bob)
	s.follow(ann, cat)
	s.follow(ann, dan)
	l, other := s.newList(ann, "friends"), s.newList(ann, "other")

	err := s.AddListMembers(s.ctx, ann, l.ID, []int64{bob, s.user("eve")})
	wantCode(t, err, store.ErrInvalid, store.CodeNotFollowing)
	wantCode(t, s.AddListMembers(s.ctx, ann, l.ID, []int64{ann}), store.ErrInvalid, store.CodeNotFollowing)
	wantCode(t, s.AddListMembers(s.ctx, ann, l.ID, nil), store.ErrInvalid, store.CodeInvalidField)
	if err := s.AddListMembers(s.ctx, bob, l.ID, []int64{ann}); err != store.ErrListNotFound {
		t.Fatalf("bob adds to ann's list: %v", err)
	}
	if ms, _ := s.ListMemberIDs(s.ctx, ann, l.ID); len(ms) != 0 {
		t.Fatalf("a refused add wrote %v", ms)
	}
	if err := s.AddListMembers(s.ctx, ann, l.ID, []int64{bob, cat, dan, bob}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddListMembers(s.ctx, ann, other.ID, []int64{bob}); err != nil {
		t.Fatal(err)
	}
	pg, err := s.ListMembers(s.ctx, ann, l.ID, store.PageQuery{Limit: 2})
	if err != nil || len(pg.Items) != 2 || pg.NextCursor == nil {
		t.Fatalf("members page %+v, %v", pg, err)
	}
	if got, _ := s.List(s.ctx, ann, l.ID); got.MembersCount != 3 {
		t.Fatalf("members_count %d", got.MembersCount)
	}
	with, err := s.ListsWith(s.ctx, ann, bob)
	if err != nil || len(with) != 2 {
		t.Fatalf("lists with bob %+v, %v", with, err)
	}
	if err := s.RemoveListMembers(s.ctx, ann, other.ID, []int64{bob, cat}); err != nil {
		t.Fatal(err)
	}
	if with, _ := s.ListsWith(s.ctx, ann, bob); len(with) != 1 || with[0].ID != l.ID {
		t.Fatalf("lists with bob after removal %+v", with)
	}

	if err := s.Unfollow(s.ctx, ann, bob); err != nil {
		t.Fatal(err)
	}
	if err := s.Block(s.ctx, cat, ann, true); err != nil { // cat blocks ann: the follows end
		t.Fatal(err)
	}
	if ms, _ := s.ListMemberIDs(s.ctx, ann, l.ID); !slices.Equal(ms, []int64{dan}) {
		t.Fatalf("members after unfollow and block: %v, want [%d]", ms, dan)
	}
	if err := s.removeAccount(s.ctx, dan); err != nil {
		t.Fatal(err)
	}
	if ms, _ := s.ListMemberIDs(s.ctx, ann, l.ID); len(ms) != 0 {
		t.Fatalf("members after dan's deletion: %v", ms)
	}

	// The cap: a list full of others takes no more.
	zs := make([]redis.Z, store.MaxListMembers)
	for i := range zs {
		zs[i] = redis.Z{Score: 1, Member: 100000 + i}
	}
	s.rdb.ZAdd(s.ctx, s.keys.ListMembers(ann, other.ID), zs...)
	if err := s.Block(s.ctx, cat, ann, false); err != nil {
		t.Fatal(err)
	}
	s.follow(ann, cat)
	wantCode(t, s.AddListMembers(s.ctx, ann, other.ID, []int64{cat}), store.ErrConflict, store.CodeListMembersLimit)

	if err := s.removeAccount(s.ctx, ann); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{s.keys.Lists(ann), s.keys.List(ann, l.ID), s.keys.ListMembers(ann, other.ID)} {
		if n, _ := s.rdb.Exists(s.ctx, key).Result(); n != 0 {
			t.Fatalf("%s left after ann's deletion", key)
		}
	}
}

// TestListTimeline pages the members' posts newest first, and hides
// what the home timeline hides: muted members, filtered words.
func TestListTimeline(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	ann, bob, cat, dan := s.user("ann"), s.user("bob"), s.user("cat"), s.user("dan")
	for _, star := range []int64{bob, cat, dan} {
		s.follow(ann, star)
	}
	l := s.newList(ann, "friends")
	if err := s.AddListMembers(s.ctx, ann, l.ID, []int64{bob, cat}); err != nil {
		t.Fatal(err)
	}
	var want []int64
	for i := range 5 {
		for _, a := range []int64{bob, cat, dan} {
			p := s.post(store.NewPost{Author: a, Content: "post " + strconv.Itoa(i)})
			if a != dan {
				want = append([]int64{p.ID}, want...)
			}
		}
	}
	first, next := s.listIDs(ann, l.ID, store.PageQuery{Limit: 6})
	if !slices.Equal(first, want[:6]) || next == nil {
		t.Fatalf("first page %v, want %v", first, want[:6])
	}
	c, _ := store.DecodeCursor(*next)
	rest, next := s.listIDs(ann, l.ID, store.PageQuery{Limit: 6, Cursor: c})
	if !slices.Equal(rest, want[6:]) || next != nil {
		t.Fatalf("second page %v (next %v), want %v", rest, next, want[6:])
	}
	if newer, _ := s.listIDs(ann, l.ID, store.PageQuery{After: want[2]}); !slices.Equal(newer, want[:2]) {
		t.Fatalf("after %d: %v", want[2], newer)
	}
	if _, err := s.ListTimeline(s.ctx, s.user("eve"), l.ID, store.PageQuery{}); err != store.ErrListNotFound {
		t.Fatalf("another user's list timeline: %v", err)
	}

	// A protected member's posts stay: ann follows it.
	if _, err := s.SetProtected(s.ctx, cat, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.listIDs(ann, l.ID, store.PageQuery{}); !slices.Equal(got, want) {
		t.Fatalf("with cat protected %v, want %v", got, want)
	}
	hidden := s.post(store.NewPost{Author: bob, Content: "spoilers ahead"})
	if _, err := s.SetFilters(s.ctx, ann, []string{"spoilers"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Mute(s.ctx, ann, cat, true); err != nil {
		t.Fatal(err)
	}
	got, _ := s.listIDs(ann, l.ID, store.PageQuery{})
	if slices.Contains(got, hidden.ID) || len(got) != 5 {
		t.Fatalf("with a filter and cat muted: %v", got)
	}
	if err := s.RemoveListMembers(s.ctx, ann, l.ID, []int64{bob, cat}); err != nil {
		t.Fatal(err)
	}
	if got, next := s.listIDs(ann, l.ID, store.PageQuery{}); len(got) != 0 || next != nil {
		t.Fatalf("empty list: %v", got)
	}
}
