package redisdb

import (
	"context"
	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// backfill is the job that ends a drain (modes.go): it pushes the posts
// author wrote while pulled (its F set after pull_from, within the hot
// window) into its fans' home timelines, then, under the author's mode lock
// and only if the drain is still the one the job was queued for (its
// token), sets the mode back to push, and only then takes the author out of
// global:celebrities. A job that finds its drain gone (ended by another run
// of the job, or replaced: promoted again, perhaps demoted again since)
// does nothing, so a job taken over while still running, or queued twice,
// never ends a later drain. Every step is idempotent: a job that fails is
// retried whole.
//
// A post that read "pull" when claimed but wrote F only after this read F is
// not missed: its index pipeline reads the mode again after writing F, sees
// "drain" (or push) and pushes itself.
func (f *FanOut) backfill(ctx context.Context, j schema.Job, alive func()) error {
	mode, err := f.s.rdb.HMGet(ctx, f.s.keys.User(j.Author), schema.FieldFanOut, schema.FieldPullFrom, schema.FieldDrain).Result()
	if err != nil {
		return f.s.wrap("backfill", err)
	}
	m, _ := mode[0].(string)
	if drain, _ := mode[2].(string); m != modeDrain || drain != j.Drain {
		return f.s.reconsider(ctx, j.Author) // not its drain: its count may still call for a change
	}
	from, _ := mode[1].(string)
	if from == "" {
		from = "0"
	}
	ids, err := f.s.rdb.ZRevRangeByScore(ctx, f.s.keys.UserPosts(j.Author), &redis.ZRangeBy{
		Min: "(" + from, Max: "+inf", Count: int64(f.s.opt.HotWindow)}).Result()
	if err != nil {
		return f.s.wrap("backfill", err)
	}
	if mids := parseIDs(ids); len(mids) > 0 {
		// Into every fan's, away or not: a fan that comes back pulls only
		// what is newer than its lastpull mark, and these may be older.
		if err := f.pushIDs(ctx, j.Author, mids, 0, alive); err != nil {
			return err
		}
	}
	err = f.s.withModeLock(ctx, j.Author, func(ctx context.Context, lk modeLock) error {
		ended, err := f.s.setMode(ctx, lk, j.Author, modeDrain, j.Drain, schema.FieldFanOut, "", schema.FieldDrain, "", schema.FieldDrainJob, "")
		if err != nil || !ended {
			return err // not its drain any more: it stays as it is
		}
		_, err = f.s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			f.s.removeCelebrity(ctx, pl, j.Author)
			return nil
		})
		return err
	})
	if err != nil {
		return f.s.wrap("backfill", err)
	}
	return f.s.reconsider(ctx, j.Author)
}
