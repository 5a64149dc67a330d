package runner

import (
	"context"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// backfill is the job that ends a drain (redisdb/timeline_modes.go): it pushes the posts
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
	mode, err := f.rdb.HMGet(ctx, f.keys.User(j.Author), schema.FieldFanOut, schema.FieldPullFrom, schema.FieldDrain).Result()
	if err != nil {
		return f.s.Wrap("backfill", err)
	}
	m, _ := mode[0].(string)
	if drain, _ := mode[2].(string); m != schema.ModeDrain || drain != j.Drain {
		return f.s.Reconsider(ctx, j.Author) // not its drain: its count may still call for a change
	}
	from, _ := mode[1].(string)
	if from == "" {
		from = "0"
	}
	ids, err := f.rdb.ZRevRangeByScore(ctx, f.keys.UserPosts(j.Author), &redis.ZRangeBy{
		Min: "(" + from, Max: "+inf", Count: int64(f.s.HotWindow())}).Result()
	if err != nil {
		return f.s.Wrap("backfill", err)
	}
	if mids := schema.ParseIDs(ids); len(mids) > 0 {
		// Into every fan's, away or not: a fan that comes back pulls only
		// what is newer than its lastpull mark, and these may be older.
		if err := f.pushIDs(ctx, j.Author, mids, 0, alive); err != nil {
			return err
		}
	}
	err = f.s.EndDrain(ctx, j.Author, j.Drain)
	if err != nil {
		return f.s.Wrap("backfill", err)
	}
	return f.s.Reconsider(ctx, j.Author)
}
