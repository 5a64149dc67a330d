package redisdb

import (
	"context"
	"microblog/store/redisdb/internal/reqpath"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// migrateChunk is how many keys (or members) one round of a migration reads.
const migrateChunk = 200

// migrateArchivedLikes (schema 7) moves out of Redis what the messages
// archived by older versions left there (runner/archiver_evict.go moves it now):
// the likes:<mid> set of each message whose hash is gone and that the
// archive holds goes, once the archive has exactly its likes (the set is
// what readers counted until now), and with it its likers' entries of the
// message; and each T: set lets go of those posts (the archive's topic rows
// hold them, saved with them or backfilled, migration 006). A message
// deleted meanwhile is not in the archive's likes' way: its rows stay as a
// tombstone's. Without an archive nothing ever left Redis.
func (s *Store) migrateArchivedLikes(ctx context.Context) error {
	if s.opt.Archive == nil {
		return nil
	}
	sets, err := s.keysMatching(ctx, s.keys.Prefix()+"likes:*")
	if err != nil {
		return s.Wrap("migrate archived likes", err)
	}
	for chunk := range slices.Chunk(sets, migrateChunk) {
		if err := s.migrateLikesSets(ctx, chunk); err != nil {
			return err
		}
	}
	topics, err := s.keysMatching(ctx, s.keys.Prefix()+"T:*")
	if err != nil {
		return s.Wrap("migrate archived topics", err)
	}
	for _, key := range topics {
		if err := s.migrateTopic(ctx, key); err != nil {
			return err
		}
	}
	return nil
}

// likesKeyMID is the message id of a likes:<mid> key, 0 if none.
func (s *Store) likesKeyMID(key string) int64 {
	return parseID(strings.Trim(strings.TrimPrefix(key, s.keys.Prefix()+"likes:"), "{}"))
}

// migrateLikesSets moves out of Redis those of the likes sets keys whose
// message is archived and out of Redis.
func (s *Store) migrateLikesSets(ctx context.Context, keys []string) error {
	mids := make([]int64, len(keys))
	for i, key := range keys {
		mids[i] = s.likesKeyMID(key)
	}
	cold, err := s.archivedOut(ctx, mids)
	if err != nil || len(cold) == 0 {
		return err
	}
	sets := make(map[int64]*redis.ZSliceCmd, len(cold))
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, mid := range cold {
			sets[mid] = pl.ZRangeWithScores(ctx, s.keys.Likes(mid), 0, -1)
		}
		return nil
	})
	if err != nil {
		return s.Wrap("migrate archived likes", err)
	}
	archived, err := s.opt.Archive.Likers(ctx, cold)
	if err != nil {
		return s.Wrap("migrate archived likes", err)
	}
	var likes, unlikes []store.ArchivedLike
	for _, mid := range cold {
		var inRedis []int64
		for _, z := range sets[mid].Val() {
			uid := parseID(z.Member.(string))
			inRedis = append(inRedis, uid)
			if !slices.Contains(archived[mid], uid) {
				likes = append(likes, store.ArchivedLike{MID: mid, UID: uid, At: int64(z.Score)})
			}
		}
		for _, uid := range archived[mid] {
			if !slices.Contains(inRedis, uid) {
				unlikes = append(unlikes, store.ArchivedLike{MID: mid, UID: uid})
			}
		}
	}
	if err := s.opt.Archive.SaveLikes(ctx, likes, unlikes); err != nil {
		return s.Wrap("migrate archived likes", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, mid := range cold {
			pl.Del(ctx, s.keys.Likes(mid))
			for _, z := range sets[mid].Val() {
				pl.ZRem(ctx, s.keys.UserLikes(parseID(z.Member.(string))), mid)
			}
		}
		return nil
	})
	return s.Wrap("migrate archived likes", err)
}

// migrateTopic takes out of the T: set key the posts archived and out of
// Redis.
func (s *Store) migrateTopic(ctx context.Context, key string) error {
	members, err := s.rdb.ZRange(ctx, key, 0, -1).Result()
	if err != nil {
		return s.Wrap("migrate archived topics", err)
	}
	for chunk := range slices.Chunk(schema.ParseIDs(members), migrateChunk) {
		cold, err := s.archivedOut(ctx, chunk)
		if err != nil {
			return err
		}
		if len(cold) > 0 {
			if err := s.rdb.ZRem(ctx, key, anyIDs(cold)...).Err(); err != nil {
				return s.Wrap("migrate archived topics", err)
			}
		}
	}
	return nil
}

// archivedOut are those of mids whose hash is out of Redis and that the
// archive holds.
func (s *Store) archivedOut(ctx context.Context, mids []int64) ([]int64, error) {
	exists := make([]*redis.IntCmd, len(mids))
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			exists[i] = pl.Exists(ctx, s.keys.Post(mid))
		}
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.Wrap("migrate archived", err)
	}
	var out []int64
	for i, mid := range mids {
		if mid > 0 && exists[i].Val() == 0 {
			out = append(out, mid)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	out, err = s.opt.Archive.Has(ctx, out)
	return out, s.Wrap("migrate archived", err)
}

// anyIDs are ids as members of a command.
func anyIDs(ids []int64) []any {
	out := make([]any, len(ids))
	for i, v := range ids {
		out[i] = v
	}
	return out
}
