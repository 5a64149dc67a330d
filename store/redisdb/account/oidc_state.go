package account

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// PutOIDCState keeps record, what an OpenID Connect sign-in started with,
// under state for ttl. The store keeps it as given: only the server reads
// it. The key holds the state's hash, as the state itself travels in URLs.
func (s *Accounts) PutOIDCState(ctx context.Context, state string, record []byte, ttl time.Duration) error {
	if err := s.rdb.Set(ctx, s.keys.OIDCState(store.TokenHash(state)), record, ttl).Err(); err != nil {
		return s.core.Wrap("put oidc state", err)
	}
	return nil
}

// TakeOIDCState returns the record kept under state and deletes it in the
// same command, so that a state is good for one callback only, however
// many come at once. A state never kept, already taken or expired is
// store.ErrNotFound.
func (s *Accounts) TakeOIDCState(ctx context.Context, state string) ([]byte, error) {
	record, err := s.rdb.GetDel(ctx, s.keys.OIDCState(store.TokenHash(state))).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, store.NewError(store.ErrNotFound, store.CodeNotFound, "no such sign-in state")
	}
	if err != nil {
		return nil, s.core.Wrap("take oidc state", err)
	}
	return record, nil
}
