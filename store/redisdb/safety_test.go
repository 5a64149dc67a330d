package redisdb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// sees tells whether viewer may open message mid (Post), failing the test
// on anything but found or not found.
func (s testStore) sees(viewer, mid int64) bool {
	s.t.Helper()
	_, err := s.Post(s.ctx, mid, viewer)
	if errors.Is(err, store.ErrNotFound) {
		return false
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return true
}

// pageIDs are the ids of a page of posts read without error.
func (s testStore) pageIDs(page store.Page[store.Post], err error) []int64 {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
	return ids(page.Items)
}

// sinceIDs are the ids HomeSince gives uid from the start, newest first.
func (s testStore) sinceIDs(uid int64) []int64 {
	s.t.Helper()
	posts, err := s.HomeSince(s.ctx, uid, 0, 100, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []int64
	for _, p := range posts {
		if !p.Filtered {
			out = append(out, p.ID)
		}
	}
	slices.Reverse(out)
	return out
}

// filteredIDs are the ids of uid's first home page that its word filters
// fold (store.Post.Filtered), newest first.
func (s testStore) filteredIDs(uid int64) []int64 {
	s.t.Helper()
	page, err := s.HomeTimeline(s.ctx, uid, store.PageQuery{Limit: 100})
	if err != nil {
		s.t.Fatal(err)
	}
	var out []int64
	for _, p := range page.Items {
		if p.Filtered {
			out = append(out, p.ID)
		}
	}
	return out
}

// notes are uid's notifications as "kind by actor", newest first.
func (s testStore) notes(uid int64) []string {
	s.t.Helper()
	page, err := s.Notifications(s.ctx, uid, store.PageQuery{Limit: 100})
	if err != nil {
		s.t.Fatal(err)
	}
	out := make([]string, len(page.Items))
	for i, n := range page.Items {
		out[i] = fmt.Sprintf("%s by %d", n.Kind, n.Actor.ID)
	}
	return out
}

// stars are the uids uid follows.
func (s testStore) stars(uid int64) []int64 {
	s.t.Helper()
	stars, err := s.Stars(s.ctx, uid)
	if err != nil {
		s.t.Fatal(err)
	}
	return stars
}

// viewed is uid as viewer sees it.
func (s testStore) viewed(uid, viewer int64) store.User {
	s.t.Helper()
	u, err := s.User(s.ctx, uid, viewer)
	if err != nil {
		s.t.Fatal(err)
	}
	return u
}

// isTrue tells whether a relation flag of User is set.
func isTrue(b *bool) bool { return b != nil && *b }

// wantIn fails unless every one of want is in got and none of wantOut is.
func wantIn(t *testing.T, what string, got []int64, want, wantOut []int64) {
	t.Helper()
	for _, mid := range want {
		if !slices.Contains(got, mid) {
			t.Errorf("%s: %v lacks %d", what, got, mid)
		}
	}
	for _, mid := range wantOut {
		if slices.Contains(got, mid) {
			t.Errorf("%s: %v shows %d", what, got, mid)
		}
	}
}

// TestBlock: a block ends the follows both ways, and neither side meets the
// other's posts, comments, reposts (even a third user's) or notifications
// anywhere; the blocked cannot follow, comment, repost or like; unblocking
// restores no follow.
func TestBlock(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, b, c := s.user("alice"), s.user("bob"), s.user("carol")
	s.follow(a, b)
	s.follow(b, a)
	s.follow(a, c)
	bp := s.post(store.NewPost{Author: b, Content: "bob says #news"})
	ap := s.post(store.NewPost{Author: a, Content: "alice says #news"})
	bc := s.post(store.NewPost{Author: b, Content: "bob answers", Parent: ap.ID})
	if err := s.Like(s.ctx, b, ap.ID, true); err != nil {
		t.Fatal(err)
	}
	s.settle()
	if !slices.Contains(s.homeIDs(a), bp.ID) || !slices.Contains(s.notes(a), fmt.Sprintf("like by %d", b)) {
		t.Fatalf("before the block alice's home %v and notes %v lack bob's post and like", s.homeIDs(a), s.notes(a))
	}

	if err := s.Block(s.ctx, a, b, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Block(s.ctx, a, b, true); err != nil { // idempotent
		t.Fatal(err)
	}
	if slices.Contains(s.stars(a), b) || slices.Contains(s.stars(b), a) {
		t.Fatalf("follows survive the block: alice follows %v, bob %v", s.stars(a), s.stars(b))
	}
	cr := s.post(store.NewPost{Author: c, Content: "look", RepostOf: bp.ID})
	cp := s.post(store.NewPost{Author: c, Content: "carol's own"})
	s.settle()

	wantIn(t, "alice's home", s.homeIDs(a), []int64{ap.ID, cp.ID}, []int64{bp.ID, cr.ID})
	wantIn(t, "alice's home since", s.sinceIDs(a), []int64{ap.ID, cp.ID}, []int64{bp.ID, cr.ID})
	wantIn(t, "bob's home", s.homeIDs(b), []int64{bp.ID}, []int64{ap.ID})
	wantIn(t, "carol's home", s.homeIDs(c), []int64{cr.ID, cp.ID}, nil)
	wantIn(t, "bob's posts seen by alice", s.pageIDs(s.UserPosts(s.ctx, b, store.PageQuery{Viewer: a})), nil, []int64{bp.ID})
	wantIn(t, "alice's posts seen by bob", s.pageIDs(s.UserPosts(s.ctx, a, store.PageQuery{Viewer: b})), nil, []int64{ap.ID})
	wantIn(t, "carol's posts seen by alice", s.pageIDs(s.UserPosts(s.ctx, c, store.PageQuery{Viewer: a})), []int64{cp.ID}, []int64{cr.ID})
	for _, v := range []struct {
		viewer int64
		hidden int64
	}{{a, bp.ID}, {a, bc.ID}, {a, cr.ID}, {b, ap.ID}} {
		if s.sees(v.viewer, v.hidden) {
			t.Errorf("user %d opens post %d", v.viewer, v.hidden)
		}
	}
	if !s.sees(0, bp.ID) || !s.sees(c, bp.ID) || !s.sees(c, cr.ID) {
		t.Error("others no longer see bob's post and carol's repost")
	}
	wantIn(t, "comments on alice's post seen by alice", s.pageIDs(s.Comments(s.ctx, ap.ID, store.PageQuery{Viewer: a})), nil, []int64{bc.ID})
	wantIn(t, "comments on alice's post seen by carol", s.pageIDs(s.Comments(s.ctx, ap.ID, store.PageQuery{Viewer: c})), []int64{bc.ID}, nil)
	_, err := s.Comments(s.ctx, ap.ID, store.PageQuery{Viewer: b})
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
	wantIn(t, "public timeline seen by alice", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{Viewer: a})), []int64{ap.ID, cp.ID}, []int64{bp.ID, cr.ID})
	wantIn(t, "public timeline seen by bob", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{Viewer: b})), []int64{bp.ID}, []int64{ap.ID})
	wantIn(t, "public timeline seen by nobody", s.pageIDs(s.PublicTimeline(s.ctx, store.PageQuery{})), []int64{ap.ID, bp.ID, cr.ID}, nil)
	wantIn(t, "#news seen by alice", s.pageIDs(s.TagPosts(s.ctx, "news", store.PageQuery{Viewer: a})), []int64{ap.ID}, []int64{bp.ID})
	wantIn(t, "#news seen by bob", s.pageIDs(s.TagPosts(s.ctx, "news", store.PageQuery{Viewer: b})), []int64{bp.ID}, []int64{ap.ID})
	for _, n := range s.notes(a) {
		if strings.HasSuffix(n, fmt.Sprintf(" by %d", b)) {
			t.Errorf("alice's notifications still list %q", n)
		}
	}

	// The blocked can do nothing to the blocker (403), nor to its posts,
	// which are hidden from it: as for posts that do not exist (404).
	wantCode(t, s.Follow(s.ctx, b, a), store.ErrForbidden, store.CodeBlocked)
	_, err = s.FollowOrAsk(s.ctx, b, a)
	wantCode(t, err, store.ErrForbidden, store.CodeBlocked)
	_, err = s.Create(s.ctx, store.NewPost{Author: b, Content: "again", Parent: ap.ID})
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
	_, err = s.Create(s.ctx, store.NewPost{Author: b, Content: "", RepostOf: ap.ID})
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)
	wantCode(t, s.Like(s.ctx, b, ap.ID, true), store.ErrNotFound, store.CodePostNotFound)
	if n, _ := s.rdb.ZCard(s.ctx, s.keys.Comments(ap.ID)).Result(); n != 1 {
		t.Errorf("alice's post has %d comments, want only bob's first", n)
	}
	if got := s.viewed(b, a); !isTrue(got.Blocking) || isTrue(got.BlockedBy) {
		t.Errorf("bob seen by alice: blocking %v, blocked_by %v; want true, false", got.Blocking, got.BlockedBy)
	}
	if got := s.viewed(a, b); !isTrue(got.BlockedBy) || isTrue(got.Blocking) {
		t.Errorf("alice seen by bob: blocked_by %v, blocking %v; want true, false", got.BlockedBy, got.Blocking)
	}
	if got := s.viewed(a, 0); got.Blocking != nil || got.BlockedBy != nil {
		t.Errorf("alice seen by nobody: blocking %v, blocked_by %v; want null", got.Blocking, got.BlockedBy)
	}
	if page, err := s.Blocks(s.ctx, a, store.PageQuery{}); err != nil || len(page.Items) != 1 || page.Items[0].ID != b {
		t.Errorf("alice's blocks %+v, %v; want bob", page.Items, err)
	}

	if err := s.Block(s.ctx, a, b, false); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.stars(a), b) || slices.Contains(s.stars(b), a) {
		t.Error("unblocking restored a follow")
	}
	if !s.sees(a, bp.ID) || !s.sees(b, ap.ID) || isTrue(s.viewed(b, a).Blocking) {
		t.Error("after unblocking they still do not see each other")
	}
	s.follow(b, a)
	wantCode(t, s.Block(s.ctx, a, a, true), store.ErrInvalid, store.CodeCannotBlockSelf)
	wantCode(t, s.Block(s.ctx, a, 999, true), store.ErrNotFound, store.CodeUserNotFound)
	wantCode(t, s.Mute(s.ctx, a, 999, true), store.ErrNotFound, store.CodeUserNotFound)
}

// TestBlockAndMuteLimits: past MaxBlocks (MaxMutes) a block (mute) is a 409
// and writes nothing of itself.
func TestBlockAndMuteLimits(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{MaxBlocks: 3, MaxMutes: 3})
	u := s.user("user")
	var others []int64
	for i := range 4 {
		others = append(others, s.user(fmt.Sprintf("other%d", i)))
	}
	last := others[3]
	s.follow(u, last)
	s.follow(last, u)
	for _, o := range others[:3] {
		if err := s.Block(s.ctx, u, o, true); err != nil {
			t.Fatal(err)
		}
		if err := s.Mute(s.ctx, u, o, true); err != nil {
			t.Fatal(err)
		}
	}
	// Again at the cap: already there, so no error.
	if err := s.Block(s.ctx, u, others[0], true); err != nil {
		t.Fatalf("blocking again at the cap: %v", err)
	}
	if err := s.Mute(s.ctx, u, others[0], true); err != nil {
		t.Fatalf("muting again at the cap: %v", err)
	}

	wantCode(t, s.Block(s.ctx, u, last, true), store.ErrConflict, store.CodeBlockLimit)
	wantCode(t, s.Mute(s.ctx, u, last, true), store.ErrConflict, store.CodeMuteLimit)
	member := func(key string) bool {
		ok, err := s.rdb.SIsMember(s.ctx, key, u).Result()
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if s.rdb.ZScore(s.ctx, s.keys.Blocking(u), id(last)).Err() != redis.Nil || member(s.keys.BlockedBy(last)) {
		t.Error("the refused block was written")
	}
	if s.rdb.ZScore(s.ctx, s.keys.Muting(u), id(last)).Err() != redis.Nil || member(s.keys.MutedBy(last)) {
		t.Error("the refused mute was written")
	}
	if !slices.Contains(s.stars(u), last) || !slices.Contains(s.stars(last), u) {
		t.Error("the refused block took a follow down")
	}
	if got := s.viewed(last, u); isTrue(got.Blocking) || isTrue(got.Muting) {
		t.Errorf("the refused user is shown blocked %v, muted %v", got.Blocking, got.Muting)
	}
	// Room again after an unblock.
	if err := s.Block(s.ctx, u, others[0], false); err != nil {
		t.Fatal(err)
	}
	if err := s.Block(s.ctx, u, last, true); err != nil {
		t.Fatalf("blocking after an unblock: %v", err)
	}
}

// TestTenThousandBlocks: a user at the default limit (10,000 blocks, each
// mirrored) still reads its home timeline, and the next block is a 409.
func TestTenThousandBlocks(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	u, star, other := s.user("user"), s.user("star"), s.user("other")
	s.follow(u, star)
	const blocked, first = DefaultMaxBlocks, 10_000_000
	for lo := 0; lo < blocked; lo += 1000 {
		zs := make([]redis.Z, 0, 1000)
		_, err := s.rdb.Pipelined(s.ctx, func(pl redis.Pipeliner) error {
			for i := lo; i < lo+1000; i++ {
				zs = append(zs, redis.Z{Score: float64(i), Member: first + i})
				pl.SAdd(s.ctx, s.keys.BlockedBy(int64(first+i)), u)
			}
			pl.ZAdd(s.ctx, s.keys.Blocking(u), zs...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	p := s.post(store.NewPost{Author: star, Content: "hello"})
	s.settle()
	if got := s.homeIDs(u); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("home of a user with 10,000 blocks: %v, want [%d]", got, p.ID)
	}
	l, err := s.Lens(s.ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Hidden) != blocked {
		t.Fatalf("lens hides %d users, want %d", len(l.Hidden), blocked)
	}
	wantCode(t, s.Block(s.ctx, u, other, true), store.ErrConflict, store.CodeBlockLimit)
}

// TestMute: the muted user's posts and reposts and the notifications it
// causes leave the muter's feed (pushed nowhere, notifications not even
// stored), but not its view of the muted user's profile; the muted user
// can tell nothing.
func TestMute(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, b, c := s.user("alice"), s.user("bob"), s.user("carol")
	s.follow(a, b)
	s.follow(a, c)
	s.follow(c, b)
	ap := s.post(store.NewPost{Author: a, Content: "alice's"})
	before := s.post(store.NewPost{Author: b, Content: "before the mute"})
	s.settle()
	if err := s.Mute(s.ctx, a, b, true); err != nil {
		t.Fatal(err)
	}
	during := s.post(store.NewPost{Author: b, Content: "during the mute"})
	cr := s.post(store.NewPost{Author: c, Content: "", RepostOf: during.ID})
	if err := s.Like(s.ctx, b, ap.ID, true); err != nil { // a mute forbids nothing
		t.Fatal(err)
	}
	s.post(store.NewPost{Author: b, Content: "hi @alice"})
	s.settle()

	if s.inHome(a, during.ID) {
		t.Error("the muted author's post was pushed to the muter")
	}
	if !s.inHome(c, during.ID) {
		t.Error("the post was not pushed to others")
	}
	wantIn(t, "alice's home", s.homeIDs(a), []int64{ap.ID}, []int64{before.ID, during.ID, cr.ID})
	wantIn(t, "alice's home since", s.sinceIDs(a), []int64{ap.ID}, []int64{before.ID, during.ID, cr.ID})
	wantIn(t, "bob's posts seen by alice", s.pageIDs(s.UserPosts(s.ctx, b, store.PageQuery{Viewer: a})), []int64{before.ID, during.ID}, nil)
	if !s.sees(a, during.ID) {
		t.Error("the muter cannot open the muted user's post")
	}
	if got := s.notes(a); len(got) != 0 {
		t.Errorf("alice's notifications %v, want none (all bob's)", got)
	}
	if got := s.viewed(b, a); !isTrue(got.Muting) {
		t.Error("bob seen by alice: muting false")
	}
	if got := s.viewed(a, b); isTrue(got.Muting) || isTrue(got.BlockedBy) {
		t.Errorf("alice seen by bob tells of the mute: muting %v, blocked_by %v", got.Muting, got.BlockedBy)
	}
	if page, err := s.Mutes(s.ctx, a, store.PageQuery{}); err != nil || len(page.Items) != 1 || page.Items[0].ID != b {
		t.Errorf("alice's mutes %+v, %v; want bob", page.Items, err)
	}

	if err := s.Mute(s.ctx, a, b, false); err != nil {
		t.Fatal(err)
	}
	after := s.post(store.NewPost{Author: b, Content: "after the mute"})
	s.settle()
	if !s.inHome(a, after.ID) {
		t.Error("a post after the unmute was not pushed")
	}
	wantIn(t, "alice's home after the unmute", s.homeIDs(a), []int64{after.ID, before.ID}, nil)
	wantIn(t, "alice's home since after the unmute", s.sinceIDs(a), []int64{after.ID}, nil)
	// What bob did during the mute was never stored for alice (Mastodon's
	// way: her unread count never counted it); what he does after is.
	if got := s.notes(a); len(got) != 0 {
		t.Errorf("notifications of the mute came back with the unmute: %v", got)
	}
	if err := s.Like(s.ctx, b, ap.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Like(s.ctx, b, ap.ID, true); err != nil {
		t.Fatal(err)
	}
	if got := s.notes(a); len(got) != 1 {
		t.Errorf("alice's notifications after the unmute %v, want bob's new like", got)
	}
}

// TestFilterLimits: the words are checked before anything is written.
func TestFilterLimits(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a := s.user("alice")
	hundred := make([]string, store.MaxFilters)
	for i := range hundred {
		hundred[i] = fmt.Sprintf("w%d", i)
	}
	if _, err := store.CheckFilters(hundred); err != nil {
		t.Fatalf("100 words: %v", err)
	}
	if _, err := store.CheckFilters([]string{strings.Repeat("天", store.MaxFilterWord)}); err != nil {
		t.Fatalf("a word of 50 characters: %v", err)
	}
	if got, err := store.CheckFilters([]string{" Rust ", "RUST", "rust"}); err != nil || !slices.Equal(got, []string{"Rust"}) {
		t.Fatalf("CheckFilters kept %q, %v; want [Rust]", got, err)
	}
	kept, err := s.SetFilters(s.ctx, a, []string{"keep"})
	if err != nil || !slices.Equal(kept, []string{"keep"}) {
		t.Fatalf("SetFilters %q, %v", kept, err)
	}
	for what, words := range map[string][]string{
		"101 words":           append(hundred, "one more"),
		"a word of 51":        {"ok", strings.Repeat("x", store.MaxFilterWord+1)},
		"an empty word":       {"ok", ""},
		"a blank word":        {"  \t"},
		"invalid UTF-8":       {"\xff"},
		"a word with a zero":  {"a\x00b"},
		"51 Chinese letters":  {strings.Repeat("天", store.MaxFilterWord+1)},
		"empty among 2 valid": {"a", "", "b"},
	} {
		_, err := store.CheckFilters(words)
		wantCode(t, err, store.ErrInvalid, store.CodeInvalidFilter)
		_, err = s.SetFilters(s.ctx, a, words)
		wantCode(t, err, store.ErrInvalid, store.CodeInvalidFilter)
		if got, _ := s.Filters(s.ctx, a); !slices.Equal(got, []string{"keep"}) {
			t.Fatalf("%s changed the filters to %q", what, got)
		}
	}
	if got, err := s.SetFilters(s.ctx, a, nil); err != nil || len(got) != 0 {
		t.Fatalf("clearing the filters: %q, %v", got, err)
	}
	if got, err := s.Filters(s.ctx, a); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("filters after clearing: %#v, %v; want []", got, err)
	}
}

// TestFilters: a filtered word, in any letter case and any script, takes
// posts and the notifications about them out of the filtering user's feed
// alone, not out of its view of a profile nor out of anyone else's feed.
func TestFilters(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a, b, c := s.user("alice"), s.user("bob"), s.user("carol")
	s.follow(a, b)
	s.follow(c, b)
	if _, err := s.SetFilters(s.ctx, a, []string{"天气", "RUST", "straße"}); err != nil {
		t.Fatal(err)
	}
	weather := s.post(store.NewPost{Author: b, Content: "今天天气好"})
	rust := s.post(store.NewPost{Author: b, Content: "I like rust"})
	street := s.post(store.NewPost{Author: b, Content: "STRASSE closed"})
	plain := s.post(store.NewPost{Author: b, Content: "a fine day"})
	repost := s.post(store.NewPost{Author: b, Content: "", RepostOf: weather.ID})
	own := s.post(store.NewPost{Author: a, Content: "my rust notes"})
	mention := s.post(store.NewPost{Author: b, Content: "@alice Rust again"})
	s.post(store.NewPost{Author: b, Content: "@alice hello"})
	if err := s.Like(s.ctx, b, own.ID, true); err != nil {
		t.Fatal(err)
	}
	s.settle()
	filtered := []int64{weather.ID, rust.ID, street.ID, repost.ID, mention.ID}

	wantIn(t, "alice's home", s.homeIDs(a), []int64{plain.ID, own.ID}, filtered)
	wantIn(t, "alice's home since", s.sinceIDs(a), []int64{plain.ID, own.ID}, filtered)
	wantIn(t, "carol's home", s.homeIDs(c), append([]int64{plain.ID}, filtered...), nil)
	// alice's home keeps them folded, for her to open (store.Post.Filtered).
	if got := s.filteredIDs(a); !slices.Equal(got, []int64{mention.ID, repost.ID, street.ID, rust.ID, weather.ID}) {
		t.Errorf("alice's home folds %v, want %v", got, filtered)
	}
	if got := s.filteredIDs(c); len(got) != 0 {
		t.Errorf("carol's home folds %v", got)
	}
	wantIn(t, "bob's posts seen by alice", s.pageIDs(s.UserPosts(s.ctx, b, store.PageQuery{Viewer: a})), append([]int64{plain.ID}, filtered...), nil)
	if !s.sees(a, weather.ID) {
		t.Error("alice cannot open a filtered post")
	}
	page, err := s.Notifications(s.ctx, a, store.PageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, n := range page.Items {
		if n.Post != nil && n.Post.ID == mention.ID {
			t.Error("the mention with a filtered word is listed")
		}
		kinds = append(kinds, n.Kind)
	}
	if !slices.Equal(kinds, []string{store.NotifyLike, store.NotifyMention}) {
		t.Errorf("alice's notifications %v, want the like of her own post and the plain mention", kinds)
	}
}

// TestSuggestionsLeaveOutMutedAndBlocked: "who to follow" offers neither
// whom the reader muted nor whom it blocks, nor the suspended; a search
// by name still finds the muted (the reader may look them up).
func TestSuggestionsLeaveOutMutedAndBlocked(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	reader, fan := s.user("reader"), s.user("fan")
	muted, blocked, suspended, plain := s.user("muted"), s.user("blocked"), s.user("suspended"), s.user("plain")
	for _, u := range []int64{muted, blocked, suspended, plain} {
		s.follow(fan, u)
		s.post(store.NewPost{Author: u, Content: "hello"})
	}
	s.settle()
	if err := s.Mute(s.ctx, reader, muted, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Block(s.ctx, reader, blocked, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Suspend(s.ctx, suspended, true); err != nil {
		t.Fatal(err)
	}
	page, err := s.Suggestions(s.ctx, store.PageQuery{Viewer: reader, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, u := range page.Items {
		got = append(got, u.ID)
	}
	wantIn(t, "suggestions", got, []int64{plain}, []int64{muted, blocked, suspended, reader})
	found, err := s.SearchUsers(s.ctx, "mut", store.PageQuery{Viewer: reader})
	if err != nil || len(found.Items) != 1 || found.Items[0].ID != muted {
		t.Fatalf("searching the muted user's name: %v, %v", found.Items, err)
	}
}
