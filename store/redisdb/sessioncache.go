package redisdb

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sessions are remembered in each process for a short while, so that an
// authenticated request does not wait on Redis twice before it starts: a
// token hash the process has checked in the last sessionCacheTTL is taken
// at its word. Every session that ends (a logout, a logout everywhere, a
// changed password, a deleted account) has its hash published on
// sessions:revoked, and every process forgets it on receipt. The cache is
// used only while that subscription is known to be up: from when the
// subscription is confirmed until its connection fails or stops answering
// pings, and it starts empty each time, so a revocation sent while a
// process was not listening is never missed.
const (
	sessionCacheTTL = 30 * time.Second
	// sessionCacheMax bounds the memory: past it the cache starts over.
	sessionCacheMax = 100_000
	// sessionPing is how often an idle subscription is pinged; a ping not
	// answered by the next one turns the cache off.
	sessionPing = 2 * time.Second
)

type sessionCache struct {
	mu      sync.RWMutex
	entries map[string]cachedSession // by token hash
	// gen changes whenever an entry may have been revoked (a revocation, a
	// flush): a check of Redis that began under an older gen is not cached,
	// since a revocation may have passed between the check and the put.
	gen  atomic.Uint64
	live atomic.Bool // the revocation subscription is up
}

type cachedSession struct {
	uid     int64
	checked time.Time
}

// get returns the user of a token hash checked recently, while the cache is live.
func (c *sessionCache) get(hash string, now time.Time) (int64, bool) {
	if !c.live.Load() {
		return 0, false
	}
	c.mu.RLock()
	e, ok := c.entries[hash]
	c.mu.RUnlock()
	if !ok || now.Sub(e.checked) >= sessionCacheTTL {
		return 0, false
	}
	return e.uid, true
}

// put remembers a token hash checked against Redis, unless gen (taken
// before the check) is no longer current.
func (c *sessionCache) put(hash string, uid int64, gen uint64, now time.Time) {
	if !c.live.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= sessionCacheMax {
		c.entries = make(map[string]cachedSession)
	}
	c.entries[hash] = cachedSession{uid: uid, checked: now}
}

// revoke forgets token hashes.
func (c *sessionCache) revoke(hashes ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen.Add(1)
	for _, h := range hashes {
		delete(c.entries, h)
	}
}

// setLive turns the cache on or off, empty either way.
func (c *sessionCache) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen.Add(1)
	c.entries = nil
	c.live.Store(live)
}

// RunSessionCache keeps this process's session cache until ctx ends: it
// listens for ended sessions and turns the cache on while it hears them.
// Without it running, every request asks Redis.
func (s *Store) RunSessionCache(ctx context.Context, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenRevocations(ctx)
		s.sessions.setLive(false)
		if ctx.Err() != nil {
			return
		}
		logger.Warn("session cache off until Redis answers again", "err", err)
		sleep(ctx, backoff)
		backoff = min(2*backoff, 2*time.Second)
	}
}

// listenRevocations subscribes to sessions:revoked and applies what comes,
// with the cache live from the confirmed subscription until an error.
func (s *Store) listenRevocations(ctx context.Context) error {
	ps := s.rdb.Subscribe(ctx)
	defer ps.Close()
	if err := ps.Subscribe(ctx, s.keys.sessionsChannel()); err != nil {
		return err
	}
	pinged := false
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, sessionPing)
		if err != nil {
			if !isTimeout(err) || pinged {
				return err
			}
			// Quiet: make sure the connection is still there.
			if err := ps.Ping(ctx); err != nil {
				return err
			}
			pinged = true
			continue
		}
		pinged = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				s.sessions.setLive(true)
			}
		case *redis.Message:
			s.sessions.revoke(m.Payload)
		}
	}
	return ctx.Err()
}

// isTimeout tells a read that timed out (nothing came) from a broken connection.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
