package redisdb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"microblog/store/storetest"
)

// TestWriterVersion: processes of one writer version share a Redis; a newer
// version that needs newer writers raises global:version at start, and an
// older process then finds it may not write (at its next check, and at its
// restart), while a process of the same or a newer version may; nobody
// lowers the stamp.
func TestWriterVersion(t *testing.T) {
	parallel(t)
	rdb := storetest.NewBackend(t).Client()
	as := func(version, minWriter int) testStore {
		return newTestStoreOn(t, rdb, Options{Writer: WriterVersions{Version: version, MinWriter: minWriter}})
	}
	v := CodeWriterVersion
	old, alsoOld := as(v, CodeMinWriterVersion), newTestStoreOn(t, rdb, Options{}) // this code's
	for _, s := range []testStore{old, alsoOld} {
		if err := s.ClaimVersion(s.ctx); err != nil {
			t.Fatal(err)
		}
	}
	newer := as(v+1, v+1)
	if err := newer.ClaimVersion(newer.ctx); err != nil {
		t.Fatalf("a newer version is refused: %v", err)
	}
	if err := old.CheckVersion(old.ctx); !errors.Is(err, ErrWriterTooOld) || !strings.Contains(err.Error(), fmt.Sprintf("writer version %d and up, this server is writer version %d", v+1, v)) {
		t.Fatalf("an older process beside it checks %v, want ErrWriterTooOld", err)
	}
	if err := old.ClaimVersion(old.ctx); !errors.Is(err, ErrWriterTooOld) {
		t.Fatalf("an older process starting again gets %v, want ErrWriterTooOld", err)
	}
	compatible := as(v+2, CodeMinWriterVersion) // newer still, whose data older writers keep right
	if err := compatible.ClaimVersion(compatible.ctx); err != nil {
		t.Fatal(err)
	}
	if got := rdb.Get(old.ctx, old.keys.WriterVersion()).Val(); got != strconv.Itoa(v+1) {
		t.Fatalf("global:version is %q after a version that allows older writers started, want %d", got, v+1)
	}
	if err := newer.CheckVersion(newer.ctx); err != nil {
		t.Fatalf("the version that raised it: %v", err)
	}
}
