package account

import (
	"context"
	"errors"
	"microblog/store/redisdb/internal/reqpath"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// PutOAuth keeps record under (kind, key) for ttl (zero: no expiry).
func (s *Accounts) PutOAuth(ctx context.Context, kind store.OAuthKind, key string, record []byte, ttl time.Duration) error {
	return s.core.Wrap("put oauth "+string(kind), s.rdb.Set(ctx, s.keys.OAuth(kind, key), record, ttl).Err())
}

// OAuthRecord returns the record under (kind, key), sliding its expiry when
// slide is not zero.
func (s *Accounts) OAuthRecord(ctx context.Context, kind store.OAuthKind, key string, slide time.Duration) ([]byte, error) {
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
func (s *Accounts) TakeOAuth(ctx context.Context, kind store.OAuthKind, key string) ([]byte, error) {
	return s.oauthRecord("take oauth "+string(kind), s.rdb.GetDel(ctx, s.keys.OAuth(kind, key)))
}

// oauthRecord is the answer of a command reading one OAuth record.
func (s *Accounts) oauthRecord(op string, cmd *redis.StringCmd) ([]byte, error) {
	b, err := cmd.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, store.NewError(store.ErrNotFound, store.CodeNotFound, "no such oauth record")
	}
	if err != nil {
		return nil, s.core.Wrap(op, err)
	}
	return b, nil
}

// CheckPassword proves a name and password as Login does, without opening
// a session: the OAuth authorize page signs nobody in, it grants a code.
func (s *Accounts) CheckPassword(ctx context.Context, username, password string, at store.Attempt) (store.User, error) {
	uid, err := s.checkPassword(ctx, username, password, at)
	if err != nil {
		return store.User{}, err
	}
	return s.core.User(ctx, uid, uid)
}

// checkPassword returns the uid whose name and password these are. A wrong
// name and a wrong password give the same error, after the same work; both
// count against the name under at's guard.
func (s *Accounts) checkPassword(ctx context.Context, username, password string, at store.Attempt) (int64, error) {
	names := store.LookupNames(username)
	g := guardedLogin{at: at}
	if len(names) > 0 {
		g.name = names[0]
	}
	uid, err := s.findUser(ctx, names)
	if err != nil {
		return 0, s.core.Wrap("login", err)
	}
	if err := s.guardCheck(ctx, g, uid); err != nil {
		return 0, err
	}
	if _, err := s.provePassword(ctx, g, uid, password); err != nil {
		return 0, err
	}
	return uid, nil
}

// OpenOAuthSession opens a session of uid for an OAuth grant: it ends as a
// login's does (a logout everywhere, a suspension), but only
// AuthenticateOAuth accepts its token.
func (s *Accounts) OpenOAuthSession(ctx context.Context, uid int64) (string, error) {
	return s.openSession(ctx, uid, OAuthSession)
}

// AuthenticateOAuth returns the user of a session OpenOAuthSession opened
// and the token's hash; a session opened by signing in is ErrNotLoggedIn.
func (s *Accounts) AuthenticateOAuth(ctx context.Context, token string) (int64, string, error) {
	return s.authenticate(ctx, token, OAuthSession)
}

// migrateOAuthSessions (schema 8) marks as OAuth sessions those that older
// versions opened for OAuth grants as plain sessions, which the native API
// took too: each user's access token has its grant under
// oauth:token:<hash>, and its session under auth:<hash>. A session ended
// meanwhile is not brought back (SET XX), and its expiry is kept.
func (s *Accounts) migrateOAuthSessions(ctx context.Context) error {
	grants, err := s.core.KeysMatching(ctx, s.keys.OAuth(store.OAuthToken, "*"))
	if err != nil {
		return s.core.Wrap("migrate oauth sessions", err)
	}
	prefix := s.keys.OAuth(store.OAuthToken, "")
	for chunk := range slices.Chunk(grants, migrateChunk) {
		gets := make([]*redis.StringCmd, len(chunk))
		cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, k := range chunk {
				gets[i] = p.Get(ctx, s.keys.Session(strings.TrimPrefix(k, prefix)))
			}
			return nil
		})
		if err := reqpath.PipeErr(cmds, err); err != nil {
			return s.core.Wrap("migrate oauth sessions", err)
		}
		_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, k := range chunk {
				if uid, kind, ok := parseSession(gets[i].Val()); ok && kind == NativeSession {
					p.SetArgs(ctx, s.keys.Session(strings.TrimPrefix(k, prefix)), OAuthSession.Value(uid),
						redis.SetArgs{Mode: "XX", KeepTTL: true})
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return s.core.Wrap("migrate oauth sessions", err)
		}
	}
	return nil
}
