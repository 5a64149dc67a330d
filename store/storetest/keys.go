package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Keys is every key of rdb that matches pattern, on every master of a
// cluster, sorted: what a test reads to see what was written. It fails t if
// Redis does not answer.
func Keys(t testing.TB, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	var mu sync.Mutex
	var keys []string
	scan := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			keys = append(keys, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	ctx := context.Background()
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, scan)
	case *redis.Client:
		err = scan(ctx, c)
	default:
		t.Fatalf("list keys: unsupported client %T", rdb)
	}
	if err != nil {
		t.Fatalf("list keys %q: %v", pattern, err)
	}
	slices.Sort(keys)
	return keys
}
