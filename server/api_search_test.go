package main

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"microblog/store"
)

// searchIDs pages through GET /search/posts?q= as token's user (or
// anonymous), limit a page, and returns every id.
func (ts *testServer) searchIDs(t testing.TB, token, q string, limit int) []int64 {
	t.Helper()
	var out []int64
	path := "/api/v1/search/posts?limit=" + strconv.Itoa(limit) + "&q=" + url.QueryEscape(q)
	for next := path; ; {
		page := ts.page(t, token, next)
		out = append(out, ids(page.Items)...)
		if page.NextCursor == nil {
			return out
		}
		next = path + "&cursor=" + *page.NextCursor
	}
}

// TestSearchPostsAPI: GET /search/posts as the contract says (§10):
// anyone may search; q of 1 to 100 characters (else 400 invalid_query);
// every word in any letter case, newest first, paged; comments are not
// found; blocked, muted and protected authors' posts follow §8; a deleted
// post vanishes at once, an edited one is found by its new words.
func TestSearchPostsAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	rdb := ts.rdb()
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	var want []int64
	for i := range 8 {
		p := ts.post(t, []string{alice, bob}[i%2], "今天天气 Redis 第"+strconv.Itoa(i)+"次", 0)
		want = append([]int64{p.ID}, want...)
		ts.comment(t, carol, p.ID, "天气 redis 评论")
	}
	ts.post(t, carol, "unrelated 无关", 0)
	archiveSettled(t, rdb)
	for _, q := range []string{"天气", "REDIS 天", "天气 redis"} {
		if got := ts.searchIDs(t, "", q, 3); !slices.Equal(got, want) {
			t.Errorf("anonymous %q: %v, want %v", q, got, want)
		}
	}
	if got := ts.searchIDs(t, carol, "无关", 20); len(got) != 1 {
		t.Errorf("无关: %v, want one post", got)
	}
	for _, q := range []string{"", "q=", "q=%20%20", "q=" + strings.Repeat("天", 101), "q=%FF"} {
		path := "/api/v1/search/posts"
		if q != "" {
			path += "?" + q
		}
		ts.wantStatus(t, "GET", path, "", nil, http.StatusBadRequest, "invalid_query")
	}
	ts.wantStatus(t, "GET", "/api/v1/search/posts?q="+strings.Repeat("天", 100), "", nil, http.StatusOK, "")
	ts.wantStatus(t, "GET", "/api/v1/search/posts?q=x&limit=0", "", nil, http.StatusBadRequest, "invalid_limit")

	// Safety: carol blocks bob and mutes nobody yet; alice is protected.
	ts.wantStatus(t, "PUT", "/api/v1/users/bob/block", carol, nil, http.StatusNoContent, "")
	onlyAlice := slices.DeleteFunc(slices.Clone(want), func(id int64) bool { return slices.Index(want, id)%2 == 0 })
	if got := ts.searchIDs(t, carol, "天气", 20); !slices.Equal(got, onlyAlice) {
		t.Errorf("carol, who blocks bob: %v, want alice's %v", got, onlyAlice)
	}
	ts.wantStatus(t, "PUT", "/api/v1/users/alice/mute", carol, nil, http.StatusNoContent, "")
	if got := ts.searchIDs(t, carol, "天气", 20); len(got) != 0 {
		t.Errorf("carol, who blocks bob and mutes alice: %v, want none", got)
	}
	ts.wantStatus(t, "PATCH", "/api/v1/me", alice, map[string]bool{"protected": true}, http.StatusOK, "")
	if got := ts.searchIDs(t, "", "天气", 20); slices.ContainsFunc(got, func(id int64) bool { return slices.Contains(onlyAlice, id) }) {
		t.Errorf("anonymous finds the protected alice's posts: %v", got)
	}
	if got := ts.searchIDs(t, alice, "天气", 20); !slices.Equal(got, want) {
		t.Errorf("alice finds %v, want her own and bob's %v", got, want)
	}
	ts.wantStatus(t, "PATCH", "/api/v1/me", alice, map[string]bool{"protected": false}, http.StatusOK, "")

	// Deleted: gone at once; edited: found by what it now says.
	ts.wantStatus(t, "DELETE", postPath(want[0]), bob, nil, http.StatusNoContent, "")
	ts.editPost(t, alice, want[1], "晴天 sunny")
	if got := ts.searchIDs(t, "", "天气", 20); !slices.Equal(got, want[2:]) {
		t.Errorf("after a delete and an edit: %v, want %v", got, want[2:])
	}
	archiveSettled(t, rdb)
	if got := ts.searchIDs(t, "", "Sunny", 20); !slices.Equal(got, want[1:2]) {
		t.Errorf("the edited post by its new word: %v, want %v", got, want[1:2])
	}
}

// TestSearchWithoutArchive: with MICROBLOG_ARCHIVE=off, search answers 503
// search_unavailable; trends still work.
func TestSearchWithoutArchive(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ARCHIVE=off")
	tok, _ := ts.register(t, "alice")
	ts.post(t, tok, "#天气# 好", 0)
	ts.wantStatus(t, "GET", "/api/v1/search/posts?q=天气", tok, nil, http.StatusServiceUnavailable, "search_unavailable")
	ts.wantStatus(t, "GET", "/api/v1/search/posts?q=", tok, nil, http.StatusBadRequest, "invalid_query")
	var trends struct{ Items []store.Trend }
	ts.getJSON(t, "", "/api/v1/trends/tags", &trends)
	if want := []store.Trend{{Tag: "天气", Posts: 1, People: 1}}; !slices.Equal(trends.Items, want) {
		t.Errorf("trends = %v, want %v", trends.Items, want)
	}
}

// TestTrendsAPI: GET /trends/tags lists the topics most people used, with
// their posts and people, at most 10, for anyone.
func TestTrendsAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	var toks []string
	for _, name := range []string{"alice", "bob", "carol"} {
		tok, _ := ts.register(t, name)
		toks = append(toks, tok)
	}
	for i, tok := range toks {
		for j := range 12 {
			if j >= i { // topic t0 by one, t1 by two, ... t11 by three
				ts.post(t, tok, "#t"+strconv.Itoa(j)+" and #话题#", 0)
			}
		}
	}
	status, body := ts.call(t, "GET", "/api/v1/trends/tags", "", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /trends/tags: %d %s", status, body)
	}
	var got struct{ Items []store.Trend }
	mustDecode(t, body, &got)
	if len(got.Items) != 10 || got.Items[0] != (store.Trend{Tag: "话题", Posts: 33, People: 3}) ||
		got.Items[1] != (store.Trend{Tag: "t10", Posts: 3, People: 3}) {
		t.Errorf("trends = %+v, want 话题 (33 posts, 3 people) first, then t10 (3, 3), 10 in all", got.Items)
	}
	if !strings.Contains(string(body), `"people":3`) {
		t.Errorf("body %s lacks the contract's field names", body)
	}
}

// TestTrendsWindowSetting: MICROBLOG_TRENDS_WINDOW is a duration of a
// second at least.
func TestTrendsWindowSetting(t *testing.T) {
	parallel(t)
	for _, v := range []string{"soon", "100ms", "-1h"} {
		env := map[string]string{"MICROBLOG_TRENDS_WINDOW": v}
		if _, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard); err == nil ||
			!strings.Contains(err.Error(), "MICROBLOG_TRENDS_WINDOW") {
			t.Errorf("MICROBLOG_TRENDS_WINDOW=%q: %v, want an error naming it", v, err)
		}
	}
	env := map[string]string{"MICROBLOG_TRENDS_WINDOW": "2h"}
	if cfg, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard); err != nil || cfg.Timelines.TrendsWindow.String() != "2h0m0s" {
		t.Errorf("2h: %v, %v", cfg.Timelines.TrendsWindow, err)
	}
}
