package account

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Register creates a user and a first session. Of concurrent registrations of
// one name (in any letter case or width), or of names that look alike,
// exactly one wins; the others get ErrUsernameTaken.
func (s *Accounts) Register(ctx context.Context, username, password string) (store.User, string, error) {
	name, lower, err := store.NormalizeUsername(username)
	if err != nil {
		return store.User{}, "", err
	}
	prepared, err := store.PreparePassword(password)
	if err != nil {
		return store.User{}, "", err
	}
	if taken, err := s.nameTaken(ctx, name, lower); err != nil || taken {
		if err == nil {
			err = store.ErrUsernameTaken
		}
		return store.User{}, "", err
	}
	rec, err := s.newPasswordRecord(prepared)
	if err != nil {
		return store.User{}, "", s.core.Wrap("register: hash password", err)
	}
	uid, err := s.rdb.Incr(ctx, s.keys.LastUserID()).Result()
	if err != nil {
		return store.User{}, "", s.core.Wrap("register", err)
	}
	created := s.core.Now()
	// The hash first, the name after: nobody can reach the hash before the
	// index names it, and the indexes' SET NX decide who owns the name.
	h := schema.UserHash{Username: name, Password: rec.Hash, PasswordKey: rec.Key, Created: created}
	if err := s.rdb.HSet(ctx, s.keys.User(uid), h).Err(); err != nil {
		return store.User{}, "", s.core.Wrap("register", err)
	}
	if err := s.claimName(ctx, uid, name, lower); err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), s.keys.User(uid))
		return store.User{}, "", err
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.core.IndexUser(ctx, pl, uid, lower)
		pl.ZAddNX(ctx, s.keys.Popular(), redis.Z{Member: uid})
		return nil
	})
	if err != nil {
		return store.User{}, "", s.core.Wrap("register", err)
	}
	token, err := s.newSession(ctx, uid, NativeSession)
	if err != nil {
		return store.User{}, "", err
	}
	// Seen from now on: pushes reach the new user until it stays away.
	if err := s.core.Touch(ctx, uid); err != nil {
		return store.User{}, "", err
	}
	f, none := false, int64(0)
	return store.User{ID: uid, Username: name, CreatedAt: store.Time(created), Following: &f, UnreadNotifications: &none}, token, nil
}

// Login checks a username and password and opens a new session. A wrong name
// and a wrong password give the same error, after the same work; both count
// against the name under at's guard.
func (s *Accounts) Login(ctx context.Context, username, password string, at store.Attempt) (store.User, string, error) {
	uid, err := s.checkPassword(ctx, username, password, at)
	if err != nil {
		return store.User{}, "", err
	}
	token, err := s.openSession(ctx, uid, NativeSession)
	if err != nil {
		return store.User{}, "", err
	}
	u, err := s.core.User(ctx, uid, uid)
	return u, token, err
}

// provePassword checks that typed is the password of uid (0: a name nobody
// has, which fails after the same work) and counts the outcome under the
// guard. A match against an old record rewrites it in the current form. It
// returns the record as it stands now.
func (s *Accounts) provePassword(ctx context.Context, g guardedLogin, uid int64, typed string) (passwordRecord, error) {
	var rec passwordRecord
	if uid > 0 {
		vals, err := s.rdb.HMGet(ctx, s.keys.User(uid), schema.FieldPassword, schema.FieldPasswordKey).Result()
		if err != nil {
			return rec, s.core.Wrap("check password", err)
		}
		rec.Hash, _ = vals[0].(string)
		rec.Key, _ = vals[1].(string)
	}
	if rec.Hash == "" {
		s.fakeMatch(typed)
		s.guardFail(ctx, g)
		return rec, store.ErrBadCredential
	}
	ok, upgrade, prepared := matchPassword(rec, typed)
	if !ok {
		s.guardFail(ctx, g)
		return rec, store.ErrBadCredential
	}
	if upgrade {
		rec = s.upgradePassword(ctx, uid, rec, prepared)
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queueGuardPass(ctx, pl, g, uid)
		return nil
	})
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "reset login guard", "uid", uid, "err", err)
	}
	return rec, nil
}

// SessionKind tells the two kinds of session apart: one opened by signing
// in to this service (a password, another service), valid on the native API
// and /ws, and one an OAuth grant of the Mastodon API opened, valid only
// there and within its scopes (CONTRACT.md §17). The kind is kept in the
// session's own key, so no spelling of a token can pass for the other kind.
type SessionKind bool

const (
	NativeSession SessionKind = false
	OAuthSession  SessionKind = true
)

// oauthMark follows the uid in auth:<hash> of an OAuth session.
const oauthMark = ":oauth"

// Value is what auth:<hash> holds for a session of uid of this kind.
func (k SessionKind) Value(uid int64) string {
	if k == OAuthSession {
		return id(uid) + oauthMark
	}
	return id(uid)
}

// parseSession reads auth:<hash>: the uid and the kind of the session.
func parseSession(v string) (int64, SessionKind, bool) {
	kind := NativeSession
	if rest, ok := strings.CutSuffix(v, oauthMark); ok {
		v, kind = rest, OAuthSession
	}
	uid, err := strconv.ParseInt(v, 10, 64)
	return uid, kind, err == nil && uid > 0
}

// openSession opens a new session of uid once who it is has been proved.
func (s *Accounts) openSession(ctx context.Context, uid int64, kind SessionKind) (string, error) {
	s.pruneSessions(ctx, uid)
	return s.newSession(ctx, uid, kind)
}

// newSession makes a random 256-bit token and stores its hash both ways;
// a suspended user gets none (ErrSuspended). Every way in (a password,
// another service, an OAuth grant) opens its session here.
func (s *Accounts) newSession(ctx context.Context, uid int64, kind SessionKind) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", s.core.Wrap("new session", err)
	}
	// The token begins with its user's id, which is no secret, so that
	// Authenticate can read both keys of the session at once.
	token := id(uid) + "." + base64.RawURLEncoding.EncodeToString(b[:])
	h := store.TokenHash(token)
	var suspended *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, s.keys.UserSessions(uid), h)
		p.Set(ctx, s.keys.Session(h), kind.Value(uid), s.opt.SessionTTL)
		// Read after the session is written: a suspension ending every
		// session after this read ends this one too.
		suspended = p.HGet(ctx, s.keys.User(uid), schema.FieldSuspended)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return "", s.core.Wrap("new session", err)
	}
	if suspended.Val() == "1" {
		if err := s.Logout(ctx, uid, h); err != nil {
			return "", err
		}
		return "", store.ErrSuspended
	}
	return token, nil
}

// pruneSessions drops from the user's session set the hashes whose auth key
// has expired, so that the set does not grow with every login.
func (s *Accounts) pruneSessions(ctx context.Context, uid int64) {
	hashes, err := s.rdb.SMembers(ctx, s.keys.UserSessions(uid)).Result()
	if err != nil || len(hashes) == 0 {
		return
	}
	cmds, _ := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, h := range hashes {
			p.Exists(ctx, s.keys.Session(h))
		}
		return nil
	})
	var gone []any
	for i, c := range cmds {
		if n, err := c.(*redis.IntCmd).Result(); err == nil && n == 0 {
			gone = append(gone, hashes[i])
		}
	}
	if len(gone) > 0 {
		s.rdb.SRem(ctx, s.keys.UserSessions(uid), gone...)
	}
}

// Authenticate returns the user of a session token and the token's hash:
// a session opened by signing in, never one an OAuth grant opened
// (AuthenticateOAuth), which is ErrNotLoggedIn here.
func (s *Accounts) Authenticate(ctx context.Context, token string) (int64, string, error) {
	return s.authenticate(ctx, token, NativeSession)
}

// authenticate returns the user of a session token of kind and the token's
// hash. The token is valid only while auth:<hash> and the user's session
// set agree; each use slides the session's expiry.
func (s *Accounts) authenticate(ctx context.Context, token string, kind SessionKind) (int64, string, error) {
	if token == "" || len(token) > 256 {
		return 0, "", store.ErrNotLoggedIn
	}
	h := store.TokenHash(token)
	now := time.Now()
	if c, ok := s.sessions.Get(h, now); ok {
		if c.kind != kind {
			return 0, "", store.ErrNotLoggedIn
		}
		return c.uid, h, nil
	}
	gen := s.sessions.Gen()
	// A token names its user (see newSession), so that both keys are read
	// in one round trip; a token of an older version, without it, takes two.
	claimed, _, _ := strings.Cut(token, ".")
	var get *redis.StringCmd
	var member *redis.BoolCmd
	var grant *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.GetEx(ctx, s.keys.Session(h), s.opt.SessionTTL)
		if uid := parseID(claimed); uid > 0 && claimed != token {
			member = p.SIsMember(ctx, s.keys.UserSessions(uid), h)
		}
		// An OAuth grant's session that an older version opened unmarked
		// (one beside this version during a rolling upgrade) is told by
		// its grant, and marked now.
		grant = p.Exists(ctx, s.keys.OAuth(store.OAuthToken, h))
		return nil
	})
	if errors.Is(err, redis.Nil) {
		return 0, "", store.ErrNotLoggedIn
	}
	if err != nil {
		return 0, "", s.core.Wrap("authenticate", err)
	}
	uid, got, ok := parseSession(get.Val())
	if !ok {
		return 0, "", store.ErrNotLoggedIn
	}
	if got == NativeSession && grant.Val() > 0 {
		got = OAuthSession
		s.rdb.SetArgs(ctx, s.keys.Session(h), got.Value(uid), redis.SetArgs{Mode: "XX", KeepTTL: true})
	}
	if member == nil || id(uid) != claimed { // an older token: the set is read now
		member = s.rdb.SIsMember(ctx, s.keys.UserSessions(uid), h)
		if err := member.Err(); err != nil {
			return 0, "", s.core.Wrap("authenticate", err)
		}
	}
	if !member.Val() {
		s.rdb.Del(ctx, s.keys.Session(h))
		return 0, "", store.ErrNotLoggedIn
	}
	s.sessions.Put(h, Session{uid: uid, kind: got}, gen, now)
	if got != kind {
		return 0, "", store.ErrNotLoggedIn
	}
	return uid, h, nil
}

// Logout ends the session whose token hash is tokenHash (as Authenticate
// returned it) at once, in every server process, and tells the live feed to
// close the connections opened with it.
func (s *Accounts) Logout(ctx context.Context, uid int64, tokenHash string) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.keys.Session(tokenHash))
		p.SRem(ctx, s.keys.UserSessions(uid), tokenHash)
		p.HDel(ctx, s.keys.PushSubscriptions(uid), "s:"+tokenHash, "m:"+tokenHash) // its device hears no more
		s.queueRevoke(ctx, p, uid, tokenHash)
		return nil
	})
	s.sessions.Forget(tokenHash)
	return s.core.Wrap("logout", err)
}

// LogoutAll ends every session of the user at once, in every server process,
// and tells the live feed to close their connections.
func (s *Accounts) LogoutAll(ctx context.Context, uid int64) error {
	return s.endSessions(ctx, uid, "")
}

// endSessions ends every session of uid but keep's (a token hash; empty:
// none kept). A session opened while it runs is not valid either when keep
// is empty: the user's session set is deleted, and a token is valid only
// while both keys agree.
func (s *Accounts) endSessions(ctx context.Context, uid int64, keep string) error {
	hashes, err := s.rdb.SMembers(ctx, s.keys.UserSessions(uid)).Result()
	if err != nil {
		return s.core.Wrap("end sessions", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, h := range hashes {
			if h == keep {
				continue
			}
			p.Del(ctx, s.keys.Session(h))
			p.SRem(ctx, s.keys.UserSessions(uid), h)
			p.HDel(ctx, s.keys.PushSubscriptions(uid), "s:"+h, "m:"+h) // its device hears no more
			s.queueRevoke(ctx, p, uid, h)
		}
		if keep == "" {
			p.Del(ctx, s.keys.UserSessions(uid))
		}
		return nil
	})
	s.sessions.Forget(hashes...)
	return s.core.Wrap("end sessions", err)
}

// queueRevoke tells every process that the session of tokenHash has ended:
// the session caches forget it, and the live feed closes its connections.
func (s *Accounts) queueRevoke(ctx context.Context, p redis.Pipeliner, uid int64, tokenHash string) {
	p.Publish(ctx, s.keys.SessionsChannel(), tokenHash)
	s.core.QueuePublish(ctx, p, s.keys.NotifyChannel(uid), store.EventSessionRevoked, store.SessionRevokedData{TokenHash: tokenHash})
}

// ChangePassword replaces uid's password once the old one is proved (under
// at's guard, as a login) and ends every other session of the user; the
// session keep (a token hash) stays.
func (s *Accounts) ChangePassword(ctx context.Context, uid int64, keep, oldPassword, newPassword string, at store.Attempt) error {
	prepared, err := store.PreparePassword(newPassword)
	if err != nil {
		return err
	}
	g, err := s.ownGuard(ctx, uid, at)
	if err != nil {
		return err
	}
	if err := s.guardCheck(ctx, g, uid); err != nil {
		return err
	}
	rec, err := s.provePassword(ctx, g, uid, oldPassword)
	if err != nil {
		return err
	}
	ok, err := s.swapPassword(ctx, uid, rec, prepared)
	if err != nil {
		return err
	}
	if !ok {
		return store.ErrBadCredential // changed by another request meanwhile
	}
	return s.endSessions(context.WithoutCancel(ctx), uid, keep)
}

// ownGuard is the login guard of uid's own account.
func (s *Accounts) ownGuard(ctx context.Context, uid int64, at store.Attempt) (guardedLogin, error) {
	name, err := s.core.Username(ctx, uid)
	if err != nil {
		return guardedLogin{}, err
	}
	g := guardedLogin{at: at}
	if names := store.LookupNames(name); len(names) > 0 {
		g.name = names[0]
	}
	return g, nil
}
