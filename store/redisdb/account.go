package redisdb

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store/redisdb/account"
)

// The accounts (sessions, passwords, names, OAuth, OIDC state, the login
// guard, app state, the archive's identity, other sign-in services) live in
// package account; the Store embeds them. Deleting an account and reading
// users stay here (account_delete.go, account_users.go): they reach every
// other area.

// ErrOtherHistory means Redis and the archive hold different histories: the
// server must not serve them together.
var ErrOtherHistory = account.ErrOtherHistory

// IdentityArchive is what CheckIdentity needs of an archive.
type IdentityArchive = account.IdentityArchive

// accountCore is what the accounts ask of the Store (account.Core).
type accountCore struct{ *Store }

func (c accountCore) Username(ctx context.Context, uid int64) (string, error) {
	return c.username(ctx, uid)
}

func (c accountCore) IndexUser(ctx context.Context, pl redis.Pipeliner, uid int64, lowerName string) {
	c.indexUser(ctx, pl, uid, lowerName)
}

func (c accountCore) Touch(ctx context.Context, uid int64) error {
	_, _, err := c.touch(ctx, uid, nil)
	return err
}

func (c accountCore) KeysMatching(ctx context.Context, pattern string) ([]string, error) {
	return c.keysMatching(ctx, pattern)
}

func (c accountCore) Publish(ctx context.Context, channel, event string, data any) {
	c.publish(ctx, channel, event, data)
}

func (c accountCore) QueuePublish(ctx context.Context, pl redis.Pipeliner, channel, event string, data any) {
	c.queuePublish(ctx, pl, channel, event, data)
}
