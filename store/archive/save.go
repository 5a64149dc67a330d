package archive

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"microblog/store"
)

// rowsPerInsert is how many rows one INSERT writes: enough that a Save of
// hundreds of messages costs a few statements, few enough to stay far below
// SQLite's 32,766 parameters and MySQL's packet size.
const rowsPerInsert = 100

// saveAttempts is how often Save runs a transaction the database rolled back
// on its own (a MySQL deadlock between two concurrent Saves).
const saveAttempts = 3

// columns are the stored columns of messages, in the order of rowArgs.
const columns = "id, kind, author, username, content, created, repost_of, parent, mentions, tags, media, deleted, edited, history, poll, spoiler, url"

const columnCount = 17

// Save writes, in one transaction, new messages (an id already archived, or
// already a tombstone, is left as it is; a put with Deleted set is stored
// as a tombstone) and tombstones for deleted ones (see store.Archive).
// Replaying a Save changes nothing. Every id must be positive.
func (db *DB) Save(ctx context.Context, put, deleted []store.Archived) error {
	if len(put)+len(deleted) == 0 {
		return nil
	}
	for _, ms := range [][]store.Archived{put, deleted} {
		for _, m := range ms {
			if m.ID <= 0 {
				return fmt.Errorf("archive: save: %w: message id %d", store.ErrInvalid, m.ID)
			}
		}
	}
	// Rows locked in the same order by every Save deadlock less on MySQL.
	put, deleted = byID(put), byID(deleted)
	var err error
	for range saveAttempts {
		if err = db.save(ctx, put, deleted); err == nil || !db.d.retry(err) {
			break
		}
	}
	return wrap(db.d, "save", err)
}

func (db *DB) save(ctx context.Context, put, deleted []store.Archived) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insert(ctx, tx, put, db.d.keepExisting, false); err != nil {
		return err
	}
	if err := insert(ctx, tx, deleted, db.d.tombstone, true); err != nil {
		return err
	}
	if err := db.reindex(ctx, tx, savedIDs(put, deleted)); err != nil {
		return err
	}
	return tx.Commit()
}

// insert writes ms, rowsPerInsert rows a statement, each statement ending
// with onConflict; tombstones are written with their text cleared.
func insert(ctx context.Context, tx *sql.Tx, ms []store.Archived, onConflict string, tombstones bool) error {
	var full string // the statement of a full chunk, built once
	args := make([]any, 0, min(len(ms), rowsPerInsert)*columnCount)
	for chunk := range slices.Chunk(ms, rowsPerInsert) {
		q := full
		if q == "" || len(chunk) < rowsPerInsert {
			q = insertSQL(len(chunk), onConflict)
			if len(chunk) == rowsPerInsert {
				full = q
			}
		}
		args = args[:0]
		for _, m := range chunk {
			args = rowArgs(args, m, tombstones || m.Deleted)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// insertSQL is the INSERT of n rows.
func insertSQL(n int, onConflict string) string {
	row := "(" + strings.Repeat("?, ", columnCount-1) + "?)"
	var b strings.Builder
	b.Grow(64 + len(columns) + n*(len(row)+2) + len(onConflict))
	b.WriteString("INSERT INTO messages (" + columns + ") VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	b.WriteString(onConflict)
	return b.String()
}

// rowArgs appends the column values of m, in the order of columns.
func rowArgs(args []any, m store.Archived, tombstone bool) []any {
	if tombstone {
		m.Content, m.Mentions, m.Tags, m.Media, m.History, m.Poll, m.Spoiler, m.URL = "", "", "", "", "", "", "", ""
	}
	return append(args, m.ID, m.Kind, m.Author, m.Username, m.Content, m.Created,
		m.RepostOf, m.Parent, m.Mentions, m.Tags, m.Media, tombstone, m.Edited, m.History, m.Poll, m.Spoiler, m.URL)
}

// byID returns ms sorted by id, leaving the caller's slice as it was.
func byID(ms []store.Archived) []store.Archived {
	if slices.IsSortedFunc(ms, cmpID) {
		return ms
	}
	ms = slices.Clone(ms)
	slices.SortFunc(ms, cmpID)
	return ms
}

func cmpID(a, b store.Archived) int { return cmp.Compare(a.ID, b.ID) }
