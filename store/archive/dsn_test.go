package archive

import (
	"strings"
	"testing"
	"time"
)

func TestCheckDSN(t *testing.T) {
	for _, dsn := range []string{
		"sqlite:archive.db", "sqlite:.data/archive.db", "sqlite:/var/lib/microblog/archive.db",
		"sqlite:///var/lib/microblog/archive.db",
		"mysql://u:p@db.example:3307/microblog", "mysql://u@127.0.0.1/microblog",
		"mysql://u:p%40ss@[::1]:3306/microblog?tls=true",
	} {
		if err := CheckDSN(dsn); err != nil {
			t.Errorf("CheckDSN(%q): %v", dsn, err)
		}
	}
	for _, dsn := range []string{
		"", "archive.db", "postgres://u:p@h/db", "sqlite:", "sqlite::memory:", "sqlite:a?mode=ro",
		"mysql://u:p@h:3306/", "mysql://u:p@/db", "mysql://:p@h/db", "mysql://u:p@h/db/x",
		"mysql://u:p@h/db?multiStatements=true", "mysql://u:p@h:port/db",
	} {
		err := CheckDSN(dsn)
		if err == nil {
			t.Errorf("CheckDSN(%q) accepted it", dsn)
			continue
		}
		if !strings.Contains(err.Error(), dsnForms) && !strings.Contains(err.Error(), "sqlite:") {
			t.Errorf("CheckDSN(%q) = %v: does not name the accepted forms", dsn, err)
		}
		if strings.Contains(err.Error(), ":p@") {
			t.Errorf("CheckDSN(%q) = %v: shows the password", dsn, err)
		}
	}
}

func TestMySQLDSN(t *testing.T) {
	tg, err := parseDSN("mysql://micro:s%3Acret@db.example/blog")
	if err != nil {
		t.Fatal(err)
	}
	c := tg.mysql
	if c.User != "micro" || c.Passwd != "s:cret" || c.Net != "tcp" || c.Addr != "db.example:3306" || c.DBName != "blog" {
		t.Errorf("config = %+v", c)
	}
	if !c.InterpolateParams || c.Timeout != 5*time.Second || c.ReadTimeout != 30*time.Second {
		t.Errorf("interpolateParams %v, timeouts %v %v", c.InterpolateParams, c.Timeout, c.ReadTimeout)
	}
	if dsn := c.FormatDSN(); !strings.Contains(dsn, "charset=utf8mb4") {
		t.Errorf("driver DSN %q lacks charset=utf8mb4", dsn)
	}
	tg, err = parseDSN("sqlite:///srv/a.db")
	if err != nil || tg.sqlitePath != "/srv/a.db" {
		t.Errorf("sqlite:///srv/a.db = %q, %v", tg.sqlitePath, err)
	}
}
