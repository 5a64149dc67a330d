package archive

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

// migrationFiles are each engine's migrations, migrations/<engine>/NNN_name.sql:
// numbered from 001 without gaps, statements ending with ";" at the end of a
// line, whole-line "--" comments. A migration, once released, never changes;
// a new one gets the next number.
//
//go:embed migrations
var migrationFiles embed.FS

// migration is one file of migrations.
type migration struct {
	version int
	name    string
	stmts   []string
}

// createMigrations records which migrations ran, with when (unix ms); the
// same text suits both engines.
const createMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at BIGINT  NOT NULL
)`

// migrations returns the migrations of engine, by version.
func migrations(engine string) ([]migration, error) {
	dir := path.Join("migrations", engine)
	files, err := fs.ReadDir(migrationFiles, dir) // sorted by name
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, f := range files {
		num, _, ok := strings.Cut(f.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != len(ms)+1 || !strings.HasSuffix(f.Name(), ".sql") {
			return nil, fmt.Errorf("migration %s/%s: want %03d_<name>.sql", dir, f.Name(), len(ms)+1)
		}
		text, err := fs.ReadFile(migrationFiles, path.Join(dir, f.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: f.Name(), stmts: statements(string(text))})
	}
	return ms, nil
}

// statements splits a migration file into its statements.
func statements(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	var stmts []string
	for _, s := range strings.Split(strings.Join(lines, "\n"), ";\n") {
		if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); s != "" {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// migrate applies the migrations the database has not recorded yet, each
// in its own transaction that first checks again whether another process
// applied it meanwhile. On MySQL, whose DDL a transaction cannot hold back,
// a named lock serializes the processes instead.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations(db.d.name)
	if err != nil {
		return err
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if db.d.lockMigrations != nil {
		unlock, err := db.d.lockMigrations(ctx, conn)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if _, err := conn.ExecContext(ctx, createMigrations); err != nil {
		return err
	}
	for _, m := range ms {
		if err := apply(ctx, conn, m); err != nil {
			return fmt.Errorf("%s/%s: %w%s", db.d.name, m.name, err, migrationHint(err))
		}
	}
	return nil
}

func apply(ctx context.Context, conn *sql.Conn, m migration) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", m.version).Scan(&done); err != nil || done > 0 {
		return err
	}
	for _, s := range m.stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
		m.version, time.Now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion returns the newest migration the database has recorded.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.read.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v)
	return v, wrap(db.d, "schema version", err)
}
