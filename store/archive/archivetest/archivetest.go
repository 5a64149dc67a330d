// Package archivetest gives tests a fresh, empty archive on each engine: a
// SQLite file in the test's temporary folder, or a database of its own on a
// throwaway MariaDB server that this package starts on a free loopback
// port, in a temporary folder, and kills when done. Tests never touch a
// database that may hold real data.
package archivetest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// SQLite returns the DSN of a new SQLite archive in t's temporary folder.
func SQLite(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "data", "archive.db") // Open creates data/
}

// MariaDB returns the DSN of a new, empty database for t, dropped when t
// ends. Under Main every test of the binary shares one server, started by
// the first call; otherwise each call starts a server of its own. It fails
// the test (never skips it) when MariaDB is not installed.
func MariaDB(t testing.TB) string {
	t.Helper()
	if !sharing {
		return StartMariaDB(t).NewDatabase(t)
	}
	sharedOnce.Do(func() { shared, sharedErr = start() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared.NewDatabase(t)
}

var (
	sharing    bool // set by Main
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Main runs the tests of m with one MariaDB server for all of them, killed
// once they are done, and exits. Call it from TestMain:
//
//	func TestMain(m *testing.M) { archivetest.Main(m) }
func Main(m *testing.M) {
	sharing = true
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	os.Exit(code)
}
