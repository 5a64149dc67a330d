package archive

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The accepted forms of a DSN, for error messages.
const dsnForms = "sqlite:<path> or mysql://user:pass@host:port/db"

// MySQL connection timeouts: dialing a server that does not answer fails
// fast, so callers answer 503 instead of hanging; the writers' reads and
// writes allow for a large Save on a busy server, the readers' (openMySQL)
// for a page of messages or a search, which a reader would not wait longer
// for anyway.
const (
	mysqlDialTimeout = 5 * time.Second
	mysqlIOTimeout   = 30 * time.Second
	mysqlReadTimeout = 5 * time.Second
)

// target is a parsed DSN: a SQLite file or a MySQL server.
type target struct {
	sqlitePath string        // set for sqlite:
	mysql      *mysql.Config // set for mysql://
}

// CheckDSN tells whether dsn has one of the accepted forms, without
// connecting: sqlite:<path> (an embedded SQLite file; sqlite://<path> too)
// or mysql://user:pass@host:port/db (MySQL or MariaDB; the port defaults to
// 3306; tls=true, skip-verify or preferred may follow as ?tls=...).
func CheckDSN(dsn string) error {
	_, err := parseDSN(dsn)
	return err
}

func parseDSN(dsn string) (target, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		return parseSQLite(dsn)
	case strings.HasPrefix(dsn, "mysql://"):
		return parseMySQL(dsn)
	}
	return target{}, fmt.Errorf("archive: DSN %q: want %s", redact(dsn), dsnForms)
}

func parseSQLite(dsn string) (target, error) {
	path := strings.TrimPrefix(dsn, "sqlite:")
	path = strings.TrimPrefix(path, "//") // sqlite:///abs/path, sqlite://rel/path
	switch {
	case path == "":
		return target{}, fmt.Errorf("archive: DSN %q: no file path; want %s", dsn, dsnForms)
	case path == ":memory:" || strings.HasPrefix(path, "file:"):
		// Each pooled connection would see a database of its own.
		return target{}, fmt.Errorf("archive: DSN %q: want a file path, as in sqlite:data/archive.db", dsn)
	case strings.ContainsRune(path, '?'):
		// The driver reads its options after the first '?'.
		return target{}, fmt.Errorf("archive: DSN %q: the path may not hold '?'", dsn)
	}
	return target{sqlitePath: filepath.Clean(path)}, nil
}

func parseMySQL(dsn string) (target, error) {
	bad := func(why string) (target, error) {
		return target{}, fmt.Errorf("archive: DSN %q: %s; want %s", redact(dsn), why, dsnForms)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return bad("not a URL")
	}
	if u.Host == "" || u.Hostname() == "" {
		return bad("no host")
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return bad("no database name")
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	c := mysql.NewConfig()
	c.Net, c.Addr, c.DBName = "tcp", addr, db
	if u.User != nil {
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
	}
	if c.User == "" {
		return bad("no user")
	}
	// utf8mb4 whatever the server's default, so that Chinese and emoji
	// round-trip; interpolated parameters save a round trip per statement.
	if err := c.Apply(mysql.Charset("utf8mb4", "utf8mb4_unicode_ci")); err != nil {
		return bad(err.Error())
	}
	c.InterpolateParams = true
	c.Timeout, c.ReadTimeout, c.WriteTimeout = mysqlDialTimeout, mysqlIOTimeout, mysqlIOTimeout
	for k, v := range u.Query() {
		switch {
		case k == "tls" && len(v) == 1 && (v[0] == "true" || v[0] == "false" || v[0] == "skip-verify" || v[0] == "preferred"):
			c.TLSConfig = v[0]
		default:
			return bad(fmt.Sprintf("unknown parameter %q (only tls=true|false|skip-verify|preferred)", k))
		}
	}
	// Check what FormatDSN would reject when connecting.
	if _, err := mysql.ParseDSN(c.FormatDSN()); err != nil {
		return bad(err.Error())
	}
	return target{mysql: c}, nil
}

// redact hides the password of a URL-shaped DSN, for error messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		if err != nil && strings.Contains(dsn, "@") {
			return "(unparsable DSN)"
		}
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
