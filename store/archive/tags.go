package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"microblog/store"
)

// retag brings the topic rows (table tags) of messages ids up to date with
// their rows in tx, as saved a moment ago: a post's or comment's rows are
// the topics it now carries (a replayed put or an older edit changes
// nothing), a tombstone has none.
func (db *DB) retag(ctx context.Context, tx *sql.Tx, ids []int64) error {
	for chunk := range slices.Chunk(uniq(ids), idsPerQuery) {
		rows, err := tx.QueryContext(ctx, "SELECT id, kind, tags, deleted FROM messages WHERE id IN "+list(len(chunk))+db.search().lockRead, anys(chunk)...)
		if err != nil {
			return fmt.Errorf("topics: %w", err)
		}
		tagged, err := readTags(rows)
		if err != nil {
			return fmt.Errorf("topics: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM tags WHERE mid IN "+list(len(chunk)), anys(chunk)...); err != nil {
			return fmt.Errorf("topics: %w", err)
		}
		if err := putTags(ctx, tx, tagged, ""); err != nil {
			return err
		}
	}
	return nil
}

// tagRow is one row of the table tags.
type tagRow struct {
	tag string
	mid int64
}

// readTags reads rows of (id, kind, tags, deleted) into the topic rows of
// the posts that are not deleted, each topic once per post.
func readTags(rows *sql.Rows) ([]tagRow, error) {
	defer rows.Close()
	var out []tagRow
	for rows.Next() {
		var mid int64
		var kind, tags string
		var deleted bool
		if err := rows.Scan(&mid, &kind, &tags, &deleted); err != nil {
			return nil, err
		}
		if kind != store.KindPost && kind != store.KindComment || deleted || tags == "" || tags == "[]" {
			continue
		}
		var list []string
		if json.Unmarshal([]byte(tags), &list) != nil {
			continue // unreadable topics index nothing, as in Redis
		}
		var seen []string
		for _, t := range list {
			if key := store.TagKey(t); !slices.Contains(seen, key) {
				seen = append(seen, key)
				out = append(out, tagRow{tag: key, mid: mid})
			}
		}
	}
	return out, rows.Err()
}

// putTags inserts topic rows, rowsPerInsert a statement, each ending with
// onConflict (empty: none may exist).
func putTags(ctx context.Context, tx *sql.Tx, tags []tagRow, onConflict string) error {
	args := make([]any, 0, 2*min(len(tags), rowsPerInsert))
	for chunk := range slices.Chunk(tags, rowsPerInsert) {
		args = args[:0]
		for _, t := range chunk {
			args = append(args, t.tag, t.mid)
		}
		q := "INSERT INTO tags (tag, mid) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?), ", len(chunk)), ", ") + onConflict
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("topics: %w", err)
		}
	}
	return nil
}

// tagPage returns the newest ids (with q.Ascending the oldest) of the posts that carry topic key and are
// not deleted, within q's bounds.
func (db *DB) tagPage(ctx context.Context, q store.ArchiveQuery) ([]int64, error) {
	s := "SELECT t.mid FROM tags t JOIN messages m ON m.id = t.mid WHERE t.tag = ? AND m.deleted = 0 AND t.mid > ?"
	args := []any{q.Tag, q.After}
	if q.Before > 0 {
		s += " AND t.mid < ?"
		args = append(args, q.Before)
	}
	return column(db.read.QueryContext(ctx, s+" ORDER BY t.mid "+order(q)+" LIMIT ?", append(args, q.Limit)...))
}

// tagBackfillOnce indexes the topics of the next chunk of the posts
// archived before the table tags existed (migration 006 noted where they
// end), newest first; false once none is left. A chunk done twice changes
// nothing.
func (db *DB) tagBackfillOnce(ctx context.Context) (more bool, err error) {
	return db.backfillStep(ctx, "tags_backfill", func(tx *sql.Tx, next int64) ([]int64, error) {
		ids, err := column(tx.QueryContext(ctx, "SELECT id FROM messages WHERE kind = ? AND deleted = 0 AND id < ? ORDER BY id DESC LIMIT ?",
			store.KindPost, next, backfillChunk))
		if err != nil {
			return nil, err
		}
		return ids, db.retag(ctx, tx, ids)
	})
}
