package account

import (
	"context"

	"microblog/store"
)

// What the rest of the request path (package redisdb) does with the
// accounts beyond the store's interfaces. These are functions, not methods,
// so that they do not join the method set of the Store that embeds
// Accounts.

// ProveOwner checks, under at's login guard of uid's own account, that
// password is uid's, as a login would.
func ProveOwner(ctx context.Context, a *Accounts, uid int64, password string, at store.Attempt) error {
	g, err := a.ownGuard(ctx, uid, at)
	if err != nil {
		return err
	}
	if err := a.guardCheck(ctx, g, uid); err != nil {
		return err
	}
	_, err = a.provePassword(ctx, g, uid, password)
	return err
}

// UnlinkAll removes uid's links to other sign-in services.
func UnlinkAll(ctx context.Context, a *Accounts, uid int64) error { return a.unlinkAll(ctx, uid) }

// FreeName removes uid's profile hash and gives its name back.
func FreeName(ctx context.Context, a *Accounts, uid int64, display string) error {
	return a.freeName(ctx, uid, display)
}

// FindUser resolves a typed name's index forms to a uid; 0 when none is taken.
func FindUser(ctx context.Context, a *Accounts, names []string) (int64, error) {
	return a.findUser(ctx, names)
}

// MigrateNames and MigrateOAuthSessions are the accounts' steps of Migrate.
func MigrateNames(ctx context.Context, a *Accounts) error { return a.migrateNames(ctx) }

func MigrateOAuthSessions(ctx context.Context, a *Accounts) error { return a.migrateOAuthSessions(ctx) }

// NewSession opens a session of uid of kind as every way in does, without
// proving who it is: for tests that play an older version.
func NewSession(ctx context.Context, a *Accounts, uid int64, kind SessionKind) (string, error) {
	return a.newSession(ctx, uid, kind)
}
