package storetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of three masters, with no replicas or one
// each (StartReplicatedCluster), started for a test: each node a
// redis-server on a free loopback port in a temporary folder of its own,
// joined with redis-cli --cluster create.
type Cluster struct {
	t       testing.TB
	Masters []*Redis
	// Replicas are the replicas, Replicas[i] that of Masters[i]; none
	// unless StartReplicatedCluster started the cluster.
	Replicas []*Redis
	// Failed are the masters killed by Fail, which their replicas replaced.
	Failed []*Redis
}

// clusterArgs are the redis-server arguments of a cluster node. A master
// killed by a test loses nothing acknowledged (appendfsync always).
var clusterArgs = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
	"--cluster-node-timeout", "2000", "--appendfsync", "always"}

// StartCluster starts a cluster of 3 masters for t, waits until every node
// says cluster_state:ok, and stops it when t ends. It fails the test (never
// skips it) when redis-server or redis-cli is not installed.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{t: t}
	for range 3 {
		c.Masters = append(c.Masters, StartWith(t, clusterArgs...))
	}
	if err := c.join(); err != nil {
		t.Fatal(err)
	}
	c.waitOK()
	return c
}

// join makes the masters one cluster, each serving a third of the slots.
func (c *Cluster) join() error {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		return fmt.Errorf("redis-cli is not installed (apt-get install redis-server, or run make test, which installs it): %w", err)
	}
	args := []string{"--cluster", "create"}
	for _, m := range c.Masters {
		args = append(args, m.Addr())
	}
	for _, r := range c.Replicas {
		args = append(args, r.Addr())
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(len(c.Replicas)/len(c.Masters)), "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	return nil
}

// URL is the cluster in go-redis's cluster URL form, the first master's
// address in the host and the others as addr parameters.
func (c *Cluster) URL() string {
	addrs := c.addrs()
	u := "redis://" + addrs[0]
	for i, a := range addrs[1:] {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += sep + "addr=" + a
	}
	return u
}

// Client returns a new cluster client, closed when the test ends.
func (c *Cluster) Client() *redis.ClusterClient {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs(), ClusterStateReloadInterval: time.Second})
	c.t.Cleanup(func() { cc.Close() })
	return cc
}

// Restart stops master i and starts it again on the same port and data; it
// rejoins the cluster from its nodes.conf, and Restart waits until the
// cluster is whole again.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	c.Masters[i].Restart()
	c.waitOK()
}

// waitOK waits until every master reports cluster_state:ok and knows all
// three masters.
func (c *Cluster) waitOK() {
	c.t.Helper()
	if err := c.wait(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *Cluster) wait() error {
	deadline := time.Now().Add(30 * time.Second)
	for _, m := range c.Masters {
		cl := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1})
		for {
			info, err := cl.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(c.known())) {
				break
			}
			if time.Now().After(deadline) {
				log, _ := os.ReadFile(filepath.Join(m.Dir, "redis.log"))
				cl.Close()
				return fmt.Errorf("cluster node %s is not ok: %v\n%s\n%s", m.Addr(), err, info, log)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cl.Close()
	}
	return nil
}

// known is how many nodes each node knows: the failed ones too.
func (c *Cluster) known() int {
	n := len(c.Masters) + len(c.Failed)
	for _, r := range c.Replicas {
		if r != nil {
			n++
		}
	}
	return n
}

// addrs are the addresses of the nodes that run, masters first.
func (c *Cluster) addrs() []string {
	var addrs []string
	for _, m := range append(slices.Clip(c.Masters), c.Replicas...) {
		if m != nil {
			addrs = append(addrs, m.Addr())
		}
	}
	return addrs
}

// String describes the cluster for logs.
func (c *Cluster) String() string {
	return fmt.Sprintf("redis cluster %s", strings.Join(c.addrs(), ","))
}
