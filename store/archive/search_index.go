package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"microblog/store"
)

// reindex brings the index rows of messages ids up to date with their rows
// in tx, as saved a moment ago: a post's row gets the grams of its content
// as it now reads (a replayed put or an older edit changed nothing), a
// post's tombstone loses its row, and comments have none; and so do their
// topic rows (retag).
func (db *DB) reindex(ctx context.Context, tx *sql.Tx, ids []int64) error {
	if err := db.retag(ctx, tx, ids); err != nil {
		return err
	}
	for chunk := range slices.Chunk(uniq(ids), idsPerQuery) {
		rows, err := tx.QueryContext(ctx, selectPosts+list(len(chunk))+db.search().lockRead, anys(chunk)...)
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		posts, gone, err := readPosts(rows)
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if err := db.putIndex(ctx, tx, posts); err != nil {
			return err
		}
		if err := db.dropIndex(ctx, tx, gone); err != nil {
			return err
		}
	}
	return nil
}

// selectPosts starts the query of the rows (id, kind, content, deleted) of
// the ids of a list. By id alone, so that the planners take the primary key
// (with kind in the WHERE clause, SQLite would scan the index of every
// post).
const selectPosts = "SELECT id, kind, content, deleted FROM messages WHERE id IN "

// eachRow calls f with each row of (id, kind, content, deleted).
func eachRow(rows *sql.Rows, f func(candidate)) error {
	defer rows.Close()
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.kind, &c.content, &c.deleted); err != nil {
			return err
		}
		f(c)
	}
	return rows.Err()
}

// readPosts reads rows of (id, kind, content, deleted): the posts, and the
// ids of the posts' tombstones.
func readPosts(rows *sql.Rows) (posts []candidate, gone []int64, err error) {
	err = eachRow(rows, func(c candidate) {
		switch {
		case c.kind != store.KindPost:
		case c.deleted:
			gone = append(gone, c.id)
		default:
			posts = append(posts, c)
		}
	})
	return posts, gone, err
}

// putIndex writes the index rows of posts, rowsPerInsert a statement.
func (db *DB) putIndex(ctx context.Context, tx *sql.Tx, posts []candidate) error {
	e := db.search()
	args := make([]any, 0, 2*min(len(posts), rowsPerInsert))
	var text []byte
	for chunk := range slices.Chunk(posts, rowsPerInsert) {
		args = args[:0]
		for _, p := range chunk {
			text = e.text(text[:0], p.id, p.content)
			args = append(args, p.id, string(text))
		}
		q := e.put + strings.TrimSuffix(strings.Repeat("(?, ?), ", len(chunk)), ", ") + e.putEnd
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	return nil
}

// dropIndex takes the index rows of ids out.
func (db *DB) dropIndex(ctx context.Context, tx *sql.Tx, ids []int64) error {
	for chunk := range slices.Chunk(ids, idsPerQuery) {
		if _, err := tx.ExecContext(ctx, db.search().del+list(len(chunk)), anys(chunk)...); err != nil {
			return fmt.Errorf("unindex: %w", err)
		}
	}
	return nil
}

// savedIDs are the ids of the messages of a Save.
func savedIDs(lists ...[]store.Archived) []int64 {
	var ids []int64
	for _, ms := range lists {
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// migrationHint tells an operator what a migration's failure asks of them.
func migrationHint(err error) string {
	var e *mysql.MySQLError
	if errors.As(err, &e) && e.Number == 1286 { // unknown storage engine
		return " (the search index needs the Mroonga storage engine: install the package mariadb-plugin-mroonga on the database server and run INSTALL SONAME 'ha_mroonga'; see README.md)"
	}
	return ""
}
