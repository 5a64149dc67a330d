package redisdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
)

// passwordInput makes any password of up to 128 bytes fit bcrypt's 72-byte
// input without silently ignoring its tail.
func passwordInput(pw string) []byte {
	if len(pw) <= 72 {
		return []byte(pw)
	}
	sum := sha256.Sum256([]byte(pw))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// Register creates a user and a first session. Of concurrent registrations of
// one name (in any letter case) exactly one wins; the others get ErrUsernameTaken.
func (s *Store) Register(ctx context.Context, username, password string) (store.User, string, error) {
	name, lower, err := store.NormalizeUsername(username)
	if err != nil {
		return store.User{}, "", err
	}
	if err := store.CheckPassword(password); err != nil {
		return store.User{}, "", err
	}
	n, err := s.rdb.Exists(ctx, s.keys.usernameIndex(lower)).Result()
	if err != nil {
		return store.User{}, "", s.wrap("register", err)
	}
	if n > 0 {
		return store.User{}, "", store.ErrUsernameTaken
	}
	hash, err := bcrypt.GenerateFromPassword(passwordInput(password), s.opt.BcryptCost)
	if err != nil {
		return store.User{}, "", s.wrap("register: hash password", err)
	}
	uid, err := s.rdb.Incr(ctx, s.keys.lastUserID()).Result()
	if err != nil {
		return store.User{}, "", s.wrap("register", err)
	}
	created := s.now()
	// The hash first, the index after: nobody can reach the hash before the
	// index names it, and the index's SET NX decides who owns the name.
	h := userHash{Username: name, Password: string(hash), Created: created}
	if err := s.rdb.HSet(ctx, s.keys.user(uid), h).Err(); err != nil {
		return store.User{}, "", s.wrap("register", err)
	}
	ok, err := s.rdb.SetNX(ctx, s.keys.usernameIndex(lower), uid, 0).Result()
	if err != nil || !ok {
		s.rdb.Del(context.WithoutCancel(ctx), s.keys.user(uid))
		if err != nil {
			return store.User{}, "", s.wrap("register", err)
		}
		return store.User{}, "", store.ErrUsernameTaken
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.indexUser(ctx, pl, uid, lower)
		pl.ZAddNX(ctx, s.keys.popular(), redis.Z{Member: uid})
		return nil
	})
	if err != nil {
		return store.User{}, "", s.wrap("register", err)
	}
	token, err := s.newSession(ctx, uid)
	if err != nil {
		return store.User{}, "", err
	}
	// Seen from now on: pushes reach the new user until it stays away.
	if _, err := s.touch(ctx, uid); err != nil {
		return store.User{}, "", err
	}
	f, none := false, int64(0)
	return store.User{ID: uid, Username: name, CreatedAt: store.Time(created), Following: &f, UnreadNotifications: &none}, token, nil
}

// Login checks a username and password and opens a new session. A wrong name
// and a wrong password give the same error, after the same work.
func (s *Store) Login(ctx context.Context, username, password string) (store.User, string, error) {
	var uid int64
	var hash []byte
	if lower, ok := store.LookupName(username); ok && len(password) <= store.MaxPassword {
		u, err := s.rdb.Get(ctx, s.keys.usernameIndex(lower)).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return store.User{}, "", s.wrap("login", err)
		}
		if err == nil {
			h, err := s.rdb.HGet(ctx, s.keys.user(u), fieldPassword).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return store.User{}, "", s.wrap("login", err)
			}
			if err == nil {
				uid, hash = u, []byte(h)
			}
		}
	}
	if hash == nil {
		bcrypt.CompareHashAndPassword(s.dummyHash, passwordInput(password))
		return store.User{}, "", store.ErrBadCredential
	}
	if bcrypt.CompareHashAndPassword(hash, passwordInput(password)) != nil {
		return store.User{}, "", store.ErrBadCredential
	}
	s.pruneSessions(ctx, uid)
	token, err := s.newSession(ctx, uid)
	if err != nil {
		return store.User{}, "", err
	}
	u, err := s.User(ctx, uid, uid)
	return u, token, err
}

// newSession makes a random 256-bit token and stores its hash both ways.
func (s *Store) newSession(ctx context.Context, uid int64) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", s.wrap("new session", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	h := store.TokenHash(token)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, s.keys.userSessions(uid), h)
		p.Set(ctx, s.keys.session(h), uid, s.opt.SessionTTL)
		return nil
	})
	if err != nil {
		return "", s.wrap("new session", err)
	}
	return token, nil
}

// pruneSessions drops from the user's session set the hashes whose auth key
// has expired, so that the set does not grow with every login.
func (s *Store) pruneSessions(ctx context.Context, uid int64) {
	hashes, err := s.rdb.SMembers(ctx, s.keys.userSessions(uid)).Result()
	if err != nil || len(hashes) == 0 {
		return
	}
	cmds, _ := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, h := range hashes {
			p.Exists(ctx, s.keys.session(h))
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
		s.rdb.SRem(ctx, s.keys.userSessions(uid), gone...)
	}
}

// Authenticate returns the user of a session token and the token's hash. The
// token is valid only while auth:<hash> and the user's session set agree; each
// use slides the session's expiry.
func (s *Store) Authenticate(ctx context.Context, token string) (int64, string, error) {
	if token == "" || len(token) > 256 {
		return 0, "", store.ErrNotLoggedIn
	}
	h := store.TokenHash(token)
	v, err := s.rdb.GetEx(ctx, s.keys.session(h), s.opt.SessionTTL).Result()
	if errors.Is(err, redis.Nil) {
		return 0, "", store.ErrNotLoggedIn
	}
	if err != nil {
		return 0, "", s.wrap("authenticate", err)
	}
	uid, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, "", store.ErrNotLoggedIn
	}
	ok, err := s.rdb.SIsMember(ctx, s.keys.userSessions(uid), h).Result()
	if err != nil {
		return 0, "", s.wrap("authenticate", err)
	}
	if !ok {
		s.rdb.Del(ctx, s.keys.session(h))
		return 0, "", store.ErrNotLoggedIn
	}
	return uid, h, nil
}

// Logout ends the session whose token hash is tokenHash (as Authenticate
// returned it) at once, in every server process, and tells the live feed to
// close the connections opened with it.
func (s *Store) Logout(ctx context.Context, uid int64, tokenHash string) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.keys.session(tokenHash))
		p.SRem(ctx, s.keys.userSessions(uid), tokenHash)
		s.queuePublish(ctx, p, s.keys.NotifyChannel(uid), store.EventSessionRevoked, store.SessionRevokedData{TokenHash: tokenHash})
		return nil
	})
	return s.wrap("logout", err)
}
