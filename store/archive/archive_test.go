package archive_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
)

// Every test of this binary shares one MariaDB server; each gets a database.
func TestMain(m *testing.M) { archivetest.Main(m) }

// engines are the archives every test runs on.
var engines = []struct {
	name string
	dsn  func(testing.TB) string
}{
	{"sqlite", archivetest.SQLite},
	{"mariadb", archivetest.MariaDB},
}

// forEngines runs test on a fresh archive of each engine.
func forEngines(t *testing.T, test func(t *testing.T, db *archive.DB)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { test(t, open(t, e.dsn(t))) })
	}
}

func open(t testing.TB, dsn string) *archive.DB {
	t.Helper()
	db, err := archive.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func post(id, author int64, content string) store.Archived {
	return store.Archived{ID: id, Kind: store.KindPost, Author: author, Username: fmt.Sprintf("user%d", author),
		Content: content, Created: 1_700_000_000_000 + id, Mentions: "[]", Tags: "[]", Media: "[]"}
}

func comment(id, author, parent int64) store.Archived {
	m := post(id, author, fmt.Sprintf("comment %d", id))
	m.Kind, m.Parent = store.KindComment, parent
	return m
}

func repost(id, author, of int64) store.Archived {
	m := post(id, author, "")
	m.RepostOf = of
	return m
}

func tombstone(m store.Archived) store.Archived {
	m.Deleted, m.Content, m.Mentions, m.Tags, m.Media, m.Spoiler = true, "", "", "", "", ""
	return m
}

func save(t testing.TB, db *archive.DB, put, deleted []store.Archived) {
	t.Helper()
	if err := db.Save(context.Background(), put, deleted); err != nil {
		t.Fatalf("save: %v", err)
	}
}

func messages(t testing.TB, db *archive.DB, ids ...int64) map[int64]store.Archived {
	t.Helper()
	got, err := db.Posts(context.Background(), ids)
	if err != nil {
		t.Fatalf("messages %v: %v", ids, err)
	}
	return got
}

func count(t testing.TB, db *archive.DB) (int64, int64) {
	t.Helper()
	n, tomb, err := db.Count(context.Background())
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	return n, tomb
}

func TestSaveAndRead(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		p := post(10, 1, "你好，世界 🌏🎉 héllo \"quoted\" 'single' \\ back")
		p.Username = "小明_😀"
		p.Mentions = `[{"id":2,"username":"小红"}]`
		p.Tags = `["美食","🍜"]`
		p.Media = `[{"id":7,"url":"/media/a.jpg","thumb_url":"/media/a_t.jpg","width":640,"height":480,"alt":"一碗面 🍜"}]`
		p.Spoiler = "剧透 spoilers 🙈"
		c := comment(11, 2, 10)
		r := repost(12, 3, 10)
		save(t, db, []store.Archived{p, c, r}, nil)

		got := messages(t, db, 10, 11, 12, 99)
		if len(got) != 3 {
			t.Fatalf("got %d messages, want 3 (99 does not exist): %v", len(got), got)
		}
		p.CommentsCount, p.RepostsCount = 1, 1
		for _, want := range []store.Archived{p, c, r} {
			if got[want.ID] != want {
				t.Errorf("message %d:\n got %+v\nwant %+v", want.ID, got[want.ID], want)
			}
		}
		if n, tomb := count(t, db); n != 3 || tomb != 0 {
			t.Errorf("count = %d, %d; want 3, 0", n, tomb)
		}
	})
}

func TestSaveReplayChangesNothing(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		put := []store.Archived{post(3, 1, "c"), post(1, 1, "a"), post(2, 1, "b"), post(2, 1, "b")}
		deleted := []store.Archived{tombstone(post(2, 1, ""))}
		save(t, db, put, deleted)
		before := messages(t, db, 1, 2, 3)
		save(t, db, put, deleted)
		// A put of an archived id with other content changes nothing either.
		changed := post(1, 9, "changed")
		save(t, db, []store.Archived{changed}, nil)
		if after := messages(t, db, 1, 2, 3); !mapsEqual(before, after) {
			t.Errorf("replay changed the archive:\nbefore %v\n after %v", before, after)
		}
		if n, tomb := count(t, db); n != 2 || tomb != 1 {
			t.Errorf("count = %d, %d; want 2, 1", n, tomb)
		}
		if got := before[2]; !got.Deleted || got.Content != "" {
			t.Errorf("message put and deleted in one save = %+v, want a tombstone", got)
		}
	})
}

func TestTombstones(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		orig := post(1, 5, "原文")
		c := comment(2, 6, 1)
		c.Content, c.Mentions, c.Tags, c.Media = "评论 @小红 #话题", `[{"id":7,"username":"小红"}]`, `["话题"]`, `[{"id":1}]`
		c.Spoiler = "a warning a tombstone forgets"
		save(t, db, []store.Archived{orig, c}, nil)

		// After a put: the row is replaced by the tombstone, text cleared,
		// ids kept.
		save(t, db, nil, []store.Archived{c})
		want := tombstone(c)
		if got := messages(t, db, 2)[2]; got != want {
			t.Errorf("tombstone after put:\n got %+v\nwant %+v", got, want)
		}
		// Before a put: the later put leaves the tombstone as it is.
		early := comment(3, 6, 1)
		save(t, db, nil, []store.Archived{early})
		save(t, db, []store.Archived{early}, nil)
		if got, want := messages(t, db, 3)[3], tombstone(early); got != want {
			t.Errorf("put after tombstone:\n got %+v\nwant %+v", got, want)
		}
		// A tombstone that knows only the id keeps what the row said.
		save(t, db, nil, []store.Archived{{ID: 1}})
		if got, want := messages(t, db, 1)[1], tombstone(orig); got != want {
			t.Errorf("bare tombstone:\n got %+v\nwant %+v", got, want)
		}
		// A put marked deleted is stored as a tombstone.
		gone := post(4, 5, "secret")
		gone.Deleted = true
		save(t, db, []store.Archived{gone}, nil)
		if got, want := messages(t, db, 4)[4], tombstone(gone); got != want {
			t.Errorf("put marked deleted:\n got %+v\nwant %+v", got, want)
		}
		if n, tomb := count(t, db); n != 0 || tomb != 4 {
			t.Errorf("count = %d, %d; want 0, 4", n, tomb)
		}
		// Tombstones are never selected, but they have rows.
		ids, err := db.IDs(ctx, store.ArchiveQuery{Parent: 1, Limit: 10})
		if err != nil || len(ids) != 0 {
			t.Errorf("comments of 1 = %v, %v; want none", ids, err)
		}
		if has, err := db.Has(ctx, []int64{1, 2, 3, 4, 5}); err != nil || !slices.Equal(has, []int64{1, 2, 3, 4}) {
			t.Errorf("has = %v, %v; want [1 2 3 4]", has, err)
		}
		if err := db.Save(ctx, []store.Archived{{ID: 0}}, nil); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("save of id 0: %v, want ErrInvalid", err)
		}
	})
}

func TestDerivedCounters(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		save(t, db, []store.Archived{
			post(1, 1, "original"),
			comment(2, 2, 1), comment(3, 3, 1), comment(4, 4, 1),
			comment(5, 5, 2), // a reply counts on the comment it answers
			repost(6, 6, 1), repost(7, 7, 1),
			post(8, 8, "quiet"),
		}, nil)
		save(t, db, nil, []store.Archived{comment(4, 4, 1), repost(7, 7, 1)})
		got := messages(t, db, 1, 2, 4, 8)
		for _, c := range []struct{ id, comments, reposts int64 }{{1, 2, 1}, {2, 1, 0}, {4, 0, 0}, {8, 0, 0}} {
			if m := got[c.id]; m.CommentsCount != c.comments || m.RepostsCount != c.reposts {
				t.Errorf("message %d: comments %d, reposts %d; want %d, %d", c.id, m.CommentsCount, m.RepostsCount, c.comments, c.reposts)
			}
		}
		// A deleted original still counts what is left of its thread.
		save(t, db, nil, []store.Archived{post(1, 1, "")})
		if m := messages(t, db, 1)[1]; !m.Deleted || m.CommentsCount != 2 || m.RepostsCount != 1 {
			t.Errorf("deleted original = %+v, want 2 comments and 1 repost", m)
		}
	})
}

func TestDMsManyIDs(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		var put []store.Archived
		var ids []int64
		for id := int64(1); id <= 1200; id++ {
			put = append(put, post(id, id%7, fmt.Sprint(id)))
			ids = append(ids, id, id+5000) // half of them missing
		}
		save(t, db, put, nil)
		got := messages(t, db, ids...)
		if len(got) != 1200 || got[1200].Content != "1200" {
			t.Errorf("got %d messages, want 1200", len(got))
		}
		has, err := db.Has(context.Background(), ids)
		if err != nil || len(has) != 1200 || has[0] != 1 || has[1199] != 1200 {
			t.Errorf("has: %d ids, %v; want 1..1200 in order", len(has), err)
		}
	})
}

func TestIDs(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		// Authors 1 and 2 post ids 1..20 in turn; 3 comments on post 2.
		var put []store.Archived
		for id := int64(1); id <= 20; id++ {
			put = append(put, post(id, 1+id%2, "p"))
		}
		put = append(put, comment(21, 1, 2), comment(22, 3, 2), comment(23, 1, 2), repost(24, 3, 2))
		save(t, db, put, []store.Archived{post(18, 1, ""), comment(22, 3, 2)})

		for _, c := range []struct {
			name string
			q    store.ArchiveQuery
			want []int64
		}{
			{"author", store.ArchiveQuery{Authors: []int64{1}, Limit: 4}, []int64{20, 16, 14, 12}},
			{"authors", store.ArchiveQuery{Authors: []int64{2, 1}, Limit: 4}, []int64{20, 19, 17, 16}},
			{"authors before", store.ArchiveQuery{Authors: []int64{1, 2, 2}, Before: 16, Limit: 3}, []int64{15, 14, 13}},
			{"authors after", store.ArchiveQuery{Authors: []int64{1}, After: 12, Limit: 10}, []int64{20, 16, 14}},
			{"authors between", store.ArchiveQuery{Authors: []int64{2}, After: 3, Before: 9, Limit: 10}, []int64{7, 5}},
			{"author of reposts", store.ArchiveQuery{Authors: []int64{3}, Limit: 10}, []int64{24}},
			{"no authors", store.ArchiveQuery{Authors: []int64{}, Limit: 10}, nil},
			{"nobody's", store.ArchiveQuery{Authors: []int64{42}, Limit: 10}, nil},
			{"comments", store.ArchiveQuery{Parent: 2, Limit: 10}, []int64{23, 21}},
			{"comments before", store.ArchiveQuery{Parent: 2, Before: 23, Limit: 10}, []int64{21}},
			{"comments after", store.ArchiveQuery{Parent: 2, After: 21, Limit: 10}, []int64{23}},
			{"public", store.ArchiveQuery{Public: true, Limit: 3}, []int64{24, 20, 19}},
			{"public before", store.ArchiveQuery{Public: true, Before: 19, Limit: 3}, []int64{17, 16, 15}},
			{"public after", store.ArchiveQuery{Public: true, After: 17, Limit: 10}, []int64{24, 20, 19}},
			{"public past the end", store.ArchiveQuery{Public: true, Before: 3, Limit: 10}, []int64{2, 1}},
		} {
			got, err := db.IDs(ctx, c.q)
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%s: IDs(%+v) = %v, %v; want %v", c.name, c.q, got, err, c.want)
			}
		}
		for _, q := range []store.ArchiveQuery{
			{Limit: 10},
			{Authors: []int64{1}, Public: true, Limit: 10},
			{Parent: 2, Public: true, Limit: 10},
			{Public: true},
		} {
			if _, err := db.IDs(ctx, q); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("IDs(%+v): %v, want ErrInvalid", q, err)
			}
		}
	})
}

// TestIDsManyAuthors reads the posts of more authors than one query reads
// (and not a multiple of it): the queries' pages must merge into one page,
// newest first.
func TestIDsManyAuthors(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		const authors = 2550
		rng := rand.New(rand.NewPCG(1, 2))
		var put []store.Archived
		var all []int64 // ids of the followed authors' posts
		for id := int64(1); id <= 3*authors; id++ {
			author := 1 + rng.Int64N(authors+100) // the last 100 are not followed
			put = append(put, post(id, author, "p"))
			if author <= authors {
				all = append(all, id)
			}
		}
		save(t, db, put, nil)
		slices.Reverse(all)

		follow := make([]int64, authors)
		for i := range follow {
			follow[i] = int64(i + 1)
		}
		rng.Shuffle(len(follow), func(i, j int) { follow[i], follow[j] = follow[j], follow[i] })
		for _, c := range []struct {
			q    store.ArchiveQuery
			want []int64
		}{
			{store.ArchiveQuery{Limit: 50}, all[:50]},
			{store.ArchiveQuery{Before: all[100], Limit: 30}, all[101:131]},
			{store.ArchiveQuery{After: all[20], Limit: 50}, all[:20]},
			{store.ArchiveQuery{Limit: 100000}, all},
		} {
			c.q.Authors = follow
			got, err := db.IDs(context.Background(), c.q)
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("IDs(Before %d, After %d, Limit %d) = %d ids %v, %v; want %d ids %v",
					c.q.Before, c.q.After, c.q.Limit, len(got), head(got), err, len(c.want), head(c.want))
			}
		}
	})
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }

// TestConcurrentOpen opens one new archive from several goroutines at once,
// as servers starting together would: each must migrate or see it done.
func TestConcurrentOpen(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			dsn := e.dsn(t)
			const n = 6
			var wg sync.WaitGroup
			errs := make([]error, n)
			dbs := make([]*archive.DB, n)
			for i := range n {
				wg.Go(func() { dbs[i], errs[i] = archive.Open(context.Background(), dsn) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("open %d: %v", i, err)
				}
				defer dbs[i].Close()
			}
			save(t, dbs[0], []store.Archived{post(1, 1, "a")}, nil)
			// Opened once more, the archive is as it was.
			db := open(t, dsn)
			// The newest migration: as many as the engine has files.
			files, err := os.ReadDir(filepath.Join("migrations", map[string]string{"sqlite": "sqlite", "mariadb": "mysql"}[e.name]))
			if err != nil {
				t.Fatal(err)
			}
			if v, err := db.SchemaVersion(context.Background()); err != nil || v != len(files) {
				t.Errorf("schema version = %d, %v; want %d", v, err, len(files))
			}
			if got := messages(t, db, 1); got[1].Content != "a" {
				t.Errorf("after reopening, message 1 = %+v", got[1])
			}
		})
	}
}

// TestUnavailable kills the MariaDB server under an open archive: every call
// must then fail with an error that wraps store.ErrUnavailable, as must
// opening an archive that nobody serves.
func TestUnavailable(t *testing.T) {
	ctx := context.Background()
	srv := archivetest.StartMariaDB(t)
	dsn := srv.NewDatabase(t)
	db := open(t, dsn)
	save(t, db, []store.Archived{post(1, 1, "a")}, nil)
	srv.Kill()

	calls := map[string]func() error{
		"ping": func() error { return db.Ping(ctx) },
		"save": func() error { return db.Save(ctx, []store.Archived{post(2, 1, "b")}, nil) },
		"messages": func() error {
			_, err := db.Posts(ctx, []int64{1})
			return err
		},
		"has": func() error {
			_, err := db.Has(ctx, []int64{1})
			return err
		},
		"ids": func() error {
			_, err := db.IDs(ctx, store.ArchiveQuery{Public: true, Limit: 10})
			return err
		},
		"count": func() error {
			_, _, err := db.Count(ctx)
			return err
		},
		"open": func() error {
			_, err := archive.Open(ctx, dsn)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s with the server down: %v, want ErrUnavailable", name, err)
		}
	}

	// A closed SQLite archive is unavailable too.
	sq := open(t, archivetest.SQLite(t))
	sq.Close()
	if _, err := sq.Posts(ctx, []int64{1}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("messages of a closed archive: %v, want ErrUnavailable", err)
	}
}

func mapsEqual(a, b map[int64]store.Archived) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestLikes: likes are kept once each, unlikes take them away, replays
// change nothing, and a message's likes_count and a user's liked are read
// from them.
func TestLikes(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		save(t, db, []store.Archived{post(1, 1, "liked"), post(2, 1, "not liked")}, nil)
		likes := []store.ArchivedLike{{MID: 1, UID: 7, At: 10}, {MID: 1, UID: 8, At: 11}, {MID: 1, UID: 9, At: 12}}
		for range 2 { // the second time is a replay
			if err := db.SaveLikes(ctx, likes, []store.ArchivedLike{{MID: 1, UID: 9}}); err != nil {
				t.Fatal(err)
			}
		}
		got := messages(t, db, 1, 2)
		if got[1].LikesCount != 2 || got[2].LikesCount != 0 {
			t.Fatalf("likes_count %d and %d, want 2 and 0", got[1].LikesCount, got[2].LikesCount)
		}
		for uid, want := range map[int64][]int64{7: {1}, 8: {1}, 9: nil} {
			liked, err := db.Liked(ctx, uid, []int64{1, 2, 3})
			if err != nil || fmt.Sprint(liked) != fmt.Sprint(want) && !(len(liked) == 0 && len(want) == 0) {
				t.Errorf("user %d likes %v (%v), want %v", uid, liked, err, want)
			}
		}
		if err := db.SaveLikes(ctx, []store.ArchivedLike{{MID: 0, UID: 1}}, nil); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("a like of message 0: %v, want invalid", err)
		}
	})
}
