package account

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// The login guard holds back password guessing against one account, on top
// of the per-address limit the server applies to every login:
//
//   - From one address, an account takes Guard.N failed passwords in a row
//     (forgotten Guard.Per after the last); from then on that address must
//     wait before each further try: 1 s, doubling with each failure, at most
//     5 minutes.
//   - From all addresses together it takes accountFactor × Guard.N; then
//     every address must wait the same way, except those the user logged in
//     from before (knownClients), so that a crowd of guessers cannot lock the
//     user out of their own devices.
//
// An attempt that has to wait is answered 429 with Retry-After without its
// password being looked at, and is not counted. A successful login resets
// both counts. Counts are kept by name, so a name nobody has behaves the
// same and the guard tells nobody which names exist.
const (
	guardFirstWait     = time.Second
	guardMaxWait       = 5 * time.Minute
	guardAccountFactor = 3
	// maxKnownClients is how many of its latest addresses an account keeps.
	maxKnownClients = 10
	knownClientsTTL = 90 * 24 * time.Hour
)

// guardedLogin is one attempt to prove a password under the guard.
type guardedLogin struct {
	name string // the account's name index form (the guard's key)
	at   store.Attempt
}

func (g guardedLogin) on() bool { return g.at.Guard.N > 0 && g.at.Guard.Per > 0 && g.name != "" }

// guardCheck returns a *RateLimitError while the attempt must wait. uid is
// the account's (0 when the name has none).
func (s *Accounts) guardCheck(ctx context.Context, g guardedLogin, uid int64) error {
	if !g.on() {
		return nil
	}
	var acct, pair *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		acct = pl.HGet(ctx, s.keys.LoginFailures(g.name), "until")
		pair = pl.HGet(ctx, s.keys.LoginClientFailures(g.name, g.at.Client), "until")
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return s.core.Wrap("login guard", err)
	}
	now := s.core.Now()
	if until := parseID(pair.Val()); until > now {
		return waitUntil(until, now)
	}
	if until := parseID(acct.Val()); until > now {
		if uid > 0 {
			_, err := s.rdb.ZScore(ctx, s.keys.KnownClients(uid), g.at.Client).Result()
			if err == nil {
				return nil
			}
			if !errors.Is(err, redis.Nil) {
				return s.core.Wrap("login guard", err)
			}
		}
		return waitUntil(until, now)
	}
	return nil
}

func waitUntil(until, now int64) error {
	return &store.RateLimitError{RetryAfter: max(time.Duration(until-now)*time.Millisecond, time.Second)}
}

// guardFail counts a failed attempt, for the address and for the account.
func (s *Accounts) guardFail(ctx context.Context, g guardedLogin) {
	if !g.on() {
		return
	}
	now, first, most, window := s.core.Now(), guardFirstWait.Milliseconds(), guardMaxWait.Milliseconds(), g.at.Guard.Per.Milliseconds()
	_, err := s.rdb.Pipelined(context.WithoutCancel(ctx), func(pl redis.Pipeliner) error {
		schema.LoginFail.Eval(ctx, pl, []string{s.keys.LoginClientFailures(g.name, g.at.Client)}, now, g.at.Guard.N, first, most, window)
		schema.LoginFail.Eval(ctx, pl, []string{s.keys.LoginFailures(g.name)}, now, guardAccountFactor*g.at.Guard.N, first, most, window)
		return nil
	})
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "count failed login", "err", err)
	}
}

// queueGuardPass resets the counts after a success and remembers the
// address as one the user logs in from.
func (s *Accounts) queueGuardPass(ctx context.Context, pl redis.Pipeliner, g guardedLogin, uid int64) {
	if g.name != "" {
		pl.Del(ctx, s.keys.LoginFailures(g.name))
		pl.Del(ctx, s.keys.LoginClientFailures(g.name, g.at.Client))
	}
	if g.at.Client != "" {
		known := s.keys.KnownClients(uid)
		pl.ZAdd(ctx, known, redis.Z{Score: float64(s.core.Now()), Member: g.at.Client})
		pl.ZRemRangeByRank(ctx, known, 0, -maxKnownClients-1)
		pl.PExpire(ctx, known, knownClientsTTL)
	}
}
