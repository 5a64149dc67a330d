package runner

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// addToHomes adds posts[i] to the home timeline of uids[i] and trims it to
// the hot window, in one pipeline (on a cluster, one a master, side by
// side), and counts the pushes.
//
// A script doing the same for a batch of fans (one call instead of two
// commands a fan) was measured and left out: it halved the server's CPU
// per push but added about a microsecond of Redis's, whose single thread
// is the fan-out's limit (docs/performance.md), and it could not serve a
// cluster, where each fan's G set is on a slot of its own.
func (f *FanOut) addToHomes(ctx context.Context, uids []int64, posts [][]redis.Z, pushes int) error {
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, zs := range posts {
			if len(zs) > 0 {
				f.s.QueueHomeAdd(ctx, pl, uids[i], zs...)
			}
		}
		return nil
	})
	if err != nil {
		return f.s.Wrap("fan out", err)
	}
	f.opt.Metrics.Pushes.Add(float64(pushes))
	return nil
}
