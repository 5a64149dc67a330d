package archive

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// createIdentity keeps the identity the archive shares with its Redis (see
// redisdb's CheckIdentity): one row, id 1. Like schema_migrations it is
// created when first needed rather than by a numbered migration, and the
// same text suits both engines.
const createIdentity = `CREATE TABLE IF NOT EXISTS archive_identity (
	id         INTEGER     NOT NULL PRIMARY KEY,
	identity   VARCHAR(64) NOT NULL,
	stamped_at BIGINT      NOT NULL
)`

// Identity returns the identity stamped on the archive, or "" when none is.
func (db *DB) Identity(ctx context.Context) (string, error) {
	if _, err := db.write.ExecContext(ctx, createIdentity); err != nil {
		return "", wrap(db.d, "identity: create table", err)
	}
	var id string
	err := db.read.QueryRowContext(ctx, "SELECT identity FROM archive_identity WHERE id = 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, wrap(db.d, "identity: read", err)
}

// StampIdentity stamps the archive with id unless it holds an identity
// already, and returns the one it holds now: id, or the earlier one.
func (db *DB) StampIdentity(ctx context.Context, id string) (string, error) {
	if _, err := db.Identity(ctx); err != nil { // creates the table
		return "", err
	}
	_, err := db.write.ExecContext(ctx,
		"INSERT INTO archive_identity (id, identity, stamped_at) VALUES (1, ?, ?)"+db.d.keepExisting,
		id, time.Now().UnixMilli())
	if err != nil {
		return "", wrap(db.d, "identity: stamp", err)
	}
	return db.Identity(ctx)
}

// NewestIDs returns the highest id of the archived messages and of the
// archived private messages, tombstones included: 0 when there are none.
func (db *DB) NewestIDs(ctx context.Context) (message, direct int64, err error) {
	err = db.read.QueryRowContext(ctx,
		"SELECT (SELECT COALESCE(MAX(id), 0) FROM messages), (SELECT COALESCE(MAX(id), 0) FROM direct_messages)").
		Scan(&message, &direct)
	return message, direct, wrap(db.d, "newest ids", err)
}
