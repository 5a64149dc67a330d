package storetest

import (
	"context"
	"fmt"
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
