package archive_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/searchtest"
)

// searchCorpus is what TestSearchMatchesScan archives: generated posts of
// mixed Chinese and English, posts written for the edge cases, comments
// that hold the same words (never found), deletes and edits. Ids are spread
// a thousand apart, so that they span many of mroonga's buckets.
type searchCorpus struct {
	rows map[int64]store.Archived // as the archive holds them now
}

const searchStride = 1000

// edgePosts are the contract's examples and what folding must get right.
var edgePosts = []string{
	"天", "今天天气好", "天气", "用Redis天天缓存", "REDIS 天", "🔥🔥 hot", "🔥", "2024年", "in 2024!",
	"Straße", "STRASSE", "strasse", "ǅ", "ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "a", "ab bc", "abc",
	"天 气", "#天气# 好", "🇨🇳", "👍🏽 like", "e\u0301", "tab\tseparated\nlines", "K", "k",
}

func buildSearchCorpus(t *testing.T, db *archive.DB, n int) searchCorpus {
	t.Helper()
	c := searchtest.NewCorpus(7)
	sc := searchCorpus{rows: map[int64]store.Archived{}}
	var put []store.Archived
	id := int64(0)
	add := func(m store.Archived) {
		put = append(put, m)
		sc.rows[m.ID] = m
	}
	for i := range n {
		id += searchStride
		add(post(id, 1+id%97, c.Post(int64(i))))
		if i%10 == 0 { // a comment that holds the same words is never found
			id += searchStride
			cm := comment(id, 2, id-searchStride)
			cm.Content = c.Post(int64(i))
			add(cm)
		}
	}
	for _, content := range edgePosts {
		id += searchStride
		add(post(id, 3, content))
	}
	for chunk := range slices.Chunk(put, 300) {
		save(t, db, chunk, nil)
	}
	// Every 13th post deleted, every 17th edited (by SaveEdits, as the
	// archiver saves the edits of hot posts), the first one in place.
	var deleted, edits []store.Archived
	for mid, m := range sc.rows {
		if m.Kind != store.KindPost {
			continue
		}
		switch k := mid / searchStride; {
		case k%13 == 0:
			deleted = append(deleted, tombstone(m))
			sc.rows[mid] = tombstone(m)
		case k%17 == 0:
			m.Content, m.Edited = "edited 改过了 "+c.Post(k+1_000_000), m.Created+1
			edits = append(edits, m)
			sc.rows[mid] = m
		}
	}
	save(t, db, nil, deleted)
	if err := db.SaveEdits(context.Background(), edits); err != nil {
		t.Fatal(err)
	}
	return sc
}

// scan is the brute force: every live post whose content holds the words,
// newest first.
func (sc searchCorpus) scan(words []string) []int64 {
	var ids []int64
	for id, m := range sc.rows {
		if m.Kind == store.KindPost && !m.Deleted && store.Matches(m.Content, words) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids
}

// searchAll pages through every result of q, limit ids a call, as the
// store does.
func searchAll(t *testing.T, db *archive.DB, words []string, limit int) []int64 {
	t.Helper()
	var all []int64
	before := int64(0)
	for calls := 0; ; calls++ {
		res, err := db.Search(context.Background(), store.SearchQuery{Words: words, Before: before, Limit: limit})
		if err != nil {
			t.Fatalf("search %q: %v", words, err)
		}
		if len(res.IDs) > limit || res.Next != 0 && len(res.IDs) == limit && res.Next != res.IDs[limit-1] {
			t.Fatalf("search %q: %d ids, next %d: not a page of %d", words, len(res.IDs), res.Next, limit)
		}
		all = append(all, res.IDs...)
		if res.Next == 0 || calls > 10_000 {
			return all
		}
		before = res.Next
	}
}

// TestSearchMatchesScan checks the search against a scan of every post's
// content, for one- and two-character words in Chinese, words in any
// script and letter case, emoji, digits and several words, on both engines:
// the same posts, newest first, whatever the page size.
func TestSearchMatchesScan(t *testing.T) {
	queries := []string{
		"天", "天气", "今天天气", "Redis天", "redis", "REDIS", "🔥", "2024", "2024年", "in 2024",
		"天 气", "天气 好", "the", "THE", "e", "th", "ing", "Straße", "strasse", "SS", "ß",
		"σίσυφος", "ΣΊΣΥΦΟΣ", "İ", "k", "K", "abc", "ab", "b", "🇨🇳", "👍🏽", "#天气#", "改过了",
		"饕餮", "龘", "乌鲁木齐", "serendipity", "xylophone 龘", "nothing-like-this", "的 the 天",
		"e\u0301", "separated lines", "@user1",
	}
	forEngines(t, func(t *testing.T, db *archive.DB) {
		sc := buildSearchCorpus(t, db, 1500)
		for _, q := range queries {
			words, err := store.ParseQuery(q)
			if err != nil {
				t.Fatalf("parse %q: %v", q, err)
			}
			want := sc.scan(words)
			for _, limit := range []int{1, 7, 100} {
				if limit == 1 && len(want) > 200 {
					continue // a thousand calls add nothing
				}
				if got := searchAll(t, db, words, limit); !slices.Equal(got, want) {
					t.Errorf("%q, %d a page: %d posts, scan finds %d\n got %v\nwant %v", q, limit, len(got), len(want), firstIDs(got), firstIDs(want))
				}
			}
		}
	})
}

func firstIDs(ids []int64) string {
	if len(ids) > 12 {
		return fmt.Sprint(ids[:12]) + "…"
	}
	return fmt.Sprint(ids)
}

// TestSearchBudget searches for words whose grams thousands of posts hold
// but few hold in the order of the word: each call reads at most its
// budget of candidates and says where to go on, and the pages together hold
// exactly the matches.
func TestSearchBudget(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		var put []store.Archived
		var want []int64
		for i := range int64(2600) {
			content := "xqz qzw 天气 气好" // every gram of xqzw and 天气好, in the wrong places
			if i%500 == 0 {
				content = "xqzw 天气好"
				want = append(want, i+1)
			}
			put = append(put, post(i+1, 1, content))
		}
		for chunk := range slices.Chunk(put, 500) {
			save(t, db, chunk, nil)
		}
		slices.Reverse(want)
		for _, word := range []string{"xqzw", "天气好"} {
			res, err := db.Search(context.Background(), store.SearchQuery{Words: []string{word}, Limit: 20})
			if err != nil || res.Next == 0 || len(res.IDs) >= len(want) {
				t.Errorf("%s, first call = %v, %v; want a few ids and where to go on", word, res, err)
			}
			if got := searchAll(t, db, []string{word}, 20); !slices.Equal(got, want) {
				t.Errorf("%s: pages hold %v, want %v", word, got, want)
			}
		}
	})
}

// TestSearchFollowsWrites checks that the index follows every way a post
// changes: saved, saved again, edited by SaveEdits (an older edit after a
// newer one changes nothing) and by Edit, deleted; comments never count.
func TestSearchFollowsWrites(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		find := func(q string) []int64 {
			words, _ := store.ParseQuery(q)
			return searchAll(t, db, words, 20)
		}
		p := post(5, 1, "first 天气")
		save(t, db, []store.Archived{p, comment(6, 2, 5)}, nil)
		c := comment(7, 2, 5)
		c.Content = "天气 comment"
		save(t, db, []store.Archived{c}, nil)
		if got := find("天气"); !slices.Equal(got, []int64{5}) {
			t.Errorf("after save: %v, want [5]", got)
		}
		newer := p
		newer.Content, newer.Edited = "second 下雨", p.Created+2
		older := p
		older.Content, older.Edited = "older 阳光", p.Created+1
		if err := db.SaveEdits(ctx, []store.Archived{newer}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveEdits(ctx, []store.Archived{older}); err != nil {
			t.Fatal(err)
		}
		save(t, db, []store.Archived{p}, nil) // a replayed put
		if got := find("下雨"); !slices.Equal(got, []int64{5}) {
			t.Errorf("edited to 下雨: %v, want [5]", got)
		}
		if got := find("天气"); len(got) != 0 {
			t.Errorf("天气 after the edit: %v, want none", got)
		}
		if got := find("阳光"); len(got) != 0 {
			t.Errorf("the older edit: %v, want none", got)
		}
		third := newer
		third.Content, third.Edited = "third 🔥", newer.Edited+1
		if ok, err := db.Edit(ctx, third, newer.Edited); !ok || err != nil {
			t.Fatalf("edit: %v, %v", ok, err)
		}
		if got := find("🔥"); !slices.Equal(got, []int64{5}) {
			t.Errorf("edited in place to 🔥: %v, want [5]", got)
		}
		save(t, db, nil, []store.Archived{{ID: 5}})
		if got := find("🔥"); len(got) != 0 {
			t.Errorf("after the delete: %v, want none", got)
		}
		if _, err := db.Search(ctx, store.SearchQuery{Limit: 1}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("search without words: %v, want ErrInvalid", err)
		}
	})
}
