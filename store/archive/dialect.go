package archive

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"microblog/store"
)

// dialect holds what differs between the engines: the conflict clauses of
// the upserts, locking reads, how migrations are serialized, and which errors mean
// "try again" or "unavailable". Every other statement is the same text on
// both.
type dialect struct {
	name string // "sqlite" or "mysql", also the folder of its migrations
	// keepExisting ends an INSERT so that a row whose id exists stays as it is.
	keepExisting string
	// replaceWith starts the clause that makes an INSERT update the row whose
	// id exists; offered(col) names the value the INSERT offered for col.
	replaceWith string
	offered     func(col string) string
	// lockMigrations keeps other processes from migrating until unlock;
	// nil when each migration's transaction does that by itself.
	lockMigrations func(ctx context.Context, conn *sql.Conn) (unlock func(), err error)
	// retry tells whether a transaction that failed with err may be run again.
	retry func(err error) bool
	// unavailable tells whether err means the database cannot serve now.
	unavailable func(err error) bool
	// authorsPerQuery is how many authors one query of IDs reads (see
	// ofAuthors): a statement costs SQLite, in process, microseconds, so a
	// prepared seek per author is cheapest; MySQL pays a round trip for each,
	// so a UNION ALL of 100 seeks.
	authorsPerQuery int
	// tombstone ends the INSERT of tombstones (see withTombstone).
	tombstone string
	// keepLike ends an INSERT of likes so that a like already there stays.
	keepLike string
	// keepNewestVersion ends an INSERT of like_versions so that a pair keeps
	// the greater of its version and the one offered.
	keepNewestVersion string
	// lockRead ends a SELECT that must read the rows as they are now and
	// keep them locked to the end of the transaction; empty on SQLite, whose
	// write transactions hold the whole file already.
	lockRead string
}

var sqliteDialect = withTombstone(&dialect{
	name:              "sqlite",
	keepExisting:      " ON CONFLICT(id) DO NOTHING",
	keepLike:          " ON CONFLICT(mid, uid) DO NOTHING",
	keepNewestVersion: " ON CONFLICT(mid, uid) DO UPDATE SET version = max(version, excluded.version)",
	replaceWith:       " ON CONFLICT(id) DO UPDATE SET ",
	offered:           func(col string) string { return "excluded." + col },
	// A migration runs in a transaction that begins with BEGIN IMMEDIATE
	// (the write pool's _txlock), which other writers wait for; SQLite's
	// DDL is transactional, so the migration and its record are one step.
	lockMigrations:  nil,
	retry:           func(error) bool { return false }, // busy_timeout already waited
	unavailable:     sqliteUnavailable,
	authorsPerQuery: 1,
})

var mysqlDialect = withTombstone(&dialect{
	name:              "mysql",
	keepExisting:      " ON DUPLICATE KEY UPDATE id = id",
	keepLike:          " ON DUPLICATE KEY UPDATE mid = mid",
	keepNewestVersion: " ON DUPLICATE KEY UPDATE version = GREATEST(version, VALUES(version))",
	lockRead:          " FOR UPDATE",
	replaceWith:       " ON DUPLICATE KEY UPDATE ",
	// VALUES(col) is deprecated on MySQL 8.0.20+ but still works, and it is
	// the only spelling MariaDB knows.
	offered: func(col string) string { return "VALUES(" + col + ")" },
	// MySQL's DDL commits at once, so a transaction cannot make a migration
	// atomic: a named lock keeps a second process out until the first has
	// migrated and recorded the version.
	lockMigrations: mysqlLock,
	retry: func(err error) bool {
		var e *mysql.MySQLError
		return errors.As(err, &e) && e.Number == 1213 // deadlock: InnoDB rolled back
	},
	unavailable:     mysqlUnavailable,
	authorsPerQuery: 100,
})

// withTombstone sets d.tombstone: a tombstone clears the text and JSON of the
// row it replaces and marks it deleted, and takes kind, author, username,
// created, repost_of and parent from what was given, except those given as
// zero, which keep what the row had.
func withTombstone(d *dialect) *dialect {
	set := []string{"deleted = 1", "content = ''", "mentions = ''", "tags = ''", "media = ''", "history = ''", "poll = ''", "spoiler = ''", "url = ''"}
	for _, col := range []string{"kind", "username"} {
		set = append(set, fmt.Sprintf("%s = CASE WHEN %s <> '' THEN %[2]s ELSE %[1]s END", col, d.offered(col)))
	}
	for _, col := range []string{"author", "created", "repost_of", "parent"} {
		set = append(set, fmt.Sprintf("%s = CASE WHEN %s <> 0 THEN %[2]s ELSE %[1]s END", col, d.offered(col)))
	}
	d.tombstone = d.replaceWith + strings.Join(set, ", ")
	return d
}

// migrationLock names the MySQL lock that migrations hold. Lock names are
// server-wide, so archives sharing a server migrate one at a time, which
// costs them nothing but a short wait.
const migrationLock = "microblog_archive_migrations"

// mysqlLock takes migrationLock on conn's session, waiting up to 60s for
// another process to finish migrating.
func mysqlLock(ctx context.Context, conn *sql.Conn) (func(), error) {
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 60)", migrationLock).Scan(&got); err != nil {
		return nil, err
	}
	if got.Int64 != 1 {
		return nil, fmt.Errorf("another process held the lock %q for 60s", migrationLock)
	}
	return func() {
		conn.ExecContext(context.WithoutCancel(ctx), "SELECT RELEASE_LOCK(?)", migrationLock)
	}, nil
}

// wrap names the operation that failed and, when the database could not
// serve it, adds store.ErrArchiveUnavailable (an ErrUnavailable) so that
// callers answer 503 archive_unavailable.
func wrap(d *dialect, op string, err error) error {
	if err == nil {
		return nil
	}
	if commonUnavailable(err) || d.unavailable(err) {
		return fmt.Errorf("archive: %s: %w: %w", op, store.ErrArchiveUnavailable, err)
	}
	return fmt.Errorf("archive: %s: %w", op, err)
}

// commonUnavailable tells whether err means the connection or the pool
// failed, on either engine, or the database did not answer in time.
func commonUnavailable(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) ||
		// database/sql's errDBClosed is not exported.
		strings.Contains(err.Error(), "sql: database is closed")
}

// mysqlUnavailable tells whether err means the server is down, refuses us or
// is too busy.
func mysqlUnavailable(err error) bool {
	if errors.Is(err, mysql.ErrInvalidConn) {
		return true
	}
	var e *mysql.MySQLError
	if !errors.As(err, &e) {
		return false
	}
	switch e.Number {
	case 1040, // too many connections
		1044, 1045, // access denied (like Redis's NOAUTH and WRONGPASS)
		1053,       // server shutdown in progress
		1205,       // lock wait timeout
		1290, 1836, // read-only server
		1927: // connection killed
		return true
	}
	return false
}

// sqliteUnavailable tells whether err means the file cannot be used now:
// locked by another writer beyond busy_timeout, unreadable, or a full disk.
func sqliteUnavailable(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff { // the primary code of an extended one
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR,
		sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY:
		return true
	}
	return false
}
