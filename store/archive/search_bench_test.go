package archive

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/archive/archivetest"
	"microblog/store/archive/searchtest"
)

// BenchmarkSearch archives SEARCH_BENCH_POSTS (1,000,000) generated posts
// of mixed Chinese and English (searchtest) through the archiver's path,
// on each engine, and measures what the search index costs and answers:
// how fast posts are saved with their index rows, in the archiver's batches
// of 500 and, once the archive is full, in the batches of 40 that it saves
// under a steady load of posts; how large the index is beside the
// messages; and how long a search for a page of 20 takes, at p50, p95 and
// p99, for 1-, 2- and longer words, common and rare, and two words. It
// prints Markdown tables and runs once, whatever b.N (Go's ns/op line
// means nothing here):
//
//	make bench-search
//	# = go test -run '^$' -bench BenchmarkSearch -benchtime 1x -timeout 90m ./store/archive
//
// Environment: SEARCH_BENCH_POSTS=100000 for a quick look;
// SEARCH_BENCH_ENGINES=sqlite (or mariadb) for one engine.
func BenchmarkSearch(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("SEARCH_BENCH_POSTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("SEARCH_BENCH_POSTS=%q: want a number of at least 1000", v)
		}
	}
	engines := []string{"sqlite", "mariadb"}
	if v := os.Getenv("SEARCH_BENCH_ENGINES"); v != "" {
		engines = strings.Split(v, ",")
	}
	for range b.N {
		var runs []*sbRun
		for _, e := range engines {
			runs = append(runs, newSBRun(b, e, n).run())
		}
		sbPrint(runs, n)
	}
}

// sbRun is one engine's run.
type sbRun struct {
	b      testing.TB
	engine string
	db     *DB
	size   func() (index, messages int64)
	posts  int64 // archived so far; post k has id 2k (comments take the odd ids)

	load, steady sbSaves
	queries      map[string][]time.Duration // by class
	found        map[string]int             // ids on the first pages, by class
}

// sbSaves is how long saving took, split by step.
type sbSaves struct {
	posts                    int
	rows, index, commit, all time.Duration
}

func newSBRun(b *testing.B, engine string, n int) *sbRun {
	r := &sbRun{b: b, engine: engine, queries: map[string][]time.Duration{}, found: map[string]int{}}
	ctx := context.Background()
	var dsn string
	switch engine {
	case "sqlite":
		dir := b.TempDir()
		dsn = "sqlite:" + filepath.Join(dir, "archive.db")
		r.size = func() (int64, int64) {
			return r.sum("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search%'"),
				r.sum("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'messages%' OR name = 'sqlite_autoindex_messages_1'")
		}
	case "mariadb":
		// A buffer pool that holds the messages, as a server would have.
		srv := archivetest.StartMariaDB(b, "--innodb-buffer-pool-size=1G", "--innodb-log-file-size=256M")
		dsn = srv.NewDatabase(b)
		name := dsn[strings.LastIndexByte(dsn, '/')+1:]
		r.size = func() (int64, int64) {
			var index int64
			files, _ := filepath.Glob(filepath.Join(srv.Dir, "data", name+".mrn*"))
			for _, f := range files {
				var st syscall.Stat_t
				if syscall.Stat(f, &st) == nil {
					index += st.Blocks * 512 // Groonga's files are sparse
				}
			}
			return index, r.sum("SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'messages'")
		}
	default:
		b.Fatalf("SEARCH_BENCH_ENGINES: unknown engine %q (sqlite, mariadb)", engine)
	}
	db, err := Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	r.db = db
	r.load.posts = n
	return r
}

func (r *sbRun) sum(q string) int64 {
	var v int64
	if err := r.db.read.QueryRow(q).Scan(&v); err != nil {
		r.b.Fatalf("%s: %v", q, err)
	}
	return v
}

var sbCorpus = searchtest.NewCorpus(2024)

func (r *sbRun) run() *sbRun {
	start := time.Now()
	r.save(&r.load, r.load.posts, 500)
	fmt.Fprintf(os.Stderr, "%s: %d posts archived in %s\n", r.engine, r.posts, time.Since(start).Round(time.Second))
	r.steady.posts = min(20_000, r.load.posts/10)
	r.save(&r.steady, r.steady.posts, 40)
	r.search()
	return r
}

// save archives n more posts in batches as Save does (save.go), timing
// its steps: the rows, the index, the commit (where FTS5 writes).
func (r *sbRun) save(into *sbSaves, n, batch int) {
	ctx := context.Background()
	put := make([]store.Archived, 0, batch)
	for done := 0; done < n; done += len(put) {
		put = put[:0]
		for range min(batch, n-done) {
			r.posts++
			id := 2 * r.posts
			put = append(put, store.Archived{ID: id, Kind: store.KindPost, Author: 1 + id%5000, Username: "u",
				Content: sbCorpus.Post(r.posts), Created: 1_700_000_000_000 + id, Mentions: "[]", Tags: "[]", Media: "[]"})
		}
		t0 := time.Now()
		tx, err := r.db.write.BeginTx(ctx, nil)
		if err != nil {
			r.b.Fatal(err)
		}
		if err := insert(ctx, tx, put, r.db.d.keepExisting, false); err != nil {
			r.b.Fatal(err)
		}
		t1 := time.Now()
		if err := r.db.reindex(ctx, tx, savedIDs(put)); err != nil {
			r.b.Fatal(err)
		}
		t2 := time.Now()
		if err := tx.Commit(); err != nil {
			r.b.Fatal(err)
		}
		t3 := time.Now()
		into.rows += t1.Sub(t0)
		into.index += t2.Sub(t1)
		into.commit += t3.Sub(t2)
		into.all += t3.Sub(t0)
	}
}

// sbClasses are the queries, by class: common words are in a tenth to a
// half of the posts, rare ones in about 60 of a million (searchtest.Rare).
var sbClasses = []struct {
	name    string
	queries []string
}{
	{"1 character, common", []string{"的", "天", "e", "a"}},
	{"1 character, rare", []string{"燚", "淼", "鱻"}},
	{"2 characters, common", []string{"天气", "今天", "th", "in"}},
	{"2 characters, rare", []string{"璟玥", "昀沄", "垚赑"}},
	{"3+ characters, common", []string{"the", "数据库", "weather", "人工智能"}},
	{"3+ characters, rare", []string{"quokka", "zugzwang", "petrichor", "jxq"}},
	{"two words, common", []string{"天气 好", "the and", "今天 我"}},
	{"two words, rare and common", []string{"quokka 的", "燚 天气", "sonder the"}},
	{"no match", []string{"quokka zugzwang", "xyzzy", "燚鱻"}},
}

// search times pages of 20: the first page of each query, and a page that
// starts a quarter of the way into the archive (older posts).
func (r *sbRun) search() {
	ctx := context.Background()
	const reps = 25
	deep := 2 * r.posts / 4
	for _, c := range sbClasses {
		for _, q := range c.queries {
			words, err := store.ParseQuery(q)
			if err != nil {
				r.b.Fatal(err)
			}
			for i := range reps {
				before := int64(0)
				if i%5 == 4 {
					before = deep
				}
				t := time.Now()
				res, err := r.db.Search(ctx, store.SearchQuery{Words: words, Before: before, Limit: 20})
				if err != nil {
					r.b.Fatal(err)
				}
				r.queries[c.name] = append(r.queries[c.name], time.Since(t))
				if i == 0 {
					r.found[c.name] += len(res.IDs)
				}
			}
		}
	}
}

func sbPrint(runs []*sbRun, n int) {
	fmt.Printf("\n### Search over %s posts (`make bench-search`)\n\n", sbThousands(int64(n)))
	fmt.Println("| | " + sbJoin(runs, func(r *sbRun) string { return r.engine }) + " |")
	fmt.Println("|---|" + strings.Repeat("---:|", len(runs)))
	row := func(name string, f func(r *sbRun) string) { fmt.Println("| " + name + " | " + sbJoin(runs, f) + " |") }
	rate := func(s sbSaves, d time.Duration) string {
		return sbThousands(int64(float64(s.posts)/d.Seconds())) + "/s"
	}
	row("posts saved with their index rows, batches of 500", func(r *sbRun) string { return rate(r.load, r.load.all) })
	row("  the index's share of that time (its statements; commit)", func(r *sbRun) string {
		return fmt.Sprintf("%.0f%%; %.0f%%", 100*r.load.index.Seconds()/r.load.all.Seconds(), 100*r.load.commit.Seconds()/r.load.all.Seconds())
	})
	row("  posts indexed per second of the index's statements", func(r *sbRun) string { return rate(r.load, r.load.index) })
	row("posts saved once full, batches of 40 (the archiver under load)", func(r *sbRun) string { return rate(r.steady, r.steady.all) })
	row("  the index's share of that time (its statements; commit)", func(r *sbRun) string {
		return fmt.Sprintf("%.0f%%; %.0f%%", 100*r.steady.index.Seconds()/r.steady.all.Seconds(), 100*r.steady.commit.Seconds()/r.steady.all.Seconds())
	})
	row("index size; messages table size", func(r *sbRun) string {
		index, messages := r.size()
		return fmt.Sprintf("%.0f MiB; %.0f MiB", float64(index)/(1<<20), float64(messages)/(1<<20))
	})
	fmt.Print("\nA page of 20 (Archive.Search): p50 / p95 / p99, and the posts on the first pages of the class's queries\n\n")
	fmt.Println("| query | " + sbJoin(runs, func(r *sbRun) string { return r.engine }) + " |")
	fmt.Println("|---|" + strings.Repeat("---:|", len(runs)))
	for _, c := range sbClasses {
		row(c.name+" ("+strings.Join(c.queries, ", ")+")", func(r *sbRun) string {
			d := slices.Clone(r.queries[c.name])
			slices.Sort(d)
			at := func(p float64) string { return sbMS(d[min(len(d)-1, int(p*float64(len(d))))]) }
			return fmt.Sprintf("%s / %s / %s (%d)", at(0.50), at(0.95), at(0.99), r.found[c.name])
		})
	}
}

func sbJoin(runs []*sbRun, f func(*sbRun) string) string {
	s := make([]string, len(runs))
	for i, r := range runs {
		s[i] = f(r)
	}
	return strings.Join(s, " | ")
}

func sbMS(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// sbThousands writes n with thousands separators.
func sbThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
