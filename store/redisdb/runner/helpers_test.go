package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// The runners' tests drive a real Store (package redisdb) on a throwaway
// redis-server, or on the test binary's Redis Cluster with
// MICROBLOG_TEST_REDIS=cluster, through its exported API, and the runners
// step by step through their own.

// testStore is a Store with the raw client and keys for checking.
type testStore struct {
	*redisdb.Store
	t    *testing.T
	ctx  context.Context
	rdb  redis.UniversalClient
	keys schema.Keys
	// metrics counts what the runners of the test do.
	metrics *Metrics
}

func TestMain(m *testing.M) { storetest.Main(m) }

// parallel runs t beside the package's other parallel tests, each on a
// Redis of its own (a redis-server, or a cluster that storetest lends it
// alone).
func parallel(t *testing.T) { t.Parallel() }

// newIdleStore is a test store whose fan-out workers do not run: its jobs
// wait in the queue until the test does them.
func newIdleStore(t *testing.T, opt redisdb.Options) testStore {
	t.Helper()
	return storeOn(t, storetest.NewBackend(t).Client(), opt)
}

// storeOn is a test store on rdb, no runner started.
func storeOn(t *testing.T, rdb redis.UniversalClient, opt redisdb.Options) testStore {
	opt.BcryptCost = bcrypt.MinCost
	st := redisdb.New(rdb, opt)
	return testStore{Store: st, t: t, ctx: context.Background(), rdb: st.Client(), keys: st.Keys(), metrics: NewMetrics(nil)}
}

func newTestStore(t *testing.T) testStore { return newTestStoreWith(t, redisdb.Options{}) }

// newTestStoreWith is a test store whose fan-out workers run until the test
// ends.
func newTestStoreWith(t *testing.T, opt redisdb.Options) testStore {
	t.Helper()
	s := newIdleStore(t, opt)
	s.run(NewFanOut(s.Store, FanOutOptions{ClaimIdle: time.Second, Metrics: s.metrics}).Run)
	return s
}

// run runs a runner until the test ends.
func (s testStore) run(run func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	s.t.Cleanup(func() { cancel(); <-done })
}

// engines are the archive's databases: SQLite in a temporary folder and a
// real MariaDB server, each started by the test.
var engines = []struct {
	name string
	dsn  func(testing.TB) string
}{
	{"sqlite", archivetest.SQLite},
	{"mariadb", archivetest.MariaDB},
}

// openArchive opens the archive at dsn until the test ends.
func openArchive(t *testing.T, dsn string) *archive.DB {
	t.Helper()
	db, err := archive.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newArchivedStore is a test store with the archive at dsn, its archiver
// running until the test ends.
func newArchivedStore(t *testing.T, dsn string, opt redisdb.Options) testStore {
	t.Helper()
	opt.Archive = openArchive(t, dsn)
	s := newTestStoreWith(t, opt)
	s.run(NewArchiver(s.Store, ArchiverOptions{Batch: 40, ClaimIdle: time.Second, Metrics: s.metrics}).Run)
	return s
}

// waitEmpty waits until stream is empty, and fails if it is not within.
func (s testStore) waitEmpty(stream, what string, within time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, err := s.rdb.XLen(s.ctx, stream).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s still holds %d entries (%v)", what, n, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settle waits until the fan-out queue is empty: every job is done.
func (s testStore) settle() {
	s.waitEmpty(s.keys.FanOutQueue(), "the fan-out queue", storetest.HangWait)
}

// archived waits until the fan-out and archive queues are empty.
func (s testStore) archived() {
	s.settle()
	s.waitEmpty(s.keys.ArchiveQueue(), "the archive queue", storetest.HangWait)
}

// inHome tells whether mid is in uid's G set (pushed), not merely shown.
func (s testStore) inHome(uid, mid int64) bool {
	_, err := s.rdb.ZScore(s.ctx, s.keys.Home(uid), id(mid)).Result()
	return err == nil
}

// hotHashes counts the messages of mids whose hash is still in Redis.
func (s testStore) hotHashes(mids []int64) int {
	n := 0
	for _, mid := range mids {
		if s.rdb.Exists(s.ctx, s.keys.Post(mid)).Val() == 1 {
			n++
		}
	}
	return n
}

// pendingMarks counts the in-flight marks left in every shard.
func (s testStore) pendingMarks() int64 {
	s.t.Helper()
	var n int64
	for shard := range s.keys.PullShards() {
		n += s.rdb.HLen(s.ctx, s.keys.FanOutPendingShard(shard)).Val()
		n += s.rdb.ZCard(s.ctx, s.keys.FanOutPushingShard(shard)).Val()
	}
	return n
}

// user registers name and returns its uid.
func (s testStore) user(name string) int64 {
	s.t.Helper()
	u, _, err := s.Register(s.ctx, name, "password123")
	if err != nil {
		s.t.Fatal(err)
	}
	return u.ID
}

// post writes np and fails the test if it fails.
func (s testStore) post(np store.NewPost) store.Post {
	s.t.Helper()
	p, err := s.Create(s.ctx, np)
	if err != nil {
		s.t.Fatalf("create %+v: %v", np, err)
	}
	return p
}

// follow makes fan follow star, again while its change of fan-out mode
// outran the mode lock's TTL on a busy machine, as a client retries.
func (s testStore) follow(fan, star int64) {
	s.t.Helper()
	var err error
	for range 20 {
		if err = s.Follow(s.ctx, fan, star); !errors.Is(err, redisdb.ErrModeLockLost) {
			break
		}
	}
	if err != nil {
		s.t.Fatal(err)
	}
}

// ids are the ids of a page's posts, in order.
func ids(ps []store.Post) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// pageAll pages a list to its end with the cursor, 7 at a time, and
// returns every id in order.
func (s testStore) pageAll(page func(store.PageQuery) (store.Page[store.Post], error)) []int64 {
	s.t.Helper()
	var out []int64
	q := store.PageQuery{Limit: 7}
	for range 1000 {
		p, err := page(q)
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, ids(p.Items)...)
		if p.NextCursor == nil {
			return out
		}
		if q.Cursor, err = store.DecodeCursor(*p.NextCursor); err != nil {
			s.t.Fatal(err)
		}
	}
	s.t.Fatal("pages without end")
	return nil
}

// edit edits mid as uid and fails the test if that fails.
func (s testStore) edit(uid, mid int64, content string) store.Post {
	s.t.Helper()
	p, err := s.Edit(s.ctx, uid, mid, content)
	if err != nil {
		s.t.Fatalf("edit %d to %q: %v", mid, content, err)
	}
	return p
}

// history is every version of mid as viewer sees them, their contents.
func (s testStore) history(mid, viewer int64) []string {
	s.t.Helper()
	vs, err := s.History(s.ctx, mid, viewer)
	if err != nil {
		s.t.Fatalf("history of %d: %v", mid, err)
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Content
	}
	return out
}
