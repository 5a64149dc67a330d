package redisdb

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/account"
	"microblog/store/redisdb/schema"
)

// schemaVersion is the data model Migrate brings Redis to: 2 adds the
// username search index and the popularity ranking, 3 the PRECIS forms of
// names and their skeleton index (account/names.go), 4 the likes_count field of
// every liked message's hash and each user's set of liked messages, 5 the
// skeleton of each name as written beside that of its lower-case form, 6
// the readers' record of pulled authors (fanout:pushing, and on a cluster
// the shards of global:celebrities and fanout:pending; timeline_pending.go), 7 the
// likes sets, topic entries and likers' entries of archived messages out
// of Redis (store_migrate_archived.go), 8 the sessions of OAuth grants marked as
// such (migrateOAuthSessions).
const schemaVersion = 8

// Migrate brings data written by older versions of the server up to date:
// it indexes every user's name and follower count. It is idempotent and
// cheap once done (one GET).
func (s *Store) Migrate(ctx context.Context) error {
	v, err := s.rdb.Get(ctx, s.keys.Schema()).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.Wrap("migrate", err)
	}
	if v >= schemaVersion {
		return nil
	}
	indexes, err := s.keysMatching(ctx, s.keys.UsernameIndex("*"))
	if err != nil {
		return s.Wrap("migrate", err)
	}
	for _, key := range indexes {
		lower := s.keys.NameOfUsernameIndex(key)
		uid, err := s.rdb.Get(ctx, key).Int64()
		if err != nil {
			continue
		}
		fans, err := s.rdb.ZCard(ctx, s.keys.Fans(uid)).Result()
		if err != nil {
			return s.Wrap("migrate", err)
		}
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			s.indexUser(ctx, pl, uid, lower)
			pl.ZAdd(ctx, s.keys.Popular(), redis.Z{Score: float64(fans), Member: uid})
			return nil
		})
		if err != nil {
			return s.Wrap("migrate", err)
		}
	}
	if err := account.MigrateNames(ctx, s.Accounts); err != nil {
		return err
	}
	if err := s.migrateLikes(ctx); err != nil {
		return err
	}
	if err := s.migratePulls(ctx); err != nil {
		return err
	}
	if err := s.migrateArchivedLikes(ctx); err != nil {
		return err
	}
	if err := account.MigrateOAuthSessions(ctx, s.Accounts); err != nil {
		return err
	}
	return s.Wrap("migrate", s.rdb.Set(ctx, s.keys.Schema(), schemaVersion, 0).Err())
}

// migrateLikes gives the hash of every liked message its likes_count (a
// message never liked has none, which reads as 0), and every user who likes
// messages the set of them.
func (s *Store) migrateLikes(ctx context.Context) error {
	sets, err := s.keysMatching(ctx, s.keys.Prefix()+"likes:*")
	if err != nil {
		return s.Wrap("migrate likes", err)
	}
	for _, key := range sets {
		mid := s.likesKeyMID(key)
		if mid == 0 {
			continue
		}
		likers, err := s.rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			return s.Wrap("migrate likes", err)
		}
		cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			schema.CountSync.Eval(ctx, pl, []string{s.keys.Post(mid), key}, schema.FieldLikes)
			for _, z := range likers {
				uid, _ := z.Member.(string)
				pl.ZAddNX(ctx, s.keys.UserLikes(parseID(uid)), redis.Z{Score: z.Score, Member: mid})
			}
			return nil
		})
		if err := reqpath.PipeErr(cmds, err); err != nil {
			return s.Wrap("migrate likes", err)
		}
	}
	return nil
}
