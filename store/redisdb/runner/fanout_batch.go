package runner

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// A worker does the push jobs of one read together, in a fixed number of
// round trips however many there are: one pipeline reads the fans of every
// author among them, one ZMSCORE the last-seen time of every one of those
// fans, one pipeline adds to each active fan's home timeline all the posts
// it gets, one pipeline checks that the posts still exist, and one
// acknowledges the jobs. Authors with more fans than that first read takes
// are walked one at a time, each once for all its posts of the read. A job
// alone costs as many round trips as on the one-job path, and a worker that
// falls behind catches up in bigger batches instead of lagging further.

// doBatch does the jobs one read took. The pushes go first, together
// (pushBatch); then the other jobs, one by one in stream order. So a push
// and a later unpush of the same post end with the post out of every home
// timeline. Pushes, backfills and unpushes of different posts touch
// distinct ids, so taking the pushes ahead of the rest changes at most
// which id at the old end of a full G a trim drops, as two workers running
// side by side may too.
func (f *FanOut) doBatch(ctx context.Context, jobs []schema.Job) {
	h := f.hold(ctx, jobs)
	var pushes, rest []schema.Job
	for _, j := range jobs {
		if j.Op == schema.OpPush {
			pushes = append(pushes, j)
		} else {
			rest = append(rest, j)
		}
	}
	if len(pushes) > 0 {
		split, err := f.pushBatch(ctx, pushes, h)
		if err != nil && ctx.Err() == nil {
			f.opt.Logger.Warn("fan-out: batch of pushes failed, will be retried", "jobs", len(pushes), "err", err)
		}
		rest = append(split, rest...)
	}
	for _, j := range rest {
		if ctx.Err() != nil {
			return // left pending, taken up again after ClaimIdle
		}
		f.doOne(ctx, j, h)
	}
}

// pushBatch does push jobs together and acknowledges them: those of
// authors with fewer than a Batch of fans all at once (pushFew), those of
// each author with more one author at a time (pushByAuthor). It returns the
// jobs of authors with more than PartFans fans, for the one-job path, which
// splits them. On an error every job it would have done stays pending, to
// be retried after ClaimIdle like a failed job alone.
func (f *FanOut) pushBatch(ctx context.Context, jobs []schema.Job, h *holding) (split []schema.Job, err error) {
	authors := make([]int64, len(jobs))
	for i, j := range jobs {
		authors[i] = j.Author
	}
	fans, err := f.fansOf(ctx, authors)
	if err != nil {
		h.release(jobs)
		return nil, err
	}
	var few, many []schema.Job
	for _, j := range jobs {
		if list, ok := fans[j.Author]; ok && len(list) < f.opt.Batch {
			few = append(few, j)
		} else {
			many = append(many, j)
		}
	}
	if len(few) > 0 {
		err = f.pushFew(ctx, few, fans, h)
	}
	if len(many) > 0 {
		var walkErr error
		split, walkErr = f.pushByAuthor(ctx, many, h)
		err = errors.Join(err, walkErr)
	}
	return split, err
}

// pushByAuthor does the push jobs of authors with a Batch of fans or more,
// one author at a time: one walk of an author's fans pushes all its posts
// of the batch, each fan's in one ZADD, where a job alone walks them once a
// post and writes each fan once a post. A worker behind an author who posts
// often so catches up in fewer, bigger writes (Redis's time goes to
// finding each fan's G set, not to the posts added). It returns the jobs of
// authors with more than PartFans fans, which are split, one by one.
func (f *FanOut) pushByAuthor(ctx context.Context, jobs []schema.Job, h *holding) (split []schema.Job, err error) {
	counts := make(map[int64]*redis.IntCmd, 1)
	_, err = f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, j := range jobs {
			if counts[j.Author] == nil {
				counts[j.Author] = pl.ZCard(ctx, f.keys.Fans(j.Author))
			}
		}
		return nil
	})
	if err != nil {
		h.release(jobs)
		return nil, f.s.Wrap("fan out: count fans", err)
	}
	byAuthor := make(map[int64][]schema.Job, len(counts))
	var authors []int64 // in the order of their first job
	for _, j := range jobs {
		switch {
		case counts[j.Author].Val() > PartFans:
			split = append(split, j)
		case byAuthor[j.Author] == nil:
			authors = append(authors, j.Author)
			fallthrough
		default:
			byAuthor[j.Author] = append(byAuthor[j.Author], j)
		}
	}
	for _, a := range authors {
		if ctx.Err() != nil {
			return split, ctx.Err() // the rest left pending, taken up again
		}
		if err := f.pushWalk(ctx, a, byAuthor[a], h); err != nil {
			for _, j := range byAuthor[a] {
				f.failed(ctx, j, err)
			}
		}
	}
	return split, nil
}

// pushWalk pushes the posts of jobs, all by author, into the home timelines
// of all its fans, walking them once, and acknowledges the jobs.
func (f *FanOut) pushWalk(ctx context.Context, author int64, jobs []schema.Job, h *holding) error {
	defer h.release(jobs)
	err := f.walkFans(ctx, author, func(fans []int64) error {
		if err := f.pushToFans(ctx, jobs, map[int64][]int64{author: fans}); err != nil {
			return err
		}
		h.alive()
		return nil
	})
	if err != nil {
		return err
	}
	return f.settlePushes(ctx, jobs, h)
}

// pushFew does push jobs whose authors' fans are all in fans, and
// acknowledges them.
func (f *FanOut) pushFew(ctx context.Context, jobs []schema.Job, fans map[int64][]int64, h *holding) error {
	defer h.release(jobs)
	if err := f.pushToFans(ctx, jobs, fans); err != nil {
		return err
	}
	h.alive()
	return f.settlePushes(ctx, jobs, h)
}

// settlePushes acknowledges push jobs whose pushes are done, once it has
// checked that their posts still exist: a post deleted meanwhile has its
// unpush job, which may have run before the pushes, so a post found gone
// is taken out again here.
func (f *FanOut) settlePushes(ctx context.Context, jobs []schema.Job, h *holding) error {
	mids := make([]int64, len(jobs))
	for i, j := range jobs {
		mids[i] = j.Mid
	}
	gone, err := f.gone(ctx, mids)
	if err != nil {
		return err
	}
	done := make([]schema.Job, 0, len(jobs))
	for i, j := range jobs {
		if gone[i] {
			if err := f.unpush(ctx, j, h.alive); err != nil {
				f.failed(ctx, j, err)
				continue
			}
		}
		done = append(done, j)
	}
	f.ack(ctx, done)
	return nil
}

// fansOf reads the first Batch fans of each of authors, in follow order as
// walkFans does, in one round trip. An author with a whole Batch read may
// have more.
func (f *FanOut) fansOf(ctx context.Context, authors []int64) (map[int64][]int64, error) {
	cmds := make(map[int64]*redis.StringSliceCmd, len(authors))
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, a := range authors {
			if _, ok := cmds[a]; !ok {
				cmds[a] = pl.ZRangeByScore(ctx, f.keys.Fans(a), &redis.ZRangeBy{
					Min: "-inf", Max: "+inf", Count: int64(f.opt.Batch)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, f.s.Wrap("read fans", err)
	}
	out := make(map[int64][]int64, len(cmds))
	for a, c := range cmds {
		out[a] = schema.ParseIDs(c.Val())
	}
	return out, nil
}

// pushToFans pushes the posts of jobs into the home timelines of their
// authors' fans (from fans) that were active when each was written, each
// fan's posts in one ZADD: one ZMSCORE, then one pipeline.
func (f *FanOut) pushToFans(ctx context.Context, jobs []schema.Job, fans map[int64][]int64) error {
	index := map[int64]int{} // a fan's place in uids
	var uids []int64
	for _, j := range jobs {
		for _, fan := range fans[j.Author] {
			if _, ok := index[fan]; !ok {
				index[fan] = len(uids)
				uids = append(uids, fan)
			}
		}
	}
	if len(uids) == 0 {
		return nil
	}
	seen, muters, err := f.lastSeen(ctx, uids, jobs)
	if err != nil {
		return err
	}
	// The fans that get each post: those active when it was written that
	// do not mute its author (the others' home timelines are rebuilt by
	// pulling when they come back, or would hide it).
	gets := func(j schema.Job, cutoff float64, fan int64, i int) bool {
		return (seen[i] == 0 || seen[i] >= cutoff) && !muters[j.Author][fan]
	}
	// Counted first, so that all the pushes share one array, and each
	// post's member boxed once for all its fans: a batch of 50 posts to 10
	// fans allocated about 60 slices and 500 members, now 1 and 50.
	counts := make([]int, len(uids))
	pushed := 0
	for _, j := range jobs {
		cutoff := f.activeSince(j.At)
		for _, fan := range fans[j.Author] {
			if i := index[fan]; gets(j, cutoff, fan, i) {
				counts[i]++
				pushed++
			}
		}
	}
	all := make([]redis.Z, pushed)
	posts := make([][]redis.Z, len(uids))
	for i, off := 0, 0; i < len(uids); i++ {
		posts[i] = all[off : off : off+counts[i]]
		off += counts[i]
	}
	for _, j := range jobs {
		cutoff := f.activeSince(j.At)
		z := redis.Z{Score: float64(j.Mid), Member: j.Mid}
		for _, fan := range fans[j.Author] {
			if i := index[fan]; gets(j, cutoff, fan, i) {
				posts[i] = append(posts[i], z)
			}
		}
	}
	return f.addToHomes(ctx, uids, posts, pushed)
}

// lastSeen is when each of uids was last seen (unix ms; 0: never), and who
// mutes each author of jobs, in one round trip.
func (f *FanOut) lastSeen(ctx context.Context, uids []int64, jobs []schema.Job) ([]float64, map[int64]map[int64]bool, error) {
	members := make([]string, len(uids))
	for i, u := range uids {
		members[i] = id(u)
	}
	var seen *redis.FloatSliceCmd
	muted := make(map[int64]*redis.StringSliceCmd, 1)
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		seen = pl.ZMScore(ctx, f.keys.LastSeen(), members...)
		for _, j := range jobs {
			if muted[j.Author] == nil {
				muted[j.Author] = pl.SMembers(ctx, f.keys.MutedBy(j.Author))
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, f.s.Wrap("fan out: last seen", err)
	}
	muters := make(map[int64]map[int64]bool, len(muted))
	for a, c := range muted {
		muters[a] = schema.IDSet(c.Val())
	}
	return seen.Val(), muters, nil
}

// gone tells for each of mids whether the message is gone, as a nil of
// loadPosts does: deleted (a tombstone in Redis), or neither in Redis
// nor in the archive (or a delete there). An archived message is not gone.
// It reads two fields of each hash, not the whole message, in one round
// trip, and asks the archive only about the messages no longer in Redis.
func (f *FanOut) gone(ctx context.Context, mids []int64) ([]bool, error) {
	cmds := make([]*redis.SliceCmd, len(mids))
	piped, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			cmds[i] = pl.HMGet(ctx, f.keys.Post(mid), "kind", schema.FieldDeleted)
		}
		return nil
	})
	if err := reqpath.PipeErr(piped, err); err != nil {
		return nil, f.s.Wrap("fan out: check posts", err)
	}
	out := make([]bool, len(mids))
	var cold []int // the messages no longer in Redis, to look for in the archive
	for i, c := range cmds {
		v, err := c.Result()
		if err != nil {
			return nil, f.s.Wrap("fan out: check posts", err)
		}
		if kind, _ := v[0].(string); kind != "" {
			continue
		}
		out[i] = true
		if deleted, _ := v[1].(string); deleted == "" && f.s.Archive() != nil {
			cold = append(cold, i)
		}
	}
	if err := f.archivedAfterAll(ctx, mids, cold, out); err != nil {
		return nil, err
	}
	return out, nil
}

// archivedAfterAll asks the archive about the messages mids[i] of cold, no
// longer in Redis, and sets gone[i] back to false for those it holds and
// has not deleted.
func (f *FanOut) archivedAfterAll(ctx context.Context, mids []int64, cold []int, gone []bool) error {
	if len(cold) == 0 {
		return nil
	}
	ask := make([]int64, len(cold))
	for k, i := range cold {
		ask[k] = mids[i]
	}
	rows, err := f.s.Archive().Posts(ctx, ask)
	if err != nil {
		return f.s.Wrap("fan out: check posts: archive", err)
	}
	for _, i := range cold {
		if a, ok := rows[mids[i]]; ok && !a.Deleted {
			gone[i] = false
		}
	}
	return nil
}
