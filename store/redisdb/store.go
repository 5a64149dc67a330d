package redisdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/account"
	"microblog/store/redisdb/dm"
	"microblog/store/redisdb/fed"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/media"
	"microblog/store/redisdb/schema"
	"microblog/store/redisdb/social"
)

// Store reads and writes the microblog's data in Redis.
type Store struct {
	// Accounts serve sessions, passwords, names, OAuth and the other
	// sign-in services (package account).
	*account.Accounts
	// DMs serve private messages (package dm).
	*dm.DMs
	// Social serves follows, likes, notifications, trends, search, blocks,
	// mutes, moderation, protected accounts, bookmarks and pins (package
	// social).
	*social.Social
	// Uploads serve uploads, their descriptions and avatars (package media).
	*media.Uploads
	// Fed serves federation's remote actors, signing keys, seen
	// activities and domain blocks (package fed).
	*fed.Fed
	// Queue is federation's delivery queue (package fed).
	*fed.Queue

	rdb  redis.UniversalClient
	keys schema.Keys
	opt  Options
	// owned says the store made rdb itself (Open) and closes it.
	owned bool
	// caches remember recently checked sessions and avatars (store_caches.go).
	caches *caches
	// syncs are the masters' ReplicaSync keys on a cluster (store_replicas.go).
	syncs *replicaSyncs
}

// New returns a Store over rdb.
func New(rdb redis.UniversalClient, opt Options) *Store {
	opt = opt.withDefaults()
	_, cluster := rdb.(*redis.ClusterClient)
	s := &Store{rdb: rdb, keys: schema.NewKeys(opt.Prefix, cluster), opt: opt,
		caches: &caches{}, syncs: &replicaSyncs{}}
	s.Accounts = account.New(rdb, s.keys, account.Options{Logger: opt.Logger, BcryptCost: opt.BcryptCost,
		SessionTTL: opt.SessionTTL, Archive: opt.Archive}, accountCore{s}, &s.caches.sessions)
	// Social reads the Store's clock, which a test may replace after New.
	s.Social = social.New(rdb, s.keys, social.Options{Logger: opt.Logger, Archive: opt.Archive, HotWindow: opt.HotWindow,
		MaxBlocks: opt.MaxBlocks, MaxMutes: opt.MaxMutes, TrendsWindow: opt.TrendsWindow, TrendsRefresh: opt.TrendsRefresh,
		Now: func() time.Time { return s.opt.Now() }}, socialCore{s}, &s.caches.lenses)
	s.Uploads = media.New(rdb, s.keys, media.Options{Files: opt.Files}, mediaCore{s})
	s.DMs = dm.New(rdb, s.keys, dm.Options{Archive: opt.Archive}, dmCore{s})
	s.Fed = fed.New(rdb, s.keys, fed.Options{Logger: opt.Logger}, fedCore{s})
	s.Queue = fed.NewQueue(rdb, s.keys, s.Now)
	return s
}

// scanCount is how many keys one SCAN asks for.
const scanCount = 1000

// keysMatching returns every key that matches pattern (SCAN, on every
// master of a cluster). For migrations, which run once.
func (s *Store) keysMatching(ctx context.Context, pattern string) ([]string, error) {
	var mu sync.Mutex
	var keys []string
	scan := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, pattern, scanCount).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			keys = append(keys, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, scan)
	case *redis.Client:
		err = scan(ctx, c)
	default:
		err = fmt.Errorf("scan: unsupported client %T", s.rdb)
	}
	return keys, err
}

// Keys returns the key and channel builders, for the live feed's subscriber.
func (s *Store) Keys() schema.Keys { return s.keys }

// Ping tells whether Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.Wrap("ping", s.rdb.Ping(ctx).Err())
}

// PingArchive tells whether there is an archive and whether it answers.
func (s *Store) PingArchive(ctx context.Context) (bool, error) {
	if s.opt.Archive == nil {
		return false, nil
	}
	return true, s.Wrap("ping archive", s.opt.Archive.Ping(ctx))
}

// Now is the time, in unix ms, as the store counts it.
func (s *Store) Now() int64 { return s.opt.Now().UnixMilli() }

// Wrap gives err the operation's name and, when Redis could not be reached,
// ErrUnavailable (ErrStorageFull when it refused a write for lack of
// memory), so that callers can answer 503 instead of 500.
func (s *Store) Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *store.Error
	if errors.As(err, &e) {
		return err
	}
	if reqpath.IsOOM(err) {
		s.opt.Metrics.storageFull.Inc()
		return fmt.Errorf("redisdb: %s: %w: %w", op, store.ErrStorageFull, err)
	}
	if isUnavailable(err) {
		return fmt.Errorf("redisdb: %s: %w: %w", op, store.ErrUnavailable, err)
	}
	return fmt.Errorf("redisdb: %s: %w", op, err)
}

// Writable tells whether Redis takes writes now: store.ErrStorageFull when
// it refuses them for lack of memory, ErrUnavailable when it does not answer.
func (s *Store) Writable(ctx context.Context) error {
	// SET XX of a key that never exists writes nothing, but Redis refuses it
	// like any write when it has no memory left.
	err := s.rdb.SetXX(ctx, s.keys.WriteProbe(), "", 0).Err()
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	return s.Wrap("write probe", err)
}

// isUnavailable tells whether err means Redis could not be reached or is not
// ready to serve (down, restarting, loading its data, too slow; on a cluster,
// a master away or a slot moving).
func isUnavailable(err error) bool {
	var netErr net.Error
	switch {
	case errors.As(err, &netErr),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrClosed),
		errors.Is(err, context.DeadlineExceeded):
		return true
	}
	msg := err.Error()
	// A MOVED or ASK that reaches the caller is a slot whose master changed
	// while the request ran (a failover: the chaos run saw likes answered
	// 500 with MOVED just after one), nothing the client sent: the command
	// was not run, and a retry finds the new master.
	if strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK ") {
		return true
	}
	for _, p := range []string{"LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "connection refused", "i/o timeout", "use of closed network connection", "NOAUTH", "WRONGPASS"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// id and parseID write and read ids as the schema does.
func id(n int64) string      { return schema.ID(n) }
func parseID(s string) int64 { return schema.ParseID(s) }
