package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// A worker does the push jobs of one read together, in a fixed number of
// round trips however many there are: one pipeline reads the fans of every
// author among them, one ZMSCORE the last-seen time of every one of those
// fans, one pipeline adds to each active fan's home timeline all the posts
// it gets, one pipeline checks that the posts still exist, and one
// acknowledges the jobs. A job alone costs as many round trips as on the
// one-job path, and a worker that falls behind catches up in bigger batches
// instead of lagging further.

// doBatch does the jobs one read took. The pushes go first, together
// (pushBatch); then the other jobs, one by one in stream order. So a push
// and a later unpush of the same post end with the post out of every home
// timeline. Pushes, backfills and unpushes of different posts touch
// distinct ids, so taking the pushes ahead of the rest changes at most
// which id at the old end of a full G a trim drops, as two workers running
// side by side may too.
func (w *worker) doBatch(ctx context.Context, jobs []job) {
	h := w.hold(ctx, jobs)
	var pushes, rest []job
	for _, j := range jobs {
		if j.op == opPush {
			pushes = append(pushes, j)
		} else {
			rest = append(rest, j)
		}
	}
	if len(pushes) > 0 {
		many, err := w.pushBatch(ctx, pushes, h)
		if err != nil && ctx.Err() == nil {
			w.log.Warn("fan-out: batch of pushes failed, will be retried", "jobs", len(pushes), "err", err)
		}
		rest = append(many, rest...)
	}
	for _, j := range rest {
		if ctx.Err() != nil {
			return // left pending, taken up again after ClaimIdle
		}
		w.doOne(ctx, j, h)
	}
}

// pushBatch does push jobs together and acknowledges them, except those of
// authors with fanOutBatch fans or more, which it returns for the one-job
// path (walkFans). On an error every job it would have done stays pending,
// to be retried after ClaimIdle like a failed job alone.
//
// The check that each post still exists comes after the pushes have
// returned, as in push: a post deleted meanwhile has its unpush job, which
// may have run before these pushes, so a post found gone is taken out again
// here.
func (w *worker) pushBatch(ctx context.Context, jobs []job, h *holding) (many []job, err error) {
	authors := make([]int64, 0, len(jobs))
	for _, j := range jobs {
		authors = append(authors, j.author)
	}
	fans, err := w.s.fansOf(ctx, authors)
	if err != nil {
		h.release(jobs)
		return nil, err
	}
	var few []job
	for _, j := range jobs {
		if f, ok := fans[j.author]; ok && len(f) < fanOutBatch {
			few = append(few, j)
		} else {
			many = append(many, j)
		}
	}
	if len(few) == 0 {
		return many, nil
	}
	if err := w.s.pushToFans(ctx, few, fans); err != nil {
		h.release(few)
		return many, err
	}
	h.alive()
	mids := make([]int64, len(few))
	for i, j := range few {
		mids[i] = j.mid
	}
	gone, err := w.s.gone(ctx, mids)
	if err != nil {
		h.release(few)
		return many, err
	}
	done := make([]job, 0, len(few))
	for i, j := range few {
		if gone[i] {
			if err := w.s.unpush(ctx, j, h.alive); err != nil {
				if ctx.Err() == nil {
					w.log.Warn("fan-out: job failed, will be retried", "job", j.id, "op", j.op, "mid", j.mid, "err", err)
				}
				continue
			}
		}
		done = append(done, j)
	}
	h.release(few)
	w.ack(ctx, done)
	return many, nil
}

// fansOf reads the first fanOutBatch fans of each of authors, in follow
// order as walkFans does, in one round trip. An author with fanOutBatch fans
// read may have more.
func (s *Store) fansOf(ctx context.Context, authors []int64) (map[int64][]int64, error) {
	cmds := make(map[int64]*redis.StringSliceCmd, len(authors))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, a := range authors {
			if _, ok := cmds[a]; !ok {
				cmds[a] = pl.ZRangeByScore(ctx, s.keys.Fans(a), &redis.ZRangeBy{
					Min: "-inf", Max: "+inf", Count: fanOutBatch})
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.wrap("read fans", err)
	}
	out := make(map[int64][]int64, len(cmds))
	for a, c := range cmds {
		out[a] = parseIDs(c.Val())
	}
	return out, nil
}

// pushToFans pushes the posts of jobs into the home timelines of their
// authors' fans (from fans) that were active when each was written, each
// fan's posts in one ZADD: one ZMSCORE, then one pipeline.
func (s *Store) pushToFans(ctx context.Context, jobs []job, fans map[int64][]int64) error {
	index := map[int64]int{} // a fan's place in members
	var members []string
	var uids []int64
	for _, j := range jobs {
		for _, f := range fans[j.author] {
			if _, ok := index[f]; !ok {
				index[f] = len(members)
				members = append(members, id(f))
				uids = append(uids, f)
			}
		}
	}
	if len(members) == 0 {
		return nil
	}
	seen, err := s.rdb.ZMScore(ctx, s.keys.LastSeen(), members...).Result()
	if err != nil {
		return s.wrap("fan out: last seen", err)
	}
	posts := make([][]redis.Z, len(members))
	pushed := 0
	for _, j := range jobs {
		cutoff := s.activeSince(j.at)
		for _, f := range fans[j.author] {
			i := index[f]
			if seen[i] != 0 && seen[i] < cutoff {
				continue // away: rebuilt by pulling when it comes back
			}
			posts[i] = append(posts[i], redis.Z{Score: float64(j.mid), Member: j.mid})
			pushed++
		}
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, zs := range posts {
			if len(zs) > 0 {
				s.queueHomeAdd(ctx, pl, uids[i], zs...)
			}
		}
		return nil
	})
	if err != nil {
		return s.wrap("fan out", err)
	}
	s.opt.Metrics.pushes.Add(float64(pushed))
	return nil
}

// gone tells for each of mids whether the message is gone, as a nil of
// loadMessages does: deleted (a tombstone in Redis), or neither in Redis
// nor in the archive (or a delete there). An archived message is not gone.
// It reads two fields of each hash, not the whole message, in one round
// trip, and asks the archive only about the messages no longer in Redis.
func (s *Store) gone(ctx context.Context, mids []int64) ([]bool, error) {
	cmds := make([]*redis.SliceCmd, len(mids))
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.HMGet(ctx, s.keys.Message(mid), "kind", fieldDeleted)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.wrap("fan out: check posts", err)
	}
	out := make([]bool, len(mids))
	var cold []int64 // the messages no longer in Redis, to look for in the archive
	var coldAt []int
	for i, c := range cmds {
		v, err := c.Result()
		if err != nil {
			return nil, s.wrap("fan out: check posts", err)
		}
		if kind, _ := v[0].(string); kind != "" {
			continue
		}
		out[i] = true
		if deleted, _ := v[1].(string); deleted == "" && s.opt.Archive != nil {
			cold, coldAt = append(cold, mids[i]), append(coldAt, i)
		}
	}
	if len(cold) > 0 {
		rows, err := s.opt.Archive.Messages(ctx, cold)
		if err != nil {
			return nil, s.wrap("fan out: check posts: archive", err)
		}
		for k, mid := range cold {
			if a, ok := rows[mid]; ok && !a.Deleted {
				out[coldAt[k]] = false
			}
		}
	}
	return out, nil
}
