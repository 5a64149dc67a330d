package redisdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/storetest"
)

// testStore is a Store on its own throwaway redis-server (or, with
// MICROBLOG_TEST_REDIS=cluster, on the test binary's Redis Cluster, flushed
// for it), with the raw client for checking keys.
type testStore struct {
	*Store
	t   *testing.T
	ctx context.Context
	// metrics, when set, counts what the runners the test starts do.
	metrics *runner.Metrics
}

// parallel runs t beside the package's other parallel tests, each on a
// Redis of its own (a redis-server, or a cluster that storetest lends it
// alone). For tests that spend their time waiting (for a claim to go idle,
// a Redis to come back, an archiver): make test's longest package.
func parallel(t *testing.T) { t.Parallel() }

func newTestStore(t *testing.T) testStore { return newTestStoreWith(t, Options{}) }

// newTestStoreWith is newTestStore with options; its fan-out workers run
// until the test ends.
func newTestStoreWith(t *testing.T, opt Options) testStore {
	t.Helper()
	return newTestStoreFanOut(t, opt, runner.FanOutOptions{ClaimIdle: time.Second})
}

// newTestStoreFanOut is newTestStoreWith with its fan-out workers' options.
func newTestStoreFanOut(t *testing.T, opt Options, fo runner.FanOutOptions) testStore {
	t.Helper()
	opt.BcryptCost = bcrypt.MinCost
	s := testStore{Store: New(storetest.NewBackend(t).Client(), opt), t: t, ctx: context.Background()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runner.NewFanOut(s.Store, fo).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// settle waits until the fan-out queue is empty: every job is done.
func (s testStore) settle() {
	s.t.Helper()
	deadline := time.Now().Add(storetest.HangWait)
	for {
		n, err := s.rdb.XLen(s.ctx, s.keys.FanOutQueue()).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("fan-out queue still holds %d jobs (%v)", n, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// inHome tells whether mid is in uid's G set (pushed), not merely shown.
func (s testStore) inHome(uid, mid int64) bool {
	_, err := s.rdb.ZScore(s.ctx, s.keys.Home(uid), id(mid)).Result()
	return err == nil
}

// homeIDs is every id of uid's home timeline as its reader sees it, paging
// with the cursor, newest first: less the posts its word filters fold
// (store.Post.Filtered; filteredIDs lists them).
func (s testStore) homeIDs(uid int64) []int64 {
	s.t.Helper()
	var out []int64
	q := store.PageQuery{Limit: 7}
	for range 1000 {
		page, err := s.HomeTimeline(s.ctx, uid, q)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, p := range page.Items {
			if !p.Filtered {
				out = append(out, p.ID)
			}
		}
		if page.NextCursor == nil {
			return out
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			s.t.Fatal(err)
		}
	}
	s.t.Fatal("home timeline pages without end")
	return nil
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

func (s testStore) follow(fan, star int64) {
	s.t.Helper()
	if err := retryLockLost(func() error { return s.Follow(s.ctx, fan, star) }); err != nil {
		s.t.Fatal(err)
	}
}

// retryLockLost runs do, a follow or unfollow, again while it fails because
// its change of fan-out mode outran the mode lock's TTL, as a client
// retries the 503: the tests that give the lock a TTL of a few hundred
// milliseconds (so that a process that died holding it is soon taken over)
// met it in their unfaulted steps on a busy machine. Both are idempotent,
// and a retry finishes what the attempt began.
func retryLockLost(do func() error) error {
	var err error
	for range 20 {
		if err = do(); !errors.Is(err, ErrModeLockLost) {
			return err
		}
	}
	return err
}

// ids are the ids of a page's posts, in order.
func ids(ps []store.Post) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// wantCode fails unless err is a *store.Error of kind and code.
func wantCode(t *testing.T, err error, kind error, code store.Code) {
	t.Helper()
	var e *store.Error
	if !errors.As(err, &e) || e.Code != code || !errors.Is(err, kind) {
		t.Fatalf("got %v, want %s (%v)", err, code, kind)
	}
}

func TestMain(m *testing.M) { storetest.Main(m) }
