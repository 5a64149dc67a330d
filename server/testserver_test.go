package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// testPassword is the password of every user the tests register.
const testPassword = "correct horse battery"

// startRedis starts a throwaway redis-server for t, for the tests that need
// one Redis of their own (to restart it, to fill it); the others use
// newTestServer, which runs on a cluster too.
func startRedis(t testing.TB) *storetest.Redis { return storetest.Start(t) }

// testServer is the whole program, started with run as main would, on a free
// port, talking to a test Redis.
type testServer struct {
	t       testing.TB
	URL     string
	backend *storetest.Backend
	// Redis is the server's redis-server; nil on a cluster.
	Redis *storetest.Redis
	// MediaDir is the server's MICROBLOG_MEDIA_DIR.
	MediaDir string
	cancel   context.CancelFunc
	done     chan error
	logs     *syncBuffer
}

// newTestServer starts a server on a fresh Redis: a redis-server of its own,
// or with MICROBLOG_TEST_REDIS=cluster the test binary's cluster, flushed.
func newTestServer(t testing.TB, env ...string) *testServer {
	return startOn(t, storetest.NewBackend(t), env...)
}

// startServer runs the server on r.
func startServer(t testing.TB, r *storetest.Redis, env ...string) *testServer {
	return startOn(t, storetest.SingleBackend(t, r), env...)
}

// startWait is how long a server may take to start before the test gives
// up: a deadline against a hang, far above what a busy machine needs (with
// the race detector, several servers starting at once on two cores took
// over 10 s).
const startWait = time.Minute

// hangWait bounds a test's wait for what must come (a frame, a close, an
// answer, a state the server reaches on its own): a deadline against a
// hang, never a measure of speed, so far above what a busy machine needs
// that only a failing test waits it out. A wait that a test measures on
// purpose (that nothing comes within a short window) is its own.
const hangWait = time.Minute

// backendDirs holds the folder of each cluster Backend's archive and media.
var backendDirs sync.Map // *storetest.Backend → string

// backendDir is the folder of b's archive (archive.db) and media (media/,
// which the server makes), made by the first
// server started on b: every process on one Redis shares them, as a
// deployment's do. With an archive each, the archive queue's entries for
// one message (its put, and its delete when its write was undone) went to
// two archives, and the undone post came back from the one that had only
// its put.
//
// A single redis-server is one history for as long as it runs, whichever
// test or subtest starts a server on it (startServer makes a Backend for
// each), so its folder is kept beside Redis's own and lives as long; a
// Backend of a cluster (lent to its test alone) is flushed for it, a history of its
// own.
func backendDir(t testing.TB, b *storetest.Backend) string {
	if b.Single != nil {
		dir := filepath.Join(b.Single.Dir, "server")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, _ := backendDirs.LoadOrStore(b, t.TempDir())
	return dir.(string)
}

// startOn runs the server on b. env entries "KEY=VALUE" override the test
// defaults (rate limits off, fast password hashing, a free port).
func startOn(t testing.TB, b *storetest.Backend, env ...string) *testServer {
	t.Helper()
	dir := backendDir(t, b)
	vars := map[string]string{
		"MICROBLOG_ADDR":        "127.0.0.1:0",
		"MICROBLOG_RATE_LIMITS": "off",
		"MICROBLOG_BCRYPT_COST": "4",
		"MICROBLOG_LOG_LEVEL":   "warn",
		"MICROBLOG_MEDIA_DIR":   dir + "/media",
		"MICROBLOG_ARCHIVE":     "sqlite:" + dir + "/archive.db",
	}
	copyArchiveTemplate(t, dir+"/archive.db")
	for _, kv := range append(b.Env(), env...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{t: t, backend: b, Redis: b.Single, MediaDir: vars["MICROBLOG_MEDIA_DIR"], cancel: cancel, done: make(chan error, 1), logs: &syncBuffer{}}
	urlc := make(chan string, 1)
	stdout := lineWriter(func(line string) {
		if u, ok := strings.CutPrefix(line, "microblog: serving on "); ok {
			urlc <- u
		}
	})
	go func() { ts.done <- run(ctx, nil, func(k string) string { return vars[k] }, stdout, ts.logs) }()
	select {
	case ts.URL = <-urlc:
	case err := <-ts.done:
		t.Fatalf("server did not start: %v\n%s", err, ts.logs.String())
	case <-time.After(startWait):
		t.Fatalf("server did not start within %v\n%s", startWait, ts.logs.String())
	}
	t.Cleanup(func() {
		ts.Stop()
		if t.Failed() {
			t.Logf("server log:\n%s", ts.logs.String())
		}
	})
	return ts
}

// rdb is a client of the server's Redis (or cluster).
func (ts *testServer) rdb() redis.UniversalClient { return ts.backend.Client() }

// keysOf names the keys of rdb as the server's store names them: through
// the store's own builders, with their hash tags when rdb is a cluster.
func keysOf(rdb redis.UniversalClient) schema.Keys {
	_, cluster := rdb.(*redis.ClusterClient)
	return schema.NewKeys("", cluster)
}

// Stop shuts the server down gracefully and waits for run to return.
func (ts *testServer) Stop() {
	if ts.cancel == nil {
		return
	}
	ts.cancel()
	ts.cancel = nil
	select {
	case err := <-ts.done:
		if err != nil {
			ts.t.Errorf("run returned %v", err)
		}
	case <-time.After(hangWait):
		ts.t.Errorf("server did not stop within %v", hangWait)
	}
}

// call sends one API request like a client would: body is nil, a string
// sent as it is, or a value sent as JSON; token, if set, as a bearer token.
func (ts *testServer) call(t testing.TB, method, path, token string, body any) (int, []byte) {
	t.Helper()
	resp := ts.do(t, method, path, token, body, nil)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// do is call with extra headers, returning the whole response.
func (ts *testServer) do(t testing.TB, method, path, token string, body any, header http.Header) *http.Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, ts.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// register signs a user up and returns its token and uid.
func (ts *testServer) register(t testing.TB, name string) (string, int64) {
	t.Helper()
	status, body := ts.call(t, "POST", "/api/v1/users", "", map[string]string{"username": name, "password": testPassword})
	if status != http.StatusCreated {
		t.Fatalf("register %s: %d %s", name, status, body)
	}
	var out struct {
		User  struct{ ID int64 } `json:"user"`
		Token string             `json:"token"`
	}
	mustDecode(t, body, &out)
	return out.Token, out.User.ID
}

// mustDecode unmarshals a JSON answer or fails the test.
func mustDecode(t testing.TB, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// lineWriter calls f with each complete line written to it.
type lineWriter func(string)

func (f lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		f(line)
	}
	return len(p), nil
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// jsonDecode reads a JSON response body.
func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }

// parallel runs t beside the package's other parallel tests, each on a
// Redis of its own (a redis-server, or a cluster that storetest lends it
// alone): most of a server test's time is spent waiting (for a fan-out, a
// reconnection, a deadline), which others can use.
func parallel(t *testing.T) { t.Parallel() }
