package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCluster: the cluster starts whole, spreads keys over its masters, and
// a restarted master rejoins with its data.
func TestCluster(t *testing.T) {
	c := StartCluster(t)
	cc := c.Client()
	ctx := context.Background()
	for i := range 100 {
		if err := cc.Set(ctx, fmt.Sprint("k", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range c.Masters {
		if n := m.Client().DBSize(ctx).Val(); n == 0 || n == 100 {
			t.Fatalf("master %s holds %d of 100 keys: not spread", m.Addr(), n)
		}
	}
	c.Restart(1)
	for i := range 100 {
		if v, err := cc.Get(ctx, fmt.Sprint("k", i)).Int(); err != nil || v != i {
			t.Fatalf("k%d after a restart = %d, %v", i, v, err)
		}
	}
}

// TestReplicatedClusterFailsOver: with a replica each, a master killed with
// SIGKILL is replaced by its replica, which has the data written (and
// replicated, WAIT) before the kill, and the cluster serves every key again.
func TestReplicatedClusterFailsOver(t *testing.T) {
	c := StartReplicatedCluster(t)
	cc := c.Client()
	ctx := context.Background()
	for i := range 100 {
		if err := cc.Set(ctx, fmt.Sprint("k", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range c.Masters {
		if n, err := m.Client().Wait(ctx, 1, 0).Result(); err != nil || n != 1 {
			t.Fatalf("WAIT on %s: %d replicas, %v", m.Addr(), n, err)
		}
	}
	dead := c.Masters[0].Addr()
	c.Fail(0)
	took := c.FailedOver(0)
	t.Logf("failover took %v", took)
	if c.Masters[0].Addr() == dead || c.Replicas[0] != nil || len(c.Failed) != 1 {
		t.Fatalf("after the failover: masters %v, replicas %v, failed %v", c.Masters, c.Replicas, c.Failed)
	}
	for i := range 100 {
		if v, err := cc.Get(ctx, fmt.Sprint("k", i)).Int(); err != nil || v != i {
			t.Fatalf("k%d after the failover = %d, %v", i, v, err)
		}
	}
}

// TestRejoinedMasterRedirectsScriptedPublish: a master killed, failed over
// and started again is a replica at once, but a client's map of the slots
// can still name it the master (go-redis may have read the map from it
// while it started). A plain SPUBLISH sent to it is taken (a replica serves
// its shard's channels) and heard only by its own subscribers, none: the
// chaos run lost live posts that way. The same publish inside a script is
// redirected to the new master (MOVED), which go-redis follows: the store
// publishes on a cluster through spublish.lua for that.
func TestRejoinedMasterRedirectsScriptedPublish(t *testing.T) {
	c := StartReplicatedCluster(t)
	ctx := context.Background()
	old := c.Masters[0]
	channel := channelOn(t, old)
	c.Fail(0)
	c.FailedOver(0)
	old.Restart()
	rdb := old.Client()
	n, err := rdb.SPublish(ctx, channel, "heard by no one").Result()
	t.Logf("plain SPUBLISH %s to the restarted master: %d receivers, err %v", channel, n, err)
	err = rdb.Eval(ctx, "return redis.call('spublish', KEYS[1], ARGV[1])", []string{channel}, "redirected").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Fatalf("a scripted SPUBLISH to the restarted master answered %v, want MOVED to the new one", err)
	}
	t.Logf("scripted: %v", err)
}

// channelOn finds a channel name in the slots master r serves.
func channelOn(t *testing.T, r *Redis) string {
	t.Helper()
	ctx := context.Background()
	rdb := r.Client()
	for i := range 100000 {
		ch := fmt.Sprint("live:", i)
		// A key of the slot answers here, or MOVED elsewhere.
		if err := rdb.Get(ctx, ch).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED") {
			return ch
		}
	}
	t.Fatal("no channel found on the master's slots")
	return ""
}
