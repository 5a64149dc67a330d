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
