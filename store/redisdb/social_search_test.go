package redisdb

import (
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive/archivetest"
)

// searchIDs pages through viewer's search for q, 3 a page, newest first.
func (s testStore) searchIDs(viewer int64, q string) []int64 {
	s.t.Helper()
	return s.pageAll(func(pq store.PageQuery) (store.Page[store.Post], error) {
		pq.Limit, pq.Viewer = 3, viewer
		return s.SearchPosts(s.ctx, q, pq)
	})
}

// TestSearchPosts: posts in Chinese and English, most of them moved out of
// Redis (a hot window of 3), are found by any word, in any letter case,
// newest first across pages; comments are not; a deleted post and one
// edited not to hold the word any more vanish at once, and one edited to
// hold it shows once archived.
func TestSearchPosts(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{HotWindow: 3})
	alice, bob := s.user("alice"), s.user("bob")
	var want []int64
	author := map[int64]int64{}
	for i, content := range []string{"今天天气好", "天气预报 Redis", "no weather words", "用REDIS天天缓存", "天", "明天天气 🔥"} {
		p := s.post(store.NewPost{Author: []int64{alice, bob}[i%2], Content: content})
		author[p.ID] = p.Author.ID
		if store.Matches(content, []string{"天"}) {
			want = append([]int64{p.ID}, want...)
		}
		s.post(store.NewPost{Author: bob, Parent: p.ID, Content: "评论 天 redis"})
	}
	s.archived()
	if got := s.searchIDs(0, "天"); !slices.Equal(got, want) {
		t.Errorf("天: %v, want %v", got, want)
	}
	if got := s.searchIDs(alice, "redis 天"); len(got) != 2 {
		t.Errorf("redis 天: %v, want the two posts that hold both", got)
	}
	if got := s.searchIDs(alice, "REDIS天"); len(got) != 1 {
		t.Errorf("REDIS天: %v, want one post", got)
	}

	// Deleted: gone at once, before the archive has the delete.
	if err := s.Delete(s.ctx, author[want[0]], want[0]); err != nil {
		t.Fatal(err)
	}
	if got := s.searchIDs(0, "🔥"); len(got) != 0 {
		t.Errorf("a deleted post is found: %v", got)
	}
	// Edited: what it no longer says is not found at once, what it now says
	// once archived (within the archiver's batch).
	s.edit(author[want[1]], want[1], "改了 sunny")
	if got := s.searchIDs(0, "天"); slices.Contains(got, want[1]) {
		t.Errorf("a post edited to leave 天 is still found: %v", got)
	}
	s.archived()
	if got := s.searchIDs(0, "SUNNY"); !slices.Equal(got, []int64{want[1]}) {
		t.Errorf("sunny after the edit: %v, want [%d]", got, want[1])
	}
	// A new post shows once archived, within the archiver's batch.
	p := s.post(store.NewPost{Author: bob, Content: "新的 天"})
	s.archived()
	if got := s.searchIDs(0, "新的"); !slices.Equal(got, []int64{p.ID}) {
		t.Errorf("a new post: %v, want [%d]", got, p.ID)
	}
}

// TestSearchSafety: search hides blocked (either way), muted and suspended
// authors' posts, and a protected author's from all but itself and its
// approved fans; anonymous readers see public posts only.
func TestSearchSafety(t *testing.T) {
	parallel(t)
	s := newArchivedStore(t, archivetest.SQLite(t), Options{})
	reader, blocked, blocker, muted, locked, gone, fan := s.user("reader"), s.user("blocked"), s.user("blocker"),
		s.user("muted"), s.user("locked"), s.user("gone"), s.user("fan")
	post := map[int64]int64{}
	for _, uid := range []int64{reader, blocked, blocker, muted, locked, gone} {
		post[uid] = s.post(store.NewPost{Author: uid, Content: "秘密 secret"}).ID
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Block(s.ctx, reader, blocked, true))
	must(s.Block(s.ctx, blocker, reader, true))
	must(s.Mute(s.ctx, reader, muted, true))
	_, err := s.SetProtected(s.ctx, locked, true)
	must(err)
	_, err = s.FollowOrAsk(s.ctx, fan, locked)
	must(err)
	must(s.AnswerFollowRequest(s.ctx, locked, fan, true))
	must(s.Suspend(s.ctx, gone, true))
	s.archived()
	for _, c := range []struct {
		name   string
		viewer int64
		want   []int64
	}{
		{"reader", reader, []int64{post[reader]}},
		{"anonymous", 0, []int64{post[muted], post[blocker], post[blocked], post[reader]}},
		{"approved fan", fan, []int64{post[locked], post[muted], post[blocker], post[blocked], post[reader]}},
		{"protected author", locked, []int64{post[locked], post[muted], post[blocker], post[blocked], post[reader]}},
		{"muted author", muted, []int64{post[muted], post[blocker], post[blocked], post[reader]}},
	} {
		if got := s.searchIDs(c.viewer, "秘密"); !slices.Equal(got, c.want) {
			t.Errorf("%s finds %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSearchUnavailable: without an archive, search answers
// search_unavailable; a bad query is invalid_query either way.
func TestSearchUnavailable(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	_, err := s.SearchPosts(s.ctx, "天气", store.PageQuery{})
	wantCode(t, err, store.ErrUnavailable, store.CodeSearchUnavailable)
	for _, q := range []string{"", "   ", string(make([]rune, 101)), "\xff"} {
		_, err := s.SearchPosts(s.ctx, q, store.PageQuery{})
		wantCode(t, err, store.ErrInvalid, store.CodeInvalidQuery)
	}
}
