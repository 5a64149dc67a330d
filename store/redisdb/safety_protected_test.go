package redisdb

import (
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// TestProtected: a protected user's posts are for itself and its approved
// fans; following it asks it; its posts cannot be reposted; turning the
// protection off makes them public again and lets the waiting requests in.
func TestProtected(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, fan, other, late, old := s.user("alice"), s.user("fan"), s.user("other"), s.user("late"), s.user("old")
	s.follow(old, a) // a fan from before the protection stays one
	p0 := s.post(store.NewPost{Author: a, Content: "public once #topic"})
	u, err := s.SetProtected(s.ctx, a, true)
	if err != nil || !u.Protected {
		t.Fatalf("SetProtected: %+v, %v", u, err)
	}
	p1 := s.post(store.NewPost{Author: a, Content: "for fans #topic"})
	s.settle()
	mine := []int64{p0.ID, p1.ID}

	wantIn(t, "public timeline", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{})), nil, mine)
	wantIn(t, "public timeline seen by an old fan", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{Viewer: old})), nil, mine)
	wantIn(t, "public timeline seen by alice", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{Viewer: a})), nil, mine)
	wantIn(t, "#topic", s.pageIDs(s.TagPosts(s.ctx, "topic", store.PageQuery{Viewer: old})), nil, mine)
	wantIn(t, "alice's posts seen by nobody", s.pageIDs(s.UserPosts(s.ctx, a, store.PageQuery{})), nil, mine)
	wantIn(t, "alice's posts seen by another", s.pageIDs(s.UserPosts(s.ctx, a, store.PageQuery{Viewer: other})), nil, mine)
	wantIn(t, "alice's posts seen by alice", s.pageIDs(s.UserPosts(s.ctx, a, store.PageQuery{Viewer: a})), mine, nil)
	wantIn(t, "alice's posts seen by an old fan", s.pageIDs(s.UserPosts(s.ctx, a, store.PageQuery{Viewer: old})), mine, nil)
	wantIn(t, "an old fan's home", s.homeIDs(old), mine, nil)
	for _, mid := range mine {
		if s.sees(0, mid) || s.sees(other, mid) || s.sees(fan, mid) {
			t.Errorf("post %d is seen by someone who is no fan", mid)
		}
		if !s.sees(a, mid) || !s.sees(old, mid) {
			t.Errorf("post %d is hidden from alice or her fan", mid)
		}
	}

	for _, asker := range []int64{fan, other, late} {
		requested, err := s.FollowOrAsk(s.ctx, asker, a)
		if err != nil || !requested {
			t.Fatalf("asking to follow: requested %v, %v", requested, err)
		}
	}
	if requested, err := s.FollowOrAsk(s.ctx, fan, a); err != nil || !requested { // asking again
		t.Fatalf("asking again: requested %v, %v", requested, err)
	}
	if requested, err := s.FollowOrAsk(s.ctx, old, a); err != nil || requested {
		t.Fatalf("a fan asking: requested %v, %v; want a plain follow", requested, err)
	}
	requests := func() []int64 {
		page, err := s.FollowRequests(s.ctx, a, store.PageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]int64, len(page.Items))
		for i, u := range page.Items {
			out[i] = u.ID
		}
		return out
	}
	if got := requests(); !slices.Equal(got, []int64{late, other, fan}) {
		t.Fatalf("follow requests %v, want %v (newest first)", got, []int64{late, other, fan})
	}
	if got := s.notes(a); !slices.Equal(got, []string{"follow_request by " + id(late), "follow_request by " + id(other), "follow_request by " + id(fan), "follow by " + id(old)}) {
		t.Fatalf("alice's notifications %v, want one follow_request per asker", got)
	}
	if got := s.viewed(a, fan); !isTrue(got.Requested) || isTrue(got.Following) || !got.Protected {
		t.Errorf("alice seen by an asker: requested %v, following %v, protected %v", got.Requested, got.Following, got.Protected)
	}
	if slices.Contains(s.stars(fan), a) {
		t.Fatal("asking made a follow")
	}

	if err := s.AnswerFollowRequest(s.ctx, a, fan, true); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerFollowRequest(s.ctx, a, other, false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.AnswerFollowRequest(s.ctx, a, other, true), store.ErrNotFound, store.CodeNotFound)
	if got := requests(); !slices.Equal(got, []int64{late}) {
		t.Fatalf("follow requests after answers %v, want [%d]", got, late)
	}
	if !slices.Contains(s.stars(fan), a) || slices.Contains(s.stars(other), a) {
		t.Fatalf("approved follows %v, rejected %v", s.stars(fan), s.stars(other))
	}
	p2 := s.post(store.NewPost{Author: a, Content: "for fans again"})
	s.settle()
	wantIn(t, "the approved fan's home", s.homeIDs(fan), []int64{p0.ID, p1.ID, p2.ID}, nil)
	wantIn(t, "the approved fan's home since", s.sinceIDs(fan), []int64{p2.ID}, nil)
	if !s.sees(fan, p1.ID) || s.sees(other, p2.ID) {
		t.Error("approval: the fan does not see the posts, or the rejected one does")
	}
	if got := s.viewed(a, other); isTrue(got.Requested) || isTrue(got.Following) {
		t.Errorf("the rejected asker is shown requested %v, following %v", got.Requested, got.Following)
	}
	for _, reposter := range []int64{fan, other, a} {
		_, err := s.Create(s.ctx, store.NewPost{Author: reposter, Content: "", RepostOf: p1.ID})
		if reposter == other {
			wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
			continue
		}
		wantCode(t, err, store.ErrForbidden, store.CodeProtected)
	}

	u, err = s.SetProtected(s.ctx, a, false)
	if err != nil || u.Protected {
		t.Fatalf("SetProtected off: %+v, %v", u, err)
	}
	all := []int64{p0.ID, p1.ID, p2.ID}
	wantIn(t, "public timeline after", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{})), all, nil)
	wantIn(t, "#topic after", s.pageIDs(s.TagPosts(s.ctx, "topic", store.PageQuery{})), []int64{p0.ID, p1.ID}, nil)
	wantIn(t, "alice's posts seen by another after", s.pageIDs(s.UserPosts(s.ctx, a, store.PageQuery{Viewer: other})), all, nil)
	if !s.sees(0, p1.ID) || !s.sees(other, p2.ID) {
		t.Error("the posts are still hidden after the protection is off")
	}
	if got := requests(); len(got) != 0 || !slices.Contains(s.stars(late), a) {
		t.Errorf("the waiting request was not let in: requests %v, late follows %v", got, s.stars(late))
	}
	if _, err := s.Create(s.ctx, store.NewPost{Author: other, Content: "", RepostOf: p1.ID}); err != nil {
		t.Errorf("reposting an unprotected post: %v", err)
	}
	if requested, err := s.FollowOrAsk(s.ctx, other, a); err != nil || requested || !slices.Contains(s.stars(other), a) {
		t.Errorf("following an unprotected user: requested %v, %v", requested, err)
	}
}

// TestProtectedFlagAlone: the flag on the user hash is the one switch. A
// crash right after it is written, before anything is published or tidied,
// leaves no protected post in a public place nor open to others.
func TestProtectedFlagAlone(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, fan, other := s.user("alice"), s.user("fan"), s.user("other")
	s.follow(fan, a)
	p := s.post(store.NewPost{Author: a, Content: "soon private #topic"})
	s.settle()
	if !slices.Contains(s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{})), p.ID) || !s.sees(other, p.ID) {
		t.Fatal("the post is not public to begin with")
	}

	if err := s.rdb.HSet(s.ctx, s.keys.User(a), schema.FieldProtected, "1").Err(); err != nil {
		t.Fatal(err)
	}
	if s.rdb.ZScore(s.ctx, s.keys.PublicTimeline(), id(p.ID)).Err() != nil {
		t.Fatal("the test means the public timeline to still hold the post")
	}
	for _, viewer := range []int64{0, other, fan, a} {
		q := store.PageQuery{Viewer: viewer}
		wantIn(t, "public timeline", s.pageIDs(s.PublicTimeline(s.ctx, q)), nil, []int64{p.ID})
		wantIn(t, "#topic", s.pageIDs(s.TagPosts(s.ctx, "topic", q)), nil, []int64{p.ID})
	}
	if s.sees(0, p.ID) || s.sees(other, p.ID) {
		t.Error("the post is open to others")
	}
	if !s.sees(fan, p.ID) || !s.sees(a, p.ID) || !slices.Contains(s.homeIDs(fan), p.ID) {
		t.Error("the post is hidden from its author or fan")
	}
	if !s.viewed(a, 0).Protected {
		t.Error("the user is not shown protected")
	}
}
