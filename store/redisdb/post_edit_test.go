package redisdb

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"microblog/store"
)

// edit edits mid as uid and fails the test if it fails.
func (s testStore) edit(uid, mid int64, content string) store.Post {
	s.t.Helper()
	p, err := s.Edit(s.ctx, uid, mid, content)
	if err != nil {
		s.t.Fatalf("edit %d to %q: %v", mid, content, err)
	}
	return p
}

// history is every version of mid as viewer sees them, their contents.
func (s testStore) history(mid, viewer int64) []string {
	s.t.Helper()
	vs, err := s.History(s.ctx, mid, viewer)
	if err != nil {
		s.t.Fatalf("history of %d: %v", mid, err)
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Content
	}
	return out
}

// TestEditLimit: only the author edits, at most store.MaxEdits times; a
// refused edit (bad content, the same content) does not count. Every
// version is in the history, oldest first, each with its time, and the
// post keeps its id and created_at and gains edited_at.
func TestEditLimit(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	p := s.post(store.NewPost{Author: alice, Content: "v0"})
	if p.EditedAt != nil {
		t.Fatalf("a new post has edited_at %v", *p.EditedAt)
	}
	_, err := s.Edit(s.ctx, bob, p.ID, "mine now")
	wantCode(t, err, store.ErrForbidden, store.CodeNotAuthor)
	_, err = s.Edit(s.ctx, alice, p.ID+1000, "no such post")
	wantCode(t, err, store.ErrNotFound, store.CodePostNotFound)

	want := []string{"v0"}
	for i := 1; i <= store.MaxEdits; i++ {
		_, err := s.Edit(s.ctx, alice, p.ID, strings.Repeat("x", store.MaxContent+1))
		wantCode(t, err, store.ErrInvalid, store.CodeContentTooLong)
		_, err = s.Edit(s.ctx, alice, p.ID, " \u200b ")
		wantCode(t, err, store.ErrInvalid, store.CodeContentEmpty)
		same := s.edit(alice, p.ID, want[len(want)-1]) // changes nothing, counts for nothing
		if i > 1 && same.EditedAt == nil {
			t.Fatalf("an edit to the same content lost edited_at")
		}
		e := s.edit(alice, p.ID, fmt.Sprintf("v%d", i))
		want = append(want, e.Content)
		if e.ID != p.ID || e.CreatedAt != p.CreatedAt || e.EditedAt == nil || *e.EditedAt < p.CreatedAt {
			t.Fatalf("edit %d = id %d created %v edited %v; want id %d created %v, edited since", i, e.ID, e.CreatedAt, e.EditedAt, p.ID, p.CreatedAt)
		}
	}
	_, err = s.Edit(s.ctx, alice, p.ID, "one too many")
	wantCode(t, err, store.ErrConflict, store.CodeEditLimit)

	if got := s.history(p.ID, bob); !slices.Equal(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
	vs, _ := s.History(s.ctx, p.ID, 0)
	if vs[0].CreatedAt != p.CreatedAt || !slices.IsSortedFunc(vs, func(a, b store.Version) int { return int(a.CreatedAt - b.CreatedAt) }) {
		t.Errorf("history times %v: want the post's time first, then rising", vs)
	}
	got, err := s.Post(s.ctx, p.ID, bob)
	if err != nil || got.Content != want[len(want)-1] || got.EditedAt == nil || *got.EditedAt != vs[len(vs)-1].CreatedAt {
		t.Fatalf("post read back = %+v, %v", got, err)
	}
	if got := s.history(s.post(store.NewPost{Author: alice, Content: "never edited"}).ID, 0); !slices.Equal(got, []string{"never edited"}) {
		t.Errorf("history of a post never edited = %q", got)
	}
}

// TestEditCommentAndRepost: a comment is edited like a post but cannot be
// emptied; a repost's own words can be, as when it was written. A repost
// shows its original's edit at once, and every timeline keeps its order.
func TestEditCommentAndRepost(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, fan := s.user("alice"), s.user("bob"), s.user("fan")
	s.follow(fan, alice)
	s.follow(fan, bob)
	orig := s.post(store.NewPost{Author: alice, Content: "original"})
	s.post(store.NewPost{Author: alice, Content: "later"})
	rp := s.post(store.NewPost{Author: bob, RepostOf: orig.ID, Content: "look"})
	c := s.post(store.NewPost{Author: bob, Parent: orig.ID, Content: "a comment"})
	s.settle()
	before := s.homeIDs(fan)

	_, err := s.Edit(s.ctx, bob, c.ID, "  ")
	wantCode(t, err, store.ErrInvalid, store.CodeContentEmpty)
	if e := s.edit(bob, c.ID, "a better comment"); e.Kind != store.KindComment || e.ParentID == nil || *e.ParentID != orig.ID {
		t.Errorf("edited comment = %+v", e)
	}
	if e := s.edit(bob, rp.ID, ""); e.Content != "" || e.RepostOf == nil || e.RepostOf.ID != orig.ID {
		t.Errorf("repost with its words taken out = %+v", e)
	}
	s.edit(alice, orig.ID, "original, fixed")

	if got := s.homeIDs(fan); !slices.Equal(got, before) {
		t.Errorf("fan's home after the edits %v, want %v as before", got, before)
	}
	page, err := s.HomeTimeline(s.ctx, fan, store.PageQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range page.Items {
		if p.ID == rp.ID && (p.RepostOf == nil || p.RepostOf.Content != "original, fixed" || p.RepostOf.EditedAt == nil) {
			t.Errorf("the repost shows its original as %+v", p.RepostOf)
		}
	}
	comments, err := s.Comments(s.ctx, orig.ID, store.PageQuery{})
	if err != nil || len(comments.Items) != 1 || comments.Items[0].Content != "a better comment" {
		t.Errorf("comments of the post = %+v, %v", comments.Items, err)
	}
}

// TestEditMentions: an edit notifies the users it mentions for the first
// time, once: not those mentioned before, not after they leave and come
// back, and not the author.
func TestEditMentions(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol, dave := s.user("alice"), s.user("bob"), s.user("carol"), s.user("dave")
	p := s.post(store.NewPost{Author: alice, Content: "hi @bob"})
	s.edit(alice, p.ID, "hi @bob and @Carol and @alice")
	s.edit(alice, p.ID, "hi @carol")
	s.edit(alice, p.ID, "hi @bob, @carol and @dave")
	e := s.edit(alice, p.ID, "hi @BOB, @carol and @dave!")
	if names := mentionNames(e.Mentions); !slices.Equal(names, []string{"bob", "carol", "dave"}) {
		t.Errorf("mentions of the edited post %q", names)
	}
	for _, u := range []struct {
		uid  int64
		want int
	}{{alice, 0}, {bob, 1}, {carol, 1}, {dave, 1}} {
		page, err := s.Notifications(s.ctx, u.uid, store.PageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, no := range page.Items {
			if no.Kind == store.NotifyMention && no.Post != nil && no.Post.ID == p.ID {
				n++
			}
		}
		if n != u.want {
			t.Errorf("user %d has %d mention notifications, want %d", u.uid, n, u.want)
		}
	}
}

func mentionNames(ms []store.Author) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Username
	}
	return out
}

// TestEditTags: a topic the edit removes loses the post (its page and its
// count), one it adds gains it; a comment moves between its topics' pages
// the same way, and counts in none.
func TestEditTags(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	p := s.post(store.NewPost{Author: alice, Content: "#Go and #redis"})
	s.edit(alice, p.ID, "#redis and #lua #LUA")
	c := s.post(store.NewPost{Author: alice, Parent: p.ID, Content: "#go"})
	s.edit(alice, c.ID, "#cobol")
	counted := map[string]int{"redis": 1, "lua": 1}
	for tag, want := range map[string][]int64{"go": nil, "redis": {p.ID}, "lua": {p.ID}, "cobol": {c.ID}} {
		page, err := s.TagPosts(s.ctx, tag, store.PageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(page.Items); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("#%s page %v, want %v", tag, got, want)
		}
		n, _ := s.rdb.ZScore(s.ctx, s.keys.TagCounts(), store.TagKey(tag)).Result()
		if int(n) != counted[tag] {
			t.Errorf("#%s counts %v posts, want %d", tag, n, counted[tag])
		}
	}
}
