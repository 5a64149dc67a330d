package runner

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/schema"
)

// The checker's pass over private messages, after the posts' (checker.go),
// under the same lock. On one Redis a message is written in one
// transaction; on a cluster its hash goes first and its two sides after,
// so a process that stops in between leaves a hash no conversation holds.
// The pass walks the ids issued since its checkpoint (repair:messages:
// checkpoint) up to global:messageid, as the posts' pass does, and
// finishes such a message as SendDM would have (both sides, its
// images, its archive entry, its live events), or removes it when a retry
// holds its Idempotency-Key by now.

// checkDMRange checks the private messages lo to hi in order (see
// chunkCheck).
func (c *Checker) checkDMRange(ctx context.Context, lo, hi, floor int64) (chunkResult, error) {
	s := c.s
	n := int(hi - lo + 1)
	hashes := make([]*redis.MapStringStringCmd, n)
	_, err := c.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i := range n {
			hashes[i] = pl.HGetAll(ctx, c.keys.DM(lo+int64(i)))
		}
		return nil
	})
	r := chunkResult{settled: lo - 1}
	if err != nil {
		r.stop = true
		return r, s.Wrap("repair messages: read", err)
	}
	young := s.Now() - c.opt.Grace.Milliseconds()
	for i, h := range hashes {
		pmid, v := lo+int64(i), h.Val()
		if v["sender"] == "" {
			if pmid <= floor {
				r.settled = pmid
			}
			continue // never written (or not yet), or archived away
		}
		if v[schema.FieldDeleted] == "1" { // its sender deleted it: done with
			r.settled = pmid
			continue
		}
		if parseID(v["time"]) > young {
			r.stop = true
			return r, nil
		}
		kind, err := c.s.FinishDM(ctx, pmid, v)
		if err != nil {
			r.stop = true
			return r, err
		}
		if kind != "" {
			c.repaired(kind)
			r.mended++
		}
		r.settled = pmid
	}
	return r, nil
}
