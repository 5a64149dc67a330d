package archive

import (
	"context"
	"testing"

	"microblog/store/archive/archivetest"
)

// TestMigrateToEdits opens an archive made before edits (migrations 1 and
// 2, with a message in it): migration 3 adds the columns of edits, and the
// message reads as never edited.
func TestMigrateToEdits(t *testing.T) {
	forOldArchives(t, 2, []string{`INSERT INTO messages (id, kind, author, username, content, created, repost_of, parent, mentions, tags, media, deleted)
		VALUES (1, 'post', 7, 'old', '旧的', 1700000000000, 0, 0, '[]', '[]', '[]', 0)`},
		func(t *testing.T, db *DB, ms []migration) {
			ctx := context.Background()
			if v, err := db.SchemaVersion(ctx); err != nil || v != len(ms) || v < 3 {
				t.Errorf("schema version = %d, %v; want %d", v, err, len(ms))
			}
			got, err := db.Posts(ctx, []int64{1})
			if m := got[1]; err != nil || m.Content != "旧的" || m.Edited != 0 || m.History != "" {
				t.Errorf("the message made before edits = %+v, %v", m, err)
			}
		})
}

// forOldArchives runs test, on each engine, on an archive made with its
// first n migrations only and the rows the statements insert, then opened
// (and so migrated) as this version opens it; ms are all the migrations.
func forOldArchives(t *testing.T, n int, inserts []string, test func(t *testing.T, db *DB, ms []migration)) {
	for name, dsn := range map[string]func(testing.TB) string{"sqlite": archivetest.SQLite, "mariadb": archivetest.MariaDB} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsn(t)
			old, ms := openOld(t, dsn, n)
			for _, q := range inserts {
				if _, err := old.write.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			old.Close()

			db, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			test(t, db, ms)
		})
	}
}

// openOld opens the new archive at dsn with its first n migrations only,
// as an older version left it, and returns it with every migration.
func openOld(t *testing.T, dsn string, n int) (*DB, []migration) {
	t.Helper()
	ctx := context.Background()
	tg, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	old := openMySQLOrSQLite(t, tg)
	ms, err := migrations(old.d.name)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := old.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, createMigrations); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:n] {
		if err := apply(ctx, conn, m); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	return old, ms
}

// openMySQLOrSQLite opens tg without migrating it.
func openMySQLOrSQLite(t *testing.T, tg target) *DB {
	t.Helper()
	if tg.mysql != nil {
		return openMySQL(tg.mysql)
	}
	db, err := openSQLite(tg.sqlitePath)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
