package redisdb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"microblog/store"
)

// TestSuspend: a suspended user cannot log in nor use its sessions, and its
// posts leave everyone else's views (not its own) until the suspension is
// lifted; nothing is deleted.
func TestSuspend(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	mu, token, err := s.Register(s.ctx, "mallory", "password123")
	if err != nil {
		t.Fatal(err)
	}
	m := mu.ID
	a := s.user("alice")
	s.follow(a, m)
	mp := s.post(store.NewPost{Author: m, Content: "spam"})
	s.settle()
	countBefore := s.viewed(m, 0).PostsCount

	if err := s.Suspend(s.ctx, m, true); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Login(s.ctx, "mallory", "password123", store.Attempt{})
	wantCode(t, err, store.ErrForbidden, store.CodeSuspended)
	_, _, err = s.Login(s.ctx, "mallory", "wrong password", store.Attempt{})
	wantCode(t, err, store.ErrUnauthorized, store.CodeInvalidCredentials)
	if _, _, err := s.Authenticate(s.ctx, token); !errors.Is(err, store.ErrUnauthorized) {
		t.Fatalf("the suspended user's token authenticates: %v", err)
	}
	if n, _ := s.rdb.SCard(s.ctx, s.keys.UserSessions(m)).Result(); n != 0 {
		t.Errorf("the suspended user keeps %d sessions (a refused login left one)", n)
	}
	wantIn(t, "alice's home", s.homeIDs(a), nil, []int64{mp.ID})
	wantIn(t, "public timeline", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{Viewer: a})), nil, []int64{mp.ID})
	wantIn(t, "mallory's posts seen by alice", s.pageIDs(s.UserPosts(s.ctx, m, store.PageQuery{Viewer: a})), nil, []int64{mp.ID})
	if s.sees(a, mp.ID) || s.sees(0, mp.ID) {
		t.Error("others open the suspended user's post")
	}
	wantIn(t, "mallory's own home", s.homeIDs(m), []int64{mp.ID}, nil)
	if !s.sees(m, mp.ID) {
		t.Error("the suspended user cannot open its own post")
	}
	b := s.user("bob")
	_, err = s.FollowOrAsk(s.ctx, b, m)
	wantCode(t, err, store.ErrForbidden, store.CodeSuspended)
	if fans := s.rdb.ZCard(s.ctx, s.keys.Fans(m)).Val(); fans != 1 {
		t.Errorf("the suspended user has %d fans, want alice alone", fans)
	}
	u := s.viewed(m, a)
	if !u.Suspended || u.PostsCount != countBefore {
		t.Errorf("suspended user: suspended %v, posts_count %d (was %d)", u.Suspended, u.PostsCount, countBefore)
	}

	if err := s.Suspend(s.ctx, m, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Login(s.ctx, "mallory", "password123", store.Attempt{}); err != nil {
		t.Fatalf("login after the suspension: %v", err)
	}
	if _, err := s.FollowOrAsk(s.ctx, b, m); err != nil {
		t.Fatalf("follow after the suspension: %v", err)
	}
	wantIn(t, "alice's home after", s.homeIDs(a), []int64{mp.ID}, nil)
	wantIn(t, "public timeline after", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{})), []int64{mp.ID}, nil)
	if !s.sees(a, mp.ID) || s.viewed(m, 0).Suspended {
		t.Error("the lifted suspension still hides the user")
	}
	wantCode(t, s.Suspend(s.ctx, 999, true), store.ErrNotFound, store.CodeUserNotFound)
}

// TestReports: a report names the target's own messages and a reason;
// the queue pages oldest first and resolving moves a report to the other
// queue.
func TestReports(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	r, target, other := s.user("reporter"), s.user("target"), s.user("other")
	tp := s.post(store.NewPost{Author: target, Content: "bad"})
	tc := s.post(store.NewPost{Author: target, Content: "worse", Parent: tp.ID})
	op := s.post(store.NewPost{Author: other, Content: "fine"})

	rep, err := s.Report(s.ctx, r, store.NewReport{Target: target, PostIDs: []int64{tp.ID, tc.ID}, Reason: "spam"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reporter.ID != r || rep.Target.ID != target || rep.Reason != "spam" || rep.Resolved ||
		!slices.Equal(ids(rep.Posts), []int64{tp.ID, tc.ID}) {
		t.Fatalf("report %+v", rep)
	}
	for what, nr := range map[string]store.NewReport{
		"someone else's post": {Target: target, PostIDs: []int64{tp.ID, op.ID}, Reason: "x"},
		"oneself":             {Target: r, Reason: "x"},
	} {
		_, err := s.Report(s.ctx, r, nr)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("reporting %s: %v", what, err)
		}
		wantCode(t, err, store.ErrInvalid, store.CodeInvalidReport)
	}
	// A post of nobody is not there, as one the reporter may not see.
	_, err = s.Report(s.ctx, r, store.NewReport{Target: target, PostIDs: []int64{999}, Reason: "x"})
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
	for _, reason := range []string{"", "  ", strings.Repeat("x", store.MaxReason+1)} {
		_, err := s.Report(s.ctx, r, store.NewReport{Target: target, Reason: reason})
		wantCode(t, err, store.ErrInvalid, store.CodeInvalidReason)
	}
	_, err = s.Report(s.ctx, r, store.NewReport{Target: 999, Reason: "x"})
	wantCode(t, err, store.ErrNotFound, store.CodeUserNotFound)
	long, err := s.Report(s.ctx, r, store.NewReport{Target: target, Reason: strings.Repeat("长", store.MaxReason)})
	if err != nil {
		t.Fatalf("a reason of 1000 characters: %v", err)
	}
	want := []int64{rep.ID, long.ID}
	for i := range 4 {
		rr, err := s.Report(s.ctx, other, store.NewReport{Target: target, Reason: fmt.Sprintf("again %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, rr.ID)
	}

	reports := func(resolved bool) []int64 {
		var got []int64
		q := store.PageQuery{Limit: 2}
		for range 10 {
			page, err := s.Reports(s.ctx, resolved, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range page.Items {
				got = append(got, x.ID)
			}
			if page.NextCursor == nil {
				return got
			}
			if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("reports page without end")
		return nil
	}
	if got := reports(false); !slices.Equal(got, want) {
		t.Fatalf("open reports %v, want %v (oldest first)", got, want)
	}
	res, err := s.ResolveReport(s.ctx, rep.ID)
	if err != nil || !res.Resolved || res.ID != rep.ID {
		t.Fatalf("resolve: %+v, %v", res, err)
	}
	if _, err := s.ResolveReport(s.ctx, rep.ID); err != nil { // idempotent
		t.Fatal(err)
	}
	if got := reports(false); !slices.Equal(got, want[1:]) {
		t.Errorf("open reports after resolving %v, want %v", got, want[1:])
	}
	if got := reports(true); !slices.Equal(got, []int64{rep.ID}) {
		t.Errorf("resolved reports %v, want [%d]", got, rep.ID)
	}
	_, err = s.ResolveReport(s.ctx, 999)
	wantCode(t, err, store.ErrNotFound, store.CodeReportNotFound)
}
