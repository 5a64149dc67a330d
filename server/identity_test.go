package main

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"microblog/store/redisdb"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestStartRefusesRedisAndArchiveOfDifferentHistories: a Redis and an
// archive are stamped with one identity at first start, and a server
// refuses to start, naming both, on a Redis and an archive of different
// histories: a flushed Redis beside an archive that holds messages,
// another stamped archive, or a new one beside a Redis used with another. A restart on the same pair, and a server without an
// archive, start as before.
func TestStartRefusesRedisAndArchiveOfDifferentHistories(t *testing.T) {
	r1, r2 := storetest.Start(t), storetest.Start(t)
	archiveA := "sqlite:" + t.TempDir() + "/a.db"
	archiveB := "sqlite:" + t.TempDir() + "/b.db"

	ts := startServer(t, r1, "MICROBLOG_ARCHIVE="+archiveA)
	alice, _ := ts.register(t, "alice")
	ts.newPost(t, alice, "archived before Redis is flushed")
	archiveSettled(t, r1.Client())
	ts.Stop()
	startServer(t, r1, "MICROBLOG_ARCHIVE="+archiveA).Stop() // a restart
	// A second process on this Redis with an archive of its own.
	archiveC := "sqlite:" + t.TempDir() + "/c.db"
	err := startFails(t, storetest.SingleBackend(t, r1), "MICROBLOG_ARCHIVE="+archiveC)
	wantRefusal(t, err, "used with another archive", r1.Addr(), archiveC)

	startServer(t, r2, "MICROBLOG_ARCHIVE="+archiveB).Stop() // another history, stamped
	err = startFails(t, storetest.SingleBackend(t, r1), "MICROBLOG_ARCHIVE="+archiveB)
	wantRefusal(t, err, "stamped by different histories", r1.Addr(), archiveB)

	if err := r1.Client().FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	err = startFails(t, storetest.SingleBackend(t, r1), "MICROBLOG_ARCHIVE="+archiveA)
	wantRefusal(t, err, "the archive holds messages this Redis never issued", r1.Addr(), archiveA)

	startServer(t, r1, "MICROBLOG_ARCHIVE=off").Stop() // no archive: unaffected
	if id := r1.Client().Get(context.Background(), schema.NewKeys("", false).HistoryIdentity()).Val(); id != "" {
		t.Fatalf("a server without an archive stamped Redis with %q", id)
	}
}

// wantRefusal fails unless err is the refusal of different histories, for
// the reason why, naming the Redis at redisAddr and the archive.
func wantRefusal(t *testing.T, err error, why, redisAddr, archive string) {
	t.Helper()
	if !errors.Is(err, redisdb.ErrOtherHistory) {
		t.Fatalf("the server answered %v, want a refusal of different histories", err)
	}
	for _, s := range []string{why, redisAddr, archive, "docs/operations.md"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the refusal %q does not say %q", err, s)
		}
	}
}

// startFails runs the server on b with env (as startOn does) and returns
// the error it stops with at start; it fails the test if the server serves.
func startFails(t *testing.T, b *storetest.Backend, env ...string) error {
	t.Helper()
	vars := map[string]string{
		"MICROBLOG_ADDR":        "127.0.0.1:0",
		"MICROBLOG_BCRYPT_COST": "4",
		"MICROBLOG_LOG_LEVEL":   "warn",
		"MICROBLOG_MEDIA_DIR":   t.TempDir(),
		"MICROBLOG_ARCHIVE":     "sqlite:" + t.TempDir() + "/archive.db", // never the shared default
	}
	for _, kv := range append(b.Env(), env...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	served := make(chan struct{}, 1)
	stdout := lineWriter(func(line string) {
		if strings.HasPrefix(line, "microblog: serving on ") {
			served <- struct{}{}
		}
	})
	err := run(ctx, nil, func(k string) string { return vars[k] }, stdout, io.Discard)
	select {
	case <-served:
		t.Fatalf("the server served (and stopped with %v), want a refusal at start", err)
	default:
	}
	return err
}

// TestOlderWriterStops: a running server whose writer version a newer one
// started beside it no longer allows (it raised global:version) stops
// gracefully within VersionCheck, saying why, and refuses to start again.
func TestOlderWriterStops(t *testing.T) {
	b := storetest.NewBackend(t)
	ts := startOn(t, b)
	key := schema.NewKeys("", b.Cluster != nil).WriterVersion()
	ctx := context.Background()
	if v := b.Client().Get(ctx, key).Val(); v != strconv.Itoa(redisdb.CodeMinWriterVersion) {
		t.Fatalf("global:version is %q after a start, want %d", v, redisdb.CodeMinWriterVersion)
	}
	b.Client().Set(ctx, key, redisdb.CodeWriterVersion+1, 0) // a newer version started
	select {
	case err := <-ts.done:
		ts.cancel() // it stopped by itself
		ts.cancel = nil
		if !errors.Is(err, redisdb.ErrWriterTooOld) {
			t.Fatalf("the older server stopped with %v, want ErrWriterTooOld", err)
		}
		t.Logf("stopped: %v", err)
	case <-time.After(hangWait):
		t.Fatalf("the older server still runs %v after a newer version raised global:version", hangWait)
	}
	if err := startFails(t, b); !errors.Is(err, redisdb.ErrWriterTooOld) {
		t.Fatalf("an older server starts with %v, want ErrWriterTooOld", err)
	}
}

// TestRefusalFoundOnceRedisAnswers: a server started while Redis does not
// answer serves (503s) and checks the identities once Redis is back: a
// flushed Redis beside an archive with messages stops it, saying why.
func TestRefusalFoundOnceRedisAnswers(t *testing.T) {
	r := storetest.Start(t)
	archiveA := "sqlite:" + t.TempDir() + "/a.db"
	ts := startServer(t, r, "MICROBLOG_ARCHIVE="+archiveA)
	alice, _ := ts.register(t, "alice")
	ts.newPost(t, alice, "archived before Redis is lost")
	archiveSettled(t, r.Client())
	ts.Stop()
	if err := r.Client().FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	r.Stop()

	ts = startServer(t, r, "MICROBLOG_ARCHIVE="+archiveA) // serves, Redis down
	r.RestartAfter(0)
	select {
	case err := <-ts.done:
		ts.cancel()
		ts.cancel = nil
		wantRefusal(t, err, "the archive holds messages this Redis never issued", r.Addr(), archiveA)
	case <-time.After(hangWait):
		t.Fatalf("the server still serves a flushed Redis beside an archive with messages, %v after Redis is back", hangWait)
	}
}
