package storetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BackendEnv names the variable that chooses the Redis of the tests that use
// NewBackend: unset or "single" for a fresh redis-server per test, "cluster"
// for a Redis Cluster of 3 masters (one of the test binary's, lent to one
// test at a time and flushed for it). `make test` runs the store and server
// suites both ways.
const BackendEnv = "MICROBLOG_TEST_REDIS"

// ClusterMode tells whether the tests run on a cluster.
func ClusterMode() bool { return os.Getenv(BackendEnv) == "cluster" }

// Backend is the Redis a test runs against: one of Single and Cluster is set.
type Backend struct {
	t       testing.TB
	Single  *Redis
	Cluster *Cluster
	client  redis.UniversalClient
}

// NewBackend gives t an empty Redis: a fresh redis-server, or in cluster
// mode a cluster of the binary's that no other test holds, flushed, until t
// ends. It fails the test (never skips it) when Redis is not installed.
func NewBackend(t testing.TB) *Backend {
	t.Helper()
	if !ClusterMode() {
		return SingleBackend(t, Start(t))
	}
	c := lendCluster(t)
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs(), ClusterStateReloadInterval: time.Second})
	t.Cleanup(func() { cc.Close() })
	err := cc.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		return m.FlushAll(ctx).Err()
	})
	if err != nil {
		t.Fatalf("flush the cluster lent to the test: %v", err)
	}
	return &Backend{t: t, Cluster: c, client: cc}
}

// ClusterBackend is the Backend of a cluster the test started itself.
func ClusterBackend(t testing.TB, c *Cluster) *Backend {
	return &Backend{t: t, Cluster: c, client: c.Client()}
}

// SingleBackend is the Backend of a redis-server the test started itself.
func SingleBackend(t testing.TB, r *Redis) *Backend {
	return &Backend{t: t, Single: r, client: r.Client()}
}

// Client is a client of the backend (a *redis.ClusterClient on a cluster).
func (b *Backend) Client() redis.UniversalClient { return b.client }

// Env is what a server process needs to use the backend: REDIS_URL and
// MICROBLOG_REDIS_CLUSTER.
func (b *Backend) Env() []string {
	if b.Cluster != nil {
		return []string{"REDIS_URL=" + b.Cluster.URL(), "MICROBLOG_REDIS_CLUSTER=true"}
	}
	return []string{"REDIS_URL=" + b.Single.URL(), "MICROBLOG_REDIS_CLUSTER=false"}
}

// The clusters of one binary in cluster mode, each lent to one test at a
// time: as many as the tests that run at once (go test's -parallel), so that
// parallel tests need not take turns, as they did on one shared cluster
// (a third of the server suite's time there). Their servers live in folders
// of their own, not a test's, and Main stops them.
var clusters struct {
	mu   sync.Mutex
	all  []*Cluster
	idle []*Cluster
}

// lendCluster lends t an idle cluster, starting one if none is, until t
// ends.
func lendCluster(t testing.TB) *Cluster {
	t.Helper()
	clusters.mu.Lock()
	var c *Cluster
	if n := len(clusters.idle); n > 0 {
		c, clusters.idle = clusters.idle[n-1], clusters.idle[:n-1]
	}
	clusters.mu.Unlock()
	if c == nil {
		var err error
		if c, err = launchCluster(); err != nil {
			t.Fatal(err)
		}
		clusters.mu.Lock()
		clusters.all = append(clusters.all, c)
		clusters.mu.Unlock()
	}
	t.Cleanup(func() {
		clusters.mu.Lock()
		clusters.idle = append(clusters.idle, c)
		clusters.mu.Unlock()
	})
	return c
}

// launchCluster starts a cluster that no test owns.
func launchCluster() (*Cluster, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("redis-server is not installed (apt-get install redis-server, or run make test, which installs it): %w", err)
	}
	c := &Cluster{}
	for range 3 {
		dir, err := os.MkdirTemp("", "redis-cluster-")
		if err != nil {
			return nil, err
		}
		r := &Redis{Dir: dir, args: clusterArgs}
		c.Masters = append(c.Masters, r)
		if err := r.launchOnFreePorts(); err != nil {
			c.stop()
			return nil, err
		}
	}
	if err := c.join(); err != nil {
		c.stop()
		return nil, err
	}
	if err := c.wait(); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// stop kills the servers of a cluster no test owns and removes their folders.
func (c *Cluster) stop() {
	for _, m := range c.Masters {
		m.Stop()
		os.RemoveAll(m.Dir)
	}
}

// Main runs the tests of m, then stops the binary's clusters, if any, runs
// cleanups, and exits. Packages whose tests use NewBackend call it from
// TestMain:
//
//	func TestMain(m *testing.M) { storetest.Main(m) }
func Main(m *testing.M, cleanups ...func()) {
	code := m.Run()
	for _, c := range clusters.all {
		c.stop()
	}
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}
