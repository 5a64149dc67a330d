// Package archive is the SQL archive behind the Redis hot window
// (store.Archive): every message and every delete, in an embedded SQLite
// file or on a MySQL or MariaDB server. Both engines share one code path;
// only the statements whose syntax differs live in a dialect (dialect.go),
// and each engine has its own migrations (migrations/<engine>/).
package archive

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go

	"microblog/store"
)

// DB is an open archive. Its methods are safe for concurrent use, also by
// several processes sharing the database.
type DB struct {
	d *dialect
	// read serves queries; write serves Save and migrations. On SQLite they
	// are two pools of the same file: one connection writes, since SQLite
	// allows one writer at a time, while others read beside it (WAL). On
	// MySQL they are two pools of the same server, with different timeouts
	// (openMySQL).
	read, write *sql.DB
	// stopBackfill stops indexing the posts archived before search was.
	stopBackfill func()
}

var _ store.Archive = (*DB)(nil)

// Pool sizes. SQLite's readers are cheap but gain little beyond the number
// of cores; MySQL's pools bound what one server process asks of the
// database (16 connections, as when reads and writes shared one pool): the
// archiver saves one batch at a time, and edits and likes of archived
// messages are rare.
const (
	sqliteReaders = 4
	mysqlReaders  = 12
	mysqlWriters  = 4
)

// sqliteOptions are the modernc.org/sqlite options of every connection:
// wait up to 5s for another writer instead of failing at once, and WAL, so
// that readers never block the writer nor it them. synchronous stays FULL
// (the default): the archive is the only copy of cold messages, so a
// committed Save survives a power cut, at one fsync per Save.
const sqliteOptions = "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"

// Open opens the archive dsn names (see CheckDSN for its forms), creating a
// SQLite file and its folder if missing, and brings its schema up to date.
// Several processes may open the same archive at once. When a MySQL server
// cannot be reached, the error wraps store.ErrUnavailable.
func Open(ctx context.Context, dsn string) (*DB, error) {
	t, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	var db *DB
	if t.mysql != nil {
		db = openMySQL(t.mysql)
	} else if db, err = openSQLite(t.sqlitePath); err != nil {
		return nil, err
	}
	// Processes opening a new SQLite file at once may find it locked while
	// another sets it up (its journal mode, the first migrations), sooner
	// than the busy timeout helps: they try again for a while.
	for try := 0; ; try++ {
		err := db.migrate(ctx)
		if err == nil {
			break
		}
		if t.mysql != nil || !db.d.unavailable(err) || try == 50 || ctx.Err() != nil {
			db.Close()
			return nil, wrap(db.d, "open: migrate", err)
		}
		time.Sleep(time.Duration(20+rand.IntN(80)) * time.Millisecond)
	}
	db.stopBackfill = db.startBackfill()
	return db, nil
}

func openSQLite(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("archive: open: %w", err)
	}
	// _txlock=immediate takes the write lock when a transaction begins, so
	// that two processes' Saves wait for each other (busy_timeout) instead
	// of one failing when it tries to upgrade a read lock.
	write, err := sql.Open("sqlite", path+sqliteOptions+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("archive: open: %w", err)
	}
	write.SetMaxOpenConns(1)
	read, err := sql.Open("sqlite", path+sqliteOptions+"&_query_only=1")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("archive: open: %w", err)
	}
	read.SetMaxOpenConns(sqliteReaders)
	read.SetMaxIdleConns(sqliteReaders)
	return &DB{d: sqliteDialect, read: read, write: write}, nil
}

// openMySQL opens two pools on the server, as on SQLite: reads time out
// after mysqlReadTimeout, so that a reader past the hot window is told 503
// within seconds of the server hanging, while Saves, which write large
// batches, get mysqlIOTimeout.
func openMySQL(c *mysql.Config) *DB {
	rc := c.Clone()
	rc.ReadTimeout, rc.WriteTimeout = mysqlReadTimeout, mysqlReadTimeout
	return &DB{d: mysqlDialect, read: mysqlPool(rc, mysqlReaders), write: mysqlPool(c, mysqlWriters)}
}

func mysqlPool(c *mysql.Config, conns int) *sql.DB {
	conn, _ := mysql.NewConnector(c) // c passed parseDSN's checks
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(max(1, conns/2))
	// Below the servers' usual wait_timeout (8h) and any proxy's idle cut.
	db.SetConnMaxLifetime(5 * time.Minute)
	db.SetConnMaxIdleTime(time.Minute)
	return db
}

// Ping tells whether the archive answers.
func (db *DB) Ping(ctx context.Context) error {
	return wrap(db.d, "ping", db.read.PingContext(ctx))
}

// Close releases the database. Calls after Close fail with an error that
// wraps store.ErrUnavailable.
func (db *DB) Close() error {
	if db.stopBackfill != nil {
		db.stopBackfill()
	}
	err := db.write.Close()
	if db.read != db.write {
		if e := db.read.Close(); err == nil {
			err = e
		}
	}
	return wrap(db.d, "close", err)
}

// Count returns how many messages and how many tombstones the archive holds.
func (db *DB) Count(ctx context.Context) (messages, tombstones int64, err error) {
	rows, err := db.read.QueryContext(ctx, "SELECT deleted, COUNT(*) FROM messages GROUP BY deleted")
	if err != nil {
		return 0, 0, wrap(db.d, "count", err)
	}
	defer rows.Close()
	for rows.Next() {
		var deleted bool
		var n int64
		if err := rows.Scan(&deleted, &n); err != nil {
			return 0, 0, wrap(db.d, "count", err)
		}
		if deleted {
			tombstones = n
		} else {
			messages = n
		}
	}
	return messages, tombstones, wrap(db.d, "count", rows.Err())
}
