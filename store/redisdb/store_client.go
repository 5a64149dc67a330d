package redisdb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/schema"
)

func init() {
	// go-redis logs every failed dial on its own; its errors reach our logs
	// through the calls that fail, so keep its own logger for debugging.
	redis.SetLogger(redisLogger{})
}

// redisLogger sends go-redis's internal messages to slog at debug level.
type redisLogger struct{}

func (redisLogger) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}

// Timeouts of the connection: short enough that the API answers 503 rather
// than hangs while Redis is unreachable.
const (
	dialTimeout = 2 * time.Second
	ioTimeout   = 2 * time.Second
	poolTimeout = 3 * time.Second
)

// ClusterReload is how stale a cluster client's map of slots to masters may
// grow (go-redis's default is a minute). A MOVED answer reloads it at once,
// but a master that died answers nothing: until the map is read again, the
// client keeps dialling it for the slots its replica took over, and every
// request touching them fails. Reading the map (CLUSTER SLOTS) once a
// second while there is traffic costs nothing worth counting.
const ClusterReload = time.Second

// CheckURL tells whether url is a Redis URL this package can open: of one
// Redis, or with cluster of a Redis Cluster in go-redis's cluster form
// (redis://[:password@]host1:port1?addr=host2:port2&addr=host3:port3).
func CheckURL(url string, cluster bool) error {
	var err error
	if cluster {
		_, err = redis.ParseClusterURL(url)
	} else {
		_, err = redis.ParseURL(url)
	}
	return err
}

// Open connects a Store to the Redis at url (redis:// or rediss://). caFile,
// if set, is a PEM file of the CAs trusted for rediss://. No command is sent
// yet: Ping tells whether Redis answers.
func Open(url, caFile string, opt Options) (*Store, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("invalid REDIS_URL: %w", err)
	}
	ro.DialTimeout = dialTimeout
	ro.ReadTimeout = ioTimeout
	ro.WriteTimeout = ioTimeout
	ro.PoolTimeout = poolTimeout
	// No command is sent twice: a write whose reply was lost (a timeout, a
	// cut connection) may well have been done, and sending it again would
	// count or queue it twice. The caller answers 503 and a retry, with its
	// Idempotency-Key, is safe; the checker mends what is left (post_repair.go).
	// (-1: go-redis takes 0 for its default of 3 retries.)
	ro.MaxRetries = -1
	if ro.TLSConfig, err = tlsConfig(caFile, ro.TLSConfig); err != nil {
		return nil, err
	}
	rdb := redis.NewClient(ro)
	rdb.AddHook(roundTripHook{})
	s := New(rdb, opt)
	s.owned = true
	return s, nil
}

// OpenCluster connects a Store to the Redis Cluster at url, in go-redis's
// cluster form (redis://[:password@]host1:port1?addr=host2:port2&...; the
// client learns the other nodes from these). caFile is as for Open. Keys
// of one user or one message share a hash tag (see Keys), and live events
// use sharded pub/sub. No command is sent yet.
func OpenCluster(url, caFile string, opt Options) (*Store, error) {
	co, err := redis.ParseClusterURL(url)
	if err != nil {
		return nil, fmt.Errorf("invalid REDIS_URL for a cluster: %w", err)
	}
	co.DialTimeout = dialTimeout
	co.ReadTimeout = ioTimeout
	co.WriteTimeout = ioTimeout
	co.PoolTimeout = poolTimeout
	co.MaxRetries = -1 // as Open: no command is sent twice
	co.ClusterStateReloadInterval = ClusterReload
	if co.TLSConfig, err = tlsConfig(caFile, co.TLSConfig); err != nil {
		return nil, err
	}
	rdb := redis.NewClusterClient(co)
	rdb.AddHook(roundTripHook{})
	s := New(rdb, opt)
	s.owned = true
	return s, nil
}

// Close closes the connection of a Store made by Open; a Store made by New
// leaves its client to the caller.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.rdb.Close()
}

// tlsConfig is the TLS set-up of a rediss:// URL (nil for redis://), with
// the CAs of caFile trusted instead of the system's when it is set.
func tlsConfig(caFile string, parsed *tls.Config) (*tls.Config, error) {
	if caFile == "" {
		return parsed, nil
	}
	if parsed == nil {
		return nil, errors.New("MICROBLOG_REDIS_CA is set but REDIS_URL is not rediss://")
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("invalid MICROBLOG_REDIS_CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("invalid MICROBLOG_REDIS_CA %s: no PEM certificates in it", caFile)
	}
	return &tls.Config{RootCAs: pool, ServerName: parsed.ServerName, MinVersion: tls.VersionTLS12}, nil
}

// LoadScripts loads every Lua script of the store into Redis (SCRIPT LOAD,
// on every master and replica of a cluster), so that the first EVALSHA of
// each finds it. Nothing depends on it: a script run on its own that
// Redis has lost (restarted, failed over to a replica that never ran it,
// SCRIPT FLUSH) is answered NOSCRIPT and sent again whole with EVAL, which
// loads it again, at the cost of one more round trip; scripts inside
// transactions go with EVAL always. The server calls it at start.
func (s *Store) LoadScripts(ctx context.Context) error {
	load := func(ctx context.Context, c *redis.Client) error {
		_, err := c.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, src := range schema.Sources() {
				pl.ScriptLoad(ctx, src)
			}
			return nil
		})
		return err
	}
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachShard(ctx, load)
	case *redis.Client:
		err = load(ctx, c)
	default:
		err = fmt.Errorf("load scripts: unsupported client %T", s.rdb)
	}
	return s.Wrap("load scripts", err)
}
