package redisdb

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"microblog/store"
)

// TestFollowTagHome: the posts of a followed topic join the home timeline,
// each once though also pushed, and leave it on unfollow; blocks both
// ways, mutes, word filters and protected authors the reader does not
// follow keep theirs out, as they do in the rest of home.
func TestFollowTagHome(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	reader, star, stranger := s.user("reader"), s.user("star"), s.user("stranger")
	blocked, blocker, muted, shy, shyFan := s.user("blocked"), s.user("blocker"), s.user("muted"), s.user("shy"), s.user("shyfan")
	s.follow(reader, star)
	s.follow(reader, shyFan)
	if _, err := s.SetProtected(s.ctx, shy, true); err != nil {
		t.Fatal(err)
	}
	key, err := s.FollowTag(s.ctx, reader, "#Go", true)
	if err != nil || key != "go" {
		t.Fatalf("FollowTag: %q, %v", key, err)
	}
	if err := s.Block(s.ctx, reader, blocked, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Block(s.ctx, blocker, reader, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Mute(s.ctx, reader, muted, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetFilters(s.ctx, reader, []string{"spoiler"}); err != nil {
		t.Fatal(err)
	}

	byStar := s.post(store.NewPost{Author: star, Content: "pushed and tagged #go"})
	byStranger := s.post(store.NewPost{Author: stranger, Content: "a stranger on #GO"})
	untagged := s.post(store.NewPost{Author: stranger, Content: "nothing to see #rust"})
	hidden := []int64{
		s.post(store.NewPost{Author: blocked, Content: "blocked #go"}).ID,
		s.post(store.NewPost{Author: blocker, Content: "blocker #go"}).ID,
		s.post(store.NewPost{Author: muted, Content: "muted #go"}).ID,
		s.post(store.NewPost{Author: stranger, Content: "a SPOILER on #go"}).ID,
		s.post(store.NewPost{Author: shy, Content: "protected #go"}).ID,
	}
	s.settle()

	home := s.homeIDs(reader)
	wantIn(t, "home", home, []int64{byStar.ID, byStranger.ID}, append([]int64{untagged.ID}, hidden...))
	if n := countOf(home, byStar.ID); n != 1 {
		t.Errorf("the star's tagged post is %d times in home, want once", n)
	}
	if !slices.IsSortedFunc(home, func(a, b int64) int { return int(b - a) }) {
		t.Errorf("home is not newest first: %v", home)
	}
	// The live feed's replay reads the same sets.
	since, last, err := s.HomeSinceLast(s.ctx, reader, 0, 50, nil)
	if err != nil || last < byStranger.ID {
		t.Fatalf("HomeSinceLast: last %d, %v", last, err)
	}
	wantIn(t, "home since", ids(since), []int64{byStar.ID, byStranger.ID}, append([]int64{untagged.ID}, hidden...))

	// Someone who follows no topic sees none of it.
	wantIn(t, "the stranger's home", s.homeIDs(star), nil, []int64{byStranger.ID})

	if _, err := s.FollowTag(s.ctx, reader, "go", false); err != nil {
		t.Fatal(err)
	}
	wantIn(t, "home after unfollow", s.homeIDs(reader), []int64{byStar.ID}, []int64{byStranger.ID})
}

func countOf(xs []int64, x int64) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// TestFollowTagList: follows are idempotent, listed newest first through
// pages, capped at MaxFollowedTags (422, nothing changed), checked for bad
// names, told by FollowsTags, and gone with the account.
func TestFollowTagList(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a := s.user("alice")
	for _, bad := range []string{"", "   ", "#", "##", strings.Repeat("x", store.MaxTagLen+1), "a#b", "bad\nline", "\xff"} {
		_, err := s.FollowTag(s.ctx, a, bad, true)
		wantCode(t, err, store.ErrInvalid, store.CodeInvalidTag)
	}
	if k, err := s.FollowTag(s.ctx, a, "#话题#", true); err != nil || k != "话题" {
		t.Fatalf("follow #话题#: %q, %v", k, err)
	}
	if _, err := s.FollowTag(s.ctx, a, "话题", true); err != nil { // again: no-op
		t.Fatal(err)
	}
	for i := 1; i < store.MaxFollowedTags; i++ {
		if _, err := s.FollowTag(s.ctx, a, fmt.Sprintf("t%03d", i), true); err != nil {
			t.Fatalf("follow %d: %v", i, err)
		}
	}
	_, err := s.FollowTag(s.ctx, a, "onemore", true)
	wantCode(t, err, store.ErrUnprocessable, store.CodeTagFollowLimit)
	if _, err := s.FollowTag(s.ctx, a, "t001", true); err != nil {
		t.Fatalf("following one already followed at the cap: %v", err)
	}
	var names []string
	q := store.PageQuery{Limit: 7}
	for range 100 {
		page, err := s.FollowedTags(s.ctx, a, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, ft := range page.Items {
			names = append(names, ft.Name)
			if ft.FollowedAt == 0 {
				t.Fatalf("%q has no follow time", ft.Name)
			}
		}
		if page.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			t.Fatal(err)
		}
	}
	if len(names) != store.MaxFollowedTags || slices.Contains(names, "onemore") || !slices.Contains(names, "话题") {
		t.Fatalf("listed %d topics: %v", len(names), names)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != store.MaxFollowedTags {
		t.Fatalf("a topic listed twice: %v", names)
	}
	got, err := s.FollowsTags(s.ctx, a, []string{"话题", "onemore", "t050"})
	if err != nil || !slices.Equal(got, []bool{true, false, true}) {
		t.Fatalf("FollowsTags: %v, %v", got, err)
	}
	if err := s.DeleteAccount(s.ctx, a, "password123", store.Attempt{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.rdb.Exists(s.ctx, s.keys.FollowedTags(a)).Result(); n != 0 {
		t.Fatal("the followed topics outlive the account")
	}
}
