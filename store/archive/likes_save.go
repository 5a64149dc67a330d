package archive

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"microblog/store"
)

// Likes and unlikes reach the archive out of order: each process's archiver
// saves its own batches of archive:queue, and a batch a process left is
// taken over and saved late. So every like and unlike carries the version of
// its action (store.ArchivedLike), like_versions keeps the newest version
// saved of each pair (an unlike's stays behind as a tombstone), and a like or
// an unlike changes the likes table only if its version is at least that:
// the pair ends as its newest action left it, in whatever order they came.

// likeAction is one like (liked) or unlike to save.
type likeAction struct {
	store.ArchivedLike
	liked bool
}

// SaveLikes adds likes (one already there is left as it is) and takes
// unlikes away, in one transaction, each only if its version is at least the
// newest saved for its pair (see store.Archive). Replaying it changes
// nothing.
func (db *DB) SaveLikes(ctx context.Context, likes, unlikes []store.ArchivedLike) error {
	if len(likes)+len(unlikes) == 0 {
		return nil
	}
	for _, ls := range [][]store.ArchivedLike{likes, unlikes} {
		for _, l := range ls {
			if l.MID <= 0 || l.UID <= 0 || l.Version < 0 {
				return fmt.Errorf("archive: save likes: %w: like of message %d by user %d, version %d", store.ErrInvalid, l.MID, l.UID, l.Version)
			}
		}
	}
	actions := newestByPair(likes, unlikes)
	var err error
	for range saveAttempts {
		if err = db.saveLikes(ctx, actions); err == nil || !db.d.retry(err) {
			break
		}
	}
	return wrap(db.d, "save likes", err)
}

// newestByPair returns the newest action of each (message, user) pair, an
// unlike before a like of the same version, sorted by pair: rows locked in
// the same order by every SaveLikes deadlock less on MySQL.
func newestByPair(likes, unlikes []store.ArchivedLike) []likeAction {
	newest := make(map[[2]int64]likeAction, len(likes)+len(unlikes))
	for _, ls := range []struct {
		likes []store.ArchivedLike
		liked bool
	}{{likes, true}, {unlikes, false}} {
		for _, l := range ls.likes {
			k := [2]int64{l.MID, l.UID}
			if had, ok := newest[k]; !ok || l.Version >= had.Version {
				newest[k] = likeAction{l, ls.liked}
			}
		}
	}
	out := make([]likeAction, 0, len(newest))
	for _, a := range newest {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b likeAction) int {
		return cmp.Or(cmp.Compare(a.MID, b.MID), cmp.Compare(a.UID, b.UID))
	})
	return out
}

func (db *DB) saveLikes(ctx context.Context, actions []likeAction) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for chunk := range slices.Chunk(actions, rowsPerInsert) {
		won, err := db.raiseVersions(ctx, tx, chunk)
		if err != nil {
			return err
		}
		var likes, unlikes []store.ArchivedLike
		for _, a := range won {
			if a.liked {
				likes = append(likes, a.ArchivedLike)
			} else {
				unlikes = append(unlikes, a.ArchivedLike)
			}
		}
		if err := db.insertLikes(ctx, tx, likes); err != nil {
			return err
		}
		if len(unlikes) > 0 {
			if _, err := tx.ExecContext(ctx, "DELETE FROM likes WHERE "+pairs(len(unlikes)), pairArgs(unlikes)...); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// raiseVersions raises the version of each pair of actions to the action's
// if it is newer, and returns the actions whose version the pair holds now:
// those to apply. The rows stay locked (MySQL; SQLite holds the file) to the
// end of tx, so an action of the same pair saved meanwhile waits, and then
// finds the newer version.
func (db *DB) raiseVersions(ctx context.Context, tx *sql.Tx, actions []likeAction) ([]likeAction, error) {
	args := make([]any, 0, 3*len(actions))
	for _, a := range actions {
		args = append(args, a.MID, a.UID, a.Version)
	}
	q := "INSERT INTO like_versions (mid, uid, version) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(actions)), ", ") + db.d.keepNewestVersion
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return nil, err
	}
	ls := make([]store.ArchivedLike, len(actions))
	for i, a := range actions {
		ls[i] = a.ArchivedLike
	}
	rows, err := tx.QueryContext(ctx, "SELECT mid, uid, version FROM like_versions WHERE "+pairs(len(ls))+db.d.lockRead, pairArgs(ls)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	held := make(map[[2]int64]int64, len(actions))
	for rows.Next() {
		var mid, uid, v int64
		if err := rows.Scan(&mid, &uid, &v); err != nil {
			return nil, err
		}
		held[[2]int64{mid, uid}] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var won []likeAction
	for _, a := range actions {
		if held[[2]int64{a.MID, a.UID}] == a.Version {
			won = append(won, a)
		}
	}
	return won, nil
}

// pairs is the condition that selects n (mid, uid) pairs, for pairArgs.
func pairs(n int) string {
	return strings.TrimSuffix(strings.Repeat("(mid = ? AND uid = ?) OR ", n), " OR ")
}

func pairArgs(ls []store.ArchivedLike) []any {
	args := make([]any, 0, 2*len(ls))
	for _, l := range ls {
		args = append(args, l.MID, l.UID)
	}
	return args
}

// insertLikes adds likes, rowsPerInsert a statement; one already there is
// left as it is.
func (db *DB) insertLikes(ctx context.Context, tx *sql.Tx, likes []store.ArchivedLike) error {
	args := make([]any, 0, 3*min(len(likes), rowsPerInsert))
	for chunk := range slices.Chunk(likes, rowsPerInsert) {
		args = args[:0]
		for _, l := range chunk {
			args = append(args, l.MID, l.UID, l.At)
		}
		q := "INSERT INTO likes (mid, uid, created) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(chunk)), ", ") + db.d.keepLike
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// LikeNow likes (liked) or unlikes an archived message as its user does it
// now, and tells whether the like changed (see store.Archive): in one
// transaction, at l.Version or, when the pair holds one that is not older,
// one above it, so that it wins over every action of the pair saved before
// it, whatever the clock of the process that took it says.
func (db *DB) LikeNow(ctx context.Context, l store.ArchivedLike, liked bool) (bool, error) {
	if l.MID <= 0 || l.UID <= 0 || l.Version < 0 {
		return false, fmt.Errorf("archive: like: %w: like of message %d by user %d, version %d", store.ErrInvalid, l.MID, l.UID, l.Version)
	}
	var changed bool
	var err error
	for range saveAttempts {
		if changed, err = db.likeNow(ctx, l, liked); err == nil || !db.d.retry(err) {
			break
		}
	}
	return changed, wrap(db.d, "like", err)
}

func (db *DB) likeNow(ctx context.Context, l store.ArchivedLike, liked bool) (bool, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var held int64
	err = tx.QueryRowContext(ctx, "SELECT version FROM like_versions WHERE mid = ? AND uid = ?"+db.d.lockRead, l.MID, l.UID).Scan(&held)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	l.Version = max(l.Version, held+1)
	if _, err := tx.ExecContext(ctx, "INSERT INTO like_versions (mid, uid, version) VALUES (?, ?, ?)"+db.d.keepNewestVersion,
		l.MID, l.UID, l.Version); err != nil {
		return false, err
	}
	var one int
	err = tx.QueryRowContext(ctx, "SELECT 1 FROM likes WHERE mid = ? AND uid = ?"+db.d.lockRead, l.MID, l.UID).Scan(&one)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	had := err == nil
	err = nil
	switch {
	case liked && !had:
		err = db.insertLikes(ctx, tx, []store.ArchivedLike{l})
	case !liked && had:
		_, err = tx.ExecContext(ctx, "DELETE FROM likes WHERE mid = ? AND uid = ?", l.MID, l.UID)
	}
	if err != nil {
		return false, err
	}
	return had != liked, tx.Commit()
}
