package archive

import (
	"context"
	"fmt"
	"strings"

	"microblog/store"
)

// editedColumns are what an edit changes of a row; edited comes last, for
// MySQL assigns in order and the others compare against its old value.
var editedColumns = []string{"content", "mentions", "tags", "history", "spoiler", "edited"}

// SaveEdits saves edited messages, whole rows (see store.Archive): a row
// not archived yet is inserted as given, an archived one takes the edit
// when its own is older and it is not a tombstone. Replaying it, or saving
// an older edit after a newer one, changes nothing.
func (db *DB) SaveEdits(ctx context.Context, edits []store.Archived) error {
	if len(edits) == 0 {
		return nil
	}
	for _, m := range edits {
		if m.ID <= 0 {
			return fmt.Errorf("archive: save edits: %w: message id %d", store.ErrInvalid, m.ID)
		}
	}
	edits = byID(edits)
	var err error
	for range saveAttempts {
		if err = db.saveEdits(ctx, edits); err == nil || !db.d.retry(err) {
			break
		}
	}
	return wrap(db.d, "save edits", err)
}

func (db *DB) saveEdits(ctx context.Context, edits []store.Archived) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insert(ctx, tx, edits, editClause(db.d), false); err != nil {
		return err
	}
	if err := db.reindex(ctx, tx, savedIDs(edits)); err != nil {
		return err
	}
	return tx.Commit()
}

// editClause ends the INSERT of SaveEdits: each edited column takes the
// offered value only when the row is no tombstone and its edit is older.
// The same text serves both engines: in SQLite's upsert every bare column is
// the row's old value; in MySQL's the ones assigned before, so edited is
// assigned last.
func editClause(d *dialect) string {
	set := make([]string, len(editedColumns))
	for i, col := range editedColumns {
		set[i] = fmt.Sprintf("%s = CASE WHEN deleted = 0 AND edited < %s THEN %s ELSE %[1]s END",
			col, d.offered("edited"), d.offered(col))
	}
	return d.replaceWith + strings.Join(set, ", ")
}

// Edit edits an archived message in place (see store.Archive): false when
// the row is a tombstone, not there, or was edited since prev.
func (db *DB) Edit(ctx context.Context, m store.Archived, prev int64) (bool, error) {
	if m.ID <= 0 || m.Edited <= prev {
		return false, fmt.Errorf("archive: edit: %w: message id %d edited at %d after %d", store.ErrInvalid, m.ID, m.Edited, prev)
	}
	ok, err := db.edit(ctx, m, prev)
	return ok, wrap(db.d, "edit", err)
}

// edit is Edit in one transaction with the post's index row.
func (db *DB) edit(ctx context.Context, m store.Archived, prev int64) (bool, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx,
		"UPDATE messages SET content = ?, mentions = ?, tags = ?, history = ?, spoiler = ?, edited = ? WHERE id = ? AND deleted = 0 AND edited = ?",
		m.Content, m.Mentions, m.Tags, m.History, m.Spoiler, m.Edited, m.ID, prev)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	if err := db.reindex(ctx, tx, []int64{m.ID}); err != nil {
		return false, err
	}
	return true, tx.Commit()
}
