package storetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// StartReplicatedCluster starts a cluster of 3 masters with one replica
// each for t, as production runs one: when a master dies, its replica
// takes over its slots by Redis Cluster's own failover (no Sentinel). It
// waits until every node says cluster_state:ok and every master has its
// replica in sync, and stops the nodes when t ends.
func StartReplicatedCluster(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{t: t}
	for range 3 {
		c.Masters = append(c.Masters, StartWith(t, clusterArgs...))
	}
	for range 3 {
		c.Replicas = append(c.Replicas, StartWith(t, clusterArgs...))
	}
	if err := c.join(); err != nil {
		t.Fatal(err)
	}
	c.waitOK()
	c.sortRoles()
	c.waitReplicasInSync()
	return c
}

// sortRoles orders Replicas so that Replicas[i] is the replica of
// Masters[i], whatever pairs redis-cli made.
func (c *Cluster) sortRoles() {
	c.t.Helper()
	sorted := make([]*Redis, len(c.Masters))
	for _, r := range c.Replicas {
		role, err := r.Client().Do(context.Background(), "ROLE").Slice()
		if err != nil {
			c.t.Fatal(err)
		}
		if role[0] != "slave" {
			c.t.Fatalf("node %s is a %v, want a replica: redis-cli paired the nodes otherwise", r.Addr(), role[0])
		}
		masterAddr := fmt.Sprintf("%v:%v", role[1], role[2])
		for i, m := range c.Masters {
			if m.Addr() == masterAddr {
				sorted[i] = r
			}
		}
	}
	if slices.Contains(sorted, nil) {
		c.t.Fatalf("not every master has a replica: %v", c)
	}
	c.Replicas = sorted
}

// waitReplicasInSync waits until each master reports its replica online.
func (c *Cluster) waitReplicasInSync() {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, m := range c.Masters {
		waitInSync(c.t, m, deadline)
	}
}

// StartReplica starts a replica of master (a plain redis-server, not a
// cluster node) for t and returns once master reports it in sync.
func StartReplica(t testing.TB, master *Redis) *Redis {
	t.Helper()
	r := StartWith(t, "--replicaof", "127.0.0.1", strconv.Itoa(master.Port))
	waitInSync(t, master, time.Now().Add(time.Minute))
	return r
}

// waitInSync waits until master reports its one replica online.
func waitInSync(t testing.TB, master *Redis, deadline time.Time) {
	t.Helper()
	for {
		info, err := master.Client().Info(context.Background(), "replication").Result()
		if err == nil && strings.Contains(info, "connected_slaves:1") && strings.Contains(info, "state=online") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica of %s is not in sync: %v\n%s", master.Addr(), err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Fail kills master i with SIGKILL, as a machine that dies, and returns at
// once; FailedOver waits for its replica to take over.
func (c *Cluster) Fail(i int) {
	c.t.Helper()
	if len(c.Replicas) <= i || c.Replicas[i] == nil {
		c.t.Fatalf("master %d has no replica to take over (StartReplicatedCluster starts one each)", i)
	}
	c.Masters[i].Stop()
}

// FailedOver waits until the replica of master i, killed by Fail, serves
// its slots and every running node says cluster_state:ok; the replica is
// then Masters[i], without a replica of its own (Replicas[i] is nil), and
// the dead master is in Failed. It returns how long the failover took from the call.
func (c *Cluster) FailedOver(i int) time.Duration {
	c.t.Helper()
	start := time.Now()
	deadline := start.Add(time.Minute)
	r := c.Replicas[i]
	cl := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer cl.Close()
	for {
		role, err := cl.Do(context.Background(), "ROLE").Slice()
		if err == nil && role[0] == "master" {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the replica %s of master %d did not take over within a minute: %v %v", r.Addr(), i, role, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Failed = append(c.Failed, c.Masters[i])
	c.Masters[i] = r
	c.Replicas[i] = nil
	for _, m := range c.Masters {
		mc := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1})
		for {
			info, err := mc.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				mc.Close()
				c.t.Fatalf("node %s is not ok after the failover: %v\n%s", m.Addr(), err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		mc.Close()
	}
	return time.Since(start)
}
