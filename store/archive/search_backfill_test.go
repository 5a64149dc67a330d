package archive

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/archive/archivetest"
)

// TestMigrateToSearch opens an archive made before search (migrations 1 to
// 3, with posts, a comment and a tombstone in it): migration 5 adds the
// index, and the backfill indexes every post that was there, chunk by
// chunk, so that a search finds them as it finds new ones.
func TestMigrateToSearch(t *testing.T) {
	for name, dsn := range map[string]func(testing.TB) string{"sqlite": archivetest.SQLite, "mariadb": archivetest.MariaDB} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsn(t)
			db, want := oldArchive(t, dsn, 3, 2*backfillChunk+234, func(m *store.Archived) { m.Content = fmt.Sprint("旧的 old ", m.ID) })
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // against a hang only
				res, err := db.Search(ctx, store.SearchQuery{Words: []string{"旧的"}, Limit: len(want) + 1})
				if err != nil {
					t.Fatal(err)
				}
				if slices.Equal(res.IDs, want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the backfill, 旧的 finds %d posts, want %d", len(res.IDs), len(want))
				}
			}
			var next int64
			if err := db.read.QueryRowContext(ctx, "SELECT next FROM search_backfill").Scan(&next); err != nil || next != 1 {
				t.Errorf("backfill's next = %d, %v; want 1 (done)", next, err)
			}
		})
	}
}

// TestOpenWithoutMroonga: on a MariaDB server without the Mroonga engine,
// opening the archive fails, saying what to install.
func TestOpenWithoutMroonga(t *testing.T) {
	dsn := archivetest.StartMariaDB(t, "--mroonga=OFF").NewDatabase(t)
	db, err := Open(context.Background(), dsn)
	if err == nil {
		db.Close()
		t.Fatal("opened an archive without Mroonga")
	}
	if !strings.Contains(err.Error(), "mariadb-plugin-mroonga") || !strings.Contains(err.Error(), "005_search") {
		t.Errorf("error %q does not say what to install", err)
	}
}

// TestMigrateToTags opens an archive made before the topic index
// (migrations 1 to 5, with tagged posts, a tagged comment and a tagged
// tombstone in it): migration 6 adds it, and the backfill indexes the
// topics of every post that was there.
func TestMigrateToTags(t *testing.T) {
	for name, dsn := range map[string]func(testing.TB) string{"sqlite": archivetest.SQLite, "mariadb": archivetest.MariaDB} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsn(t)
			db, want := oldArchive(t, dsn, 5, backfillChunk+34, func(m *store.Archived) { m.Content, m.Tags = "old", `["Old"]` })
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // against a hang only
				ids, err := db.IDs(ctx, store.ArchiveQuery{Tag: "old", Limit: len(want) + 1})
				if err != nil {
					t.Fatal(err)
				}
				if slices.Equal(ids, want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the backfill, topic old has %d posts, want %d", len(ids), len(want))
				}
			}
		})
	}
}

// oldArchive makes an archive at dsn with migrations 1 to version and n
// messages in it (every 100th a comment, every 101st a tombstone, each
// other a post, each as made by fill), written without indexing, then opens
// it again, migrating it. It returns the posts' ids, newest first.
func oldArchive(t *testing.T, dsn string, version int, n int64, fill func(m *store.Archived)) (*DB, []int64) {
	t.Helper()
	ctx := context.Background()
	old, _ := openOld(t, dsn, version)
	var put []store.Archived
	var want []int64
	for id := int64(1); id <= n; id++ {
		m := store.Archived{ID: id, Kind: store.KindPost, Author: 1, Username: "old",
			Created: 1_700_000_000_000 + id, Mentions: "[]", Tags: "[]", Media: "[]"}
		fill(&m)
		switch {
		case id%100 == 0:
			m.Kind, m.Parent = store.KindComment, 1
		case id%101 == 0:
			m.Deleted, m.Content, m.Tags = true, "", ""
		default:
			want = append(want, id)
		}
		put = append(put, m)
	}
	tx, err := old.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := insertBeforePolls(ctx, tx, put, old.d.keepExisting); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	old.Close()
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	slices.Reverse(want)
	return db, want
}

// insertBeforePolls is insert into an archive migrated to a version before
// the poll, spoiler and url columns (migrations 8 to 10): the columns it has.
func insertBeforePolls(ctx context.Context, tx *sql.Tx, ms []store.Archived, onConflict string) error {
	cols, n := strings.TrimSuffix(columns, ", poll, spoiler, url"), columnCount-3
	row := "(" + strings.Repeat("?, ", n-1) + "?)"
	for chunk := range slices.Chunk(ms, rowsPerInsert) {
		rows := make([]string, len(chunk))
		var args []any
		for i, m := range chunk {
			rows[i] = row
			args = append(args, rowArgs(nil, m, false)[:n]...)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO messages ("+cols+") VALUES "+strings.Join(rows, ", ")+onConflict, args...); err != nil {
			return err
		}
	}
	return nil
}
