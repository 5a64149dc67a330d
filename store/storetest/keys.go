package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Keys is every key of rdb that matches pattern, on every master of a
// cluster, sorted: what a test reads to see what was written. It sends
// KEYS, which a test's small Redis answers at once, in one snapshot per
// master. It fails t if Redis does not answer.
func Keys(t testing.TB, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	var mu sync.Mutex
	var keys []string
	list := func(ctx context.Context, c *redis.Client) error {
		ks, err := c.Keys(ctx, pattern).Result()
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, ks...)
		return err
	}
	ctx := context.Background()
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, list)
	case *redis.Client:
		err = list(ctx, c)
	default:
		t.Fatalf("list keys: unsupported client %T", rdb)
	}
	if err != nil {
		t.Fatalf("list keys %q: %v", pattern, err)
	}
	slices.Sort(keys)
	return keys
}
