package redisdb

import (
	"slices"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// TestTrendKeys pins the names of the trends' keys, on one Redis and on a
// cluster.
func TestTrendKeys(t *testing.T) {
	parallel(t)
	for got, want := range map[string]string{
		schema.NewKeys("mb:", false).Trend("天气", 3600): "mb:trend:天气:3600",
		schema.NewKeys("mb:", true).Trend("天气", 3600):  "mb:trend:{天气}:3600",
		schema.NewKeys("mb:", false).TrendTags(3600):   "mb:trends:3600",
		schema.NewKeys("mb:", true).TrendTags(3600):    "mb:trends:{all}:3600",
		schema.NewKeys("mb:", false).TrendsCache():     "mb:trends:cache",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}

// TestTrends: topics rank by the people who used them, then by posts, and
// count both; deletes and edits take posts out or put them in, protected
// and suspended users do not count (and count again when that ends), and
// a topic leaves the trends once its posts are older than the window.
func TestTrends(t *testing.T) {
	parallel(t)
	c := newClock()
	s := newTestStoreWith(t, Options{Now: c.now, TrendsWindow: time.Hour, TrendsRefresh: -1})
	trends := func() []store.Trend {
		t.Helper()
		ts, err := s.Trends(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	a, b, cc, d := s.user("aa"), s.user("bb"), s.user("cc"), s.user("dd")
	if got := trends(); got == nil || len(got) != 0 {
		t.Fatalf("trends of nothing = %#v, want an empty list", got)
	}
	s.post(store.NewPost{Author: a, Content: "#天气# 好"})
	s.post(store.NewPost{Author: a, Content: "又是 #天气# #Go"})
	s.post(store.NewPost{Author: b, Content: "#天气#"})
	s.post(store.NewPost{Author: b, Content: "#go #GO"})
	s.post(store.NewPost{Author: cc, Content: "#go"})
	gone := s.post(store.NewPost{Author: d, Content: "#rust #go"})
	edited := s.post(store.NewPost{Author: d, Content: "#rust"})
	s.post(store.NewPost{Author: d, Parent: edited.ID, Content: "a comment's #topic counts not"})
	want := []store.Trend{{Tag: "go", Posts: 4, People: 4}, {Tag: "天气", Posts: 3, People: 2}, {Tag: "rust", Posts: 2, People: 1}}
	if got := trends(); !slices.Equal(got, want) {
		t.Fatalf("trends = %v, want %v", got, want)
	}

	if err := s.Delete(s.ctx, d, gone.ID); err != nil {
		t.Fatal(err)
	}
	s.edit(d, edited.ID, "now #天气#")
	want = []store.Trend{{Tag: "天气", Posts: 4, People: 3}, {Tag: "go", Posts: 3, People: 3}}
	if got := trends(); !slices.Equal(got, want) {
		t.Fatalf("after a delete and an edit: %v, want %v", got, want)
	}

	if _, err := s.SetProtected(s.ctx, a, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Suspend(s.ctx, b, true); err != nil {
		t.Fatal(err)
	}
	want = []store.Trend{{Tag: "go", Posts: 1, People: 1}, {Tag: "天气", Posts: 1, People: 1}}
	if got := trends(); !slices.Equal(got, want) {
		t.Fatalf("with a protected and a suspended user: %v, want %v", got, want)
	}
	if _, err := s.SetProtected(s.ctx, a, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Suspend(s.ctx, b, false); err != nil {
		t.Fatal(err)
	}

	c.ms.Add((45 * time.Minute).Milliseconds())
	s.post(store.NewPost{Author: cc, Content: "#later"})
	if got := trends(); len(got) != 3 || got[2] != (store.Trend{Tag: "later", Posts: 1, People: 1}) {
		t.Fatalf("45 minutes on: %v, want 天气, go and later", got)
	}
	c.ms.Add((30 * time.Minute).Milliseconds())
	want = []store.Trend{{Tag: "later", Posts: 1, People: 1}}
	if got := trends(); !slices.Equal(got, want) {
		t.Fatalf("75 minutes on: %v, want %v", got, want)
	}
}

// TestTrendsRefresh: trends worked out are reused for TrendsRefresh, by
// every process.
func TestTrendsRefresh(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{TrendsRefresh: time.Hour})
	u := s.user("uu")
	s.post(store.NewPost{Author: u, Content: "#one"})
	first, err := s.Trends(s.ctx)
	if err != nil || len(first) != 1 {
		t.Fatalf("trends = %v, %v", first, err)
	}
	s.post(store.NewPost{Author: u, Content: "#two"})
	other := New(s.rdb, Options{}) // another process on the same Redis
	if got, err := other.Trends(s.ctx); err != nil || !slices.Equal(got, first) {
		t.Errorf("within the refresh: %v, %v; want %v", got, err, first)
	}
}
