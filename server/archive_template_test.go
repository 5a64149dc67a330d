package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"microblog/store/archive"
	"microblog/store/storetest"
)

// testTemp is a folder of this test process's own, removed when its tests
// end: it holds the archive template.
var testTemp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "microblog-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testTemp = dir
	storetest.Main(m, func() { os.RemoveAll(dir) })
}

// archiveTemplate is an empty SQLite archive with every migration applied,
// made once a test process by archive.Open. Every history a test starts
// would otherwise migrate a new archive of its own: under the race
// detector that was a twelfth of this package's tests' CPU, spent again
// and again on the same statements. The archive's own tests
// (store/archive) migrate new databases and old ones.
var archiveTemplate = sync.OnceValues(func() ([]byte, error) {
	path := filepath.Join(testTemp, "template", "archive.db")
	db, err := archive.Open(context.Background(), "sqlite:"+path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

// copyArchiveTemplate puts the template at path unless an archive is
// there: a history's first server starts on a migrated, empty archive, as
// if it had run before, and the next servers of that history find its
// archive as they left it. A file is linked into place whole, so that of
// two servers starting at once neither opens half a copy.
func copyArchiveTemplate(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	b, err := archiveTemplate()
	if err != nil {
		t.Fatalf("archive template: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "archive-*.db")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		t.Fatal(err)
	}
}
