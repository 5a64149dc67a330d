package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"microblog/store"
)

// SaveLikes adds likes (one already there is left as it is) and takes
// unlikes away, in one transaction (see store.Archive). Replaying it changes
// nothing.
func (db *DB) SaveLikes(ctx context.Context, likes, unlikes []store.ArchivedLike) error {
	if len(likes)+len(unlikes) == 0 {
		return nil
	}
	for _, ls := range [][]store.ArchivedLike{likes, unlikes} {
		for _, l := range ls {
			if l.MID <= 0 || l.UID <= 0 {
				return fmt.Errorf("archive: save likes: %w: like of message %d by user %d", store.ErrInvalid, l.MID, l.UID)
			}
		}
	}
	var err error
	for range saveAttempts {
		if err = db.saveLikes(ctx, likes, unlikes); err == nil || !db.d.retry(err) {
			break
		}
	}
	return wrap(db.d, "save likes", err)
}

func (db *DB) saveLikes(ctx context.Context, likes, unlikes []store.ArchivedLike) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
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
	for _, l := range unlikes {
		if _, err := tx.ExecContext(ctx, "DELETE FROM likes WHERE mid = ? AND uid = ?", l.MID, l.UID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Liked returns which of the messages ids uid likes, in the order of ids.
func (db *DB) Liked(ctx context.Context, uid int64, ids []int64) ([]int64, error) {
	ids = uniq(ids)
	found := make(map[int64]bool, len(ids))
	for chunk := range slices.Chunk(ids, idsPerQuery) {
		got, err := column(db.read.QueryContext(ctx, "SELECT mid FROM likes WHERE uid = ? AND mid IN "+list(len(chunk)),
			append([]any{uid}, anys(chunk)...)...))
		if err != nil {
			return nil, wrap(db.d, "liked", err)
		}
		for _, mid := range got {
			found[mid] = true
		}
	}
	return slices.DeleteFunc(ids, func(mid int64) bool { return !found[mid] }), nil
}
