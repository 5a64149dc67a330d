package redisdb

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// OAuth is the STRING oauth:<kind>:<key> holding one record of the Mastodon
// API's OAuth 2.0 server (store.OAuthKind), opaque to the store, with a TTL
// for codes and tokens. The key is a client id, the SHA-256 hex of a code
// or token, or a grant's request id: never a secret. Every command touches
// this one key, so the family needs no hash tag on a cluster.
func (k Keys) OAuth(kind store.OAuthKind, key string) string {
	return k.prefix + "oauth:" + string(kind) + ":" + key
}

// PutOAuth keeps record under (kind, key) for ttl (zero: no expiry).
func (s *Store) PutOAuth(ctx context.Context, kind store.OAuthKind, key string, record []byte, ttl time.Duration) error {
	return s.wrap("put oauth "+string(kind), s.rdb.Set(ctx, s.keys.OAuth(kind, key), record, ttl).Err())
}

// OAuthRecord returns the record under (kind, key), sliding its expiry when
// slide is not zero.
func (s *Store) OAuthRecord(ctx context.Context, kind store.OAuthKind, key string, slide time.Duration) ([]byte, error) {
	k := s.keys.OAuth(kind, key)
	var cmd *redis.StringCmd
	if slide > 0 {
		cmd = s.rdb.GetEx(ctx, k, slide)
	} else {
		cmd = s.rdb.Get(ctx, k)
	}
	return s.oauthRecord("read oauth "+string(kind), cmd)
}

// TakeOAuth returns and deletes the record under (kind, key) with one
// GETDEL, so that of two requests taking it at once only one gets it.
func (s *Store) TakeOAuth(ctx context.Context, kind store.OAuthKind, key string) ([]byte, error) {
	return s.oauthRecord("take oauth "+string(kind), s.rdb.GetDel(ctx, s.keys.OAuth(kind, key)))
}

// oauthRecord is the answer of a command reading one OAuth record.
func (s *Store) oauthRecord(op string, cmd *redis.StringCmd) ([]byte, error) {
	b, err := cmd.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, store.NewError(store.ErrNotFound, store.CodeNotFound, "no such oauth record")
	}
	if err != nil {
		return nil, s.wrap(op, err)
	}
	return b, nil
}

// CheckPassword proves a name and password as Login does, without opening
// a session: the OAuth authorize page signs nobody in, it grants a code.
func (s *Store) CheckPassword(ctx context.Context, username, password string, at store.Attempt) (store.User, error) {
	uid, err := s.checkPassword(ctx, username, password, at)
	if err != nil {
		return store.User{}, err
	}
	return s.User(ctx, uid, uid)
}

// checkPassword returns the uid whose name and password these are. A wrong
// name and a wrong password give the same error, after the same work; both
// count against the name under at's guard.
func (s *Store) checkPassword(ctx context.Context, username, password string, at store.Attempt) (int64, error) {
	names := store.LookupNames(username)
	g := guardedLogin{at: at}
	if len(names) > 0 {
		g.name = names[0]
	}
	uid, err := s.findUser(ctx, names)
	if err != nil {
		return 0, s.wrap("login", err)
	}
	if err := s.guardCheck(ctx, g, uid); err != nil {
		return 0, err
	}
	if _, err := s.provePassword(ctx, g, uid, password); err != nil {
		return 0, err
	}
	return uid, nil
}

// OpenSession opens a new session of uid, as a login does once the
// password is proved.
func (s *Store) OpenSession(ctx context.Context, uid int64) (string, error) {
	s.pruneSessions(ctx, uid)
	return s.newSession(ctx, uid)
}
