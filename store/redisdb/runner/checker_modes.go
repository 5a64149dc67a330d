package runner

import (
	"context"
	"errors"

	"microblog/store/redisdb/schema"
)

// checkModes is the checker's pass over the fan-out state of every author in
// global:celebrities (redisdb/timeline_modes.go): it reconsiders each, so that what a change
// of mode cut short left behind is mended even for an author nobody follows
// or unfollows any more: a drain whose backfill job is gone gets another, a
// pushed author left a member leaves, a celebrity whose count fell while
// its demotion failed is demoted. The set holds only the authors pulled or
// draining, and those left there: a few, each a round trip or two.
func (c *Checker) checkModes(ctx context.Context) (int, error) {
	s := c.s
	authors, err := c.rdb.SMembers(ctx, c.keys.Celebrities()).Result()
	if err != nil {
		return 0, s.Wrap("repair: fan-out modes", err)
	}
	n := 0
	var errs []error
	for _, a := range authors {
		made, err := s.Reconsidered(ctx, parseID(a))
		for _, name := range made {
			c.opt.Logger.Warn("repair: fan-out mode", "author", a, "transition", name)
			c.repaired(schema.RepairFanOutMode)
		}
		n += len(made)
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
}
