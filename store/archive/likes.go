package archive

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"microblog/store"
)

// Likers returns the uids who like each of the messages mids, by the
// likes table's key; a message no one likes is not in the map.
func (db *DB) Likers(ctx context.Context, mids []int64) (map[int64][]int64, error) {
	out := make(map[int64][]int64)
	for chunk := range slices.Chunk(uniq(mids), idsPerQuery) {
		rows, err := db.read.QueryContext(ctx, "SELECT mid, uid FROM likes WHERE mid IN "+list(len(chunk)), anys(chunk)...)
		if err != nil {
			return nil, wrap(db.d, "likers", err)
		}
		err = eachPair(rows, func(mid, uid int64) { out[mid] = append(out[mid], uid) })
		if err != nil {
			return nil, wrap(db.d, "likers", err)
		}
	}
	return out, nil
}

// eachPair calls f with each row of two integer columns.
func eachPair(rows *sql.Rows, f func(a, b int64)) error {
	defer rows.Close()
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		f(a, b)
	}
	return rows.Err()
}

// Likes returns the likes q selects, newest first (see store.LikeQuery): a
// message's by the likes table's key, a user's by likes_user.
func (db *DB) Likes(ctx context.Context, q store.LikeQuery) ([]store.ArchivedLike, error) {
	if (q.MID > 0) == (q.UID > 0) || q.Limit <= 0 {
		return nil, fmt.Errorf("archive: likes: %w: want one of MID (%d) and UID (%d), and a positive Limit (%d)", store.ErrInvalid, q.MID, q.UID, q.Limit)
	}
	s := "SELECT l.mid, l.uid, l.created FROM likes l WHERE l.mid = ?"
	other, args := "l.uid", []any{q.MID}
	if q.UID > 0 {
		s = "SELECT l.mid, l.uid, l.created FROM likes l JOIN messages m ON m.id = l.mid AND m.deleted = 0 WHERE l.uid = ?"
		other, args = "l.mid", []any{q.UID}
	}
	if q.BeforeAt > 0 {
		s += " AND (l.created < ? OR l.created = ? AND " + other + " < ?)"
		args = append(args, q.BeforeAt, q.BeforeAt, q.BeforeID)
	}
	s += " ORDER BY l.created DESC, " + other + " DESC LIMIT ?"
	rows, err := db.read.QueryContext(ctx, s, append(args, q.Limit)...)
	if err != nil {
		return nil, wrap(db.d, "likes", err)
	}
	defer rows.Close()
	var out []store.ArchivedLike
	for rows.Next() {
		var l store.ArchivedLike
		if err := rows.Scan(&l.MID, &l.UID, &l.At); err != nil {
			return nil, wrap(db.d, "likes", err)
		}
		out = append(out, l)
	}
	return out, wrap(db.d, "likes", rows.Err())
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
