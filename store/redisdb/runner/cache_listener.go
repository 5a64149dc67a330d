package runner

import (
	"context"
	"errors"
	"strconv"
	"time"

	"microblog/store/redisdb/internal/retry"

	"github.com/redis/go-redis/v9"
)

// CacheListener keeps one process's session, author and lens caches (redisdb/store_caches.go):
// it listens for what invalidates them and turns them on while it hears.
// Without it running, every request asks Redis.
type CacheListener struct {
	base
	opt CacheListenerOptions
}

// NewCacheListener returns the listener of st's caches; Run runs it.
func NewCacheListener(st Ops, opt CacheListenerOptions) *CacheListener {
	return &CacheListener{base: newBase(st), opt: opt.withDefaults()}
}

// cachePing is how often an idle subscription is pinged; a ping not
// answered by the next one turns the caches off.
const cachePing = 2 * time.Second

// Run listens until ctx ends, and listens again after a back-off whenever
// the subscription fails.
func (l *CacheListener) Run(ctx context.Context) {
	wait := retry.Backoff{Min: BackoffMin, Max: BackoffMax}
	for ctx.Err() == nil {
		err := l.listen(ctx)
		l.s.SetCachesLive(false)
		if ctx.Err() != nil {
			return
		}
		l.opt.Logger.Warn("session, author and lens caches off until Redis answers again", "err", err)
		wait.Sleep(ctx)
	}
}

// listen subscribes to sessions:revoked, avatars:changed and lenses:changed and applies
// what comes, with the caches live from the confirmed subscription until an
// error.
func (l *CacheListener) listen(ctx context.Context) error {
	s := l.s
	ps := l.rdb.Subscribe(ctx)
	defer ps.Close()
	// A blocked receive does not watch ctx: closing the subscription ends
	// it at once, so that a process stops without waiting out cachePing.
	defer context.AfterFunc(ctx, func() { ps.Close() })()
	sessions, avatars, lenses := l.keys.SessionsChannel(), l.keys.AvatarsChannel(), l.keys.LensChannel()
	if err := ps.Subscribe(ctx, sessions, avatars, lenses); err != nil {
		return err
	}
	confirmed, pinged := 0, false
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, cachePing)
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
				if confirmed++; confirmed == 3 {
					s.SetCachesLive(true)
				}
			}
		case *redis.Message:
			switch m.Channel {
			case sessions:
				s.ForgetSession(m.Payload)
			case avatars:
				uid, _ := strconv.ParseInt(m.Payload, 10, 64)
				s.ForgetAuthor(uid)
			case lenses:
				uid, _ := strconv.ParseInt(m.Payload, 10, 64)
				s.ForgetLens(uid)
			}
		}
	}
	return ctx.Err()
}

// isTimeout tells a read that timed out (nothing came) from a broken connection.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
