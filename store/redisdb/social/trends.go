package social

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// Trends are the topics the most people used lately (CONTRACT.md §10).
//
// Time is cut in buckets of a 24th of the window (an hour of the default
// 24 h, a second at least), each named by its first second. For each bucket,
// trend:<tag>:<bucket> counts each user's posts that carried the topic, and
// trends:<bucket> each topic's posts. A post counts in the bucket of its
// creation; its delete, or an edit that drops the topic, takes it out of
// the same bucket, and an edit that adds one counts it there. Each key
// expires once its bucket has left the window, so Redis holds, per bucket,
// one entry per topic and one per topic and user: bounded by the window.
//
// Trends unites the buckets of the window (the window and, at its far end,
// up to one bucket more): the topics by posts, whose most posted are the
// candidates, and then their users. Users whose posts the public does not
// see (protected or suspended accounts) do not count; that is read when
// trends are worked out, so a change of account shows at once.
const (
	// trendBuckets is how many buckets the window is cut into.
	trendBuckets = 24
	// trendCandidates is how many of the most posted topics are counted by
	// people: a topic many people use is among the most posted.
	trendCandidates = 50
)

// trendBucketLen is the length of a bucket, in milliseconds.
func (s *Social) trendBucketLen() int64 {
	return max(s.opt.TrendsWindow/trendBuckets, time.Second).Truncate(time.Second).Milliseconds()
}

// trendBucket is the bucket of ms (unix ms): its first second.
func (s *Social) trendBucket(ms int64) int64 {
	l := s.trendBucketLen()
	return ms / l * l / 1000
}

// queueTrends counts (delta 1) or takes out (-1) the topics (by name or
// key) of a post that author wrote at created (unix ms), unless its bucket
// has left the window.
func (s *Social) queueTrends(ctx context.Context, pl redis.Pipeliner, tags []string, author, created int64, delta float64) {
	b := s.trendBucket(created)
	expire := time.UnixMilli(b*1000 + s.trendBucketLen() + s.opt.TrendsWindow.Milliseconds())
	if len(tags) == 0 || !expire.After(s.opt.Now()) {
		return
	}
	for _, tag := range tags {
		key := store.TagKey(tag)
		for _, kv := range [][2]string{{s.keys.Trend(key, b), id(author)}, {s.keys.TrendTags(b), key}} {
			pl.ZIncrBy(ctx, kv[0], delta, kv[1])
			if delta < 0 {
				pl.ZRemRangeByScore(ctx, kv[0], "-inf", "0")
			}
			pl.ExpireAt(ctx, kv[0], expire)
		}
	}
}

// Trends are the topics the most people used in the window, with how many
// posts and people, most people first (then most posts, then by name), at
// most store.MaxTrends.
func (s *Social) Trends(ctx context.Context) ([]store.Trend, error) {
	if s.opt.TrendsRefresh > 0 {
		raw, err := s.rdb.Get(ctx, s.keys.TrendsCache()).Bytes()
		var ts []store.Trend
		if err == nil && json.Unmarshal(raw, &ts) == nil {
			return ts, nil
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, s.core.Wrap("read trends", err)
		}
	}
	ts, err := s.trends(ctx)
	if err != nil {
		return nil, err
	}
	if s.opt.TrendsRefresh > 0 {
		raw, _ := json.Marshal(ts)
		if err := s.rdb.Set(ctx, s.keys.TrendsCache(), raw, s.opt.TrendsRefresh).Err(); err != nil {
			s.opt.Logger.WarnContext(ctx, "keep trends", "err", err)
		}
	}
	return ts, nil
}

// trends works the trends out.
func (s *Social) trends(ctx context.Context) ([]store.Trend, error) {
	now := s.core.Now()
	var buckets []int64
	for b := s.trendBucket(now - s.opt.TrendsWindow.Milliseconds()); b <= s.trendBucket(now); b += s.trendBucketLen() / 1000 {
		buckets = append(buckets, b)
	}
	tagKeys := make([]string, len(buckets))
	for i, b := range buckets {
		tagKeys[i] = s.keys.TrendTags(b)
	}
	tags, err := s.rdb.ZUnionWithScores(ctx, redis.ZStore{Keys: tagKeys}).Result()
	if err != nil {
		return nil, s.core.Wrap("read trends", err)
	}
	slices.SortFunc(tags, func(a, b redis.Z) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Member.(string), b.Member.(string)))
	})
	tags = tags[:min(len(tags), trendCandidates)]
	users := make([]*redis.ZSliceCmd, len(tags))
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, t := range tags {
			keys := make([]string, len(buckets))
			for j, b := range buckets {
				keys[j] = s.keys.Trend(t.Member.(string), b)
			}
			users[i] = pl.ZUnionWithScores(ctx, redis.ZStore{Keys: keys})
		}
		return nil
	})
	if err != nil {
		return nil, s.core.Wrap("read trends", err)
	}
	var uids []int64
	for _, u := range users {
		for _, z := range u.Val() {
			uids = append(uids, parseID(z.Member.(string)))
		}
	}
	slices.Sort(uids)
	cards, err := s.core.Cards(ctx, slices.Compact(uids))
	if err != nil {
		return nil, err
	}
	ts := make([]store.Trend, 0, len(tags))
	for i, t := range tags {
		tr := store.Trend{Tag: t.Member.(string)}
		for _, z := range users[i].Val() {
			if c := cards[parseID(z.Member.(string))]; !c.Protected && !c.Suspended && z.Score > 0 {
				tr.People++
				tr.Posts += int64(z.Score)
			}
		}
		if tr.People > 0 {
			ts = append(ts, tr)
		}
	}
	slices.SortFunc(ts, func(a, b store.Trend) int {
		return cmp.Or(cmp.Compare(b.People, a.People), cmp.Compare(b.Posts, a.Posts), cmp.Compare(a.Tag, b.Tag))
	})
	return ts[:min(len(ts), store.MaxTrends)], nil
}
