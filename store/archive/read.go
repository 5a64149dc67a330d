package archive

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"microblog/store"
)

// idsPerQuery is how many ids one query lists: long lists are
// read in chunks, far below SQLite's 32,766 parameters.
const idsPerQuery = 500

// selectPost reads a message with its counters, derived from the
// comments and reposts that are not deleted (indexes messages_parent and
// messages_repost_of) and from its likes (the likes table's key).
const selectPost = "SELECT " + columns + `,
	(SELECT COUNT(*) FROM messages c WHERE c.parent = m.id AND c.deleted = 0),
	(SELECT COUNT(*) FROM messages r WHERE r.repost_of = m.id AND r.deleted = 0),
	(SELECT COUNT(*) FROM likes l WHERE l.mid = m.id)
	FROM messages m WHERE m.id IN `

// Messages returns the rows of these ids that exist, tombstones included
// (Deleted set, Content, Mentions, Tags, Media and History empty), each with its
// CommentsCount and RepostsCount.
func (db *DB) Posts(ctx context.Context, ids []int64) (map[int64]store.Archived, error) {
	found := make(map[int64]store.Archived, len(ids))
	for chunk := range slices.Chunk(uniq(ids), idsPerQuery) {
		if err := db.posts(ctx, chunk, found); err != nil {
			return nil, wrap(db.d, "messages", err)
		}
	}
	return found, nil
}

func (db *DB) posts(ctx context.Context, ids []int64, found map[int64]store.Archived) error {
	rows, err := db.read.QueryContext(ctx, selectPost+list(len(ids)), anys(ids)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var m store.Archived
		if err := rows.Scan(&m.ID, &m.Kind, &m.Author, &m.Username, &m.Content, &m.Created,
			&m.RepostOf, &m.Parent, &m.Mentions, &m.Tags, &m.Media, &m.Deleted, &m.Edited, &m.History, &m.Poll, &m.Spoiler, &m.URL,
			&m.CommentsCount, &m.RepostsCount, &m.LikesCount); err != nil {
			return err
		}
		found[m.ID] = m
	}
	return rows.Err()
}

// Has returns which of ids have a row (a message or a tombstone), in the
// order of ids, each once.
func (db *DB) Has(ctx context.Context, ids []int64) ([]int64, error) {
	return db.has(ctx, "messages", ids)
}

// has returns which of ids have a row in table, in the order of ids, each once.
func (db *DB) has(ctx context.Context, table string, ids []int64) ([]int64, error) {
	ids = uniq(ids)
	found := make(map[int64]bool, len(ids))
	for chunk := range slices.Chunk(ids, idsPerQuery) {
		got, err := column(db.read.QueryContext(ctx, "SELECT id FROM "+table+" WHERE id IN "+list(len(chunk)), anys(chunk)...))
		if err != nil {
			return nil, wrap(db.d, "has", err)
		}
		for _, id := range got {
			found[id] = true
		}
	}
	return slices.DeleteFunc(ids, func(id int64) bool { return !found[id] }), nil
}

// IDs returns the ids q selects, newest first, or with q.Ascending the
// oldest, oldest first (see store.ArchiveQuery).
// Exactly one of q.Authors (which may be empty, selecting nothing), q.Parent,
// q.Public and q.Tag must be set, and q.Limit must be positive; else the error
// wraps store.ErrInvalid.
func (db *DB) IDs(ctx context.Context, q store.ArchiveQuery) ([]int64, error) {
	n := 0
	for _, set := range []bool{q.Authors != nil, q.Parent != 0, q.Public, q.Tag != "", q.CommentsBy != 0} {
		if set {
			n++
		}
	}
	if n != 1 || q.Limit <= 0 {
		return nil, fmt.Errorf("archive: ids: %w: want exactly one of Authors, Parent, Public, Tag and CommentsBy, and a positive Limit; got %d and Limit %d",
			store.ErrInvalid, n, q.Limit)
	}
	var ids []int64
	var err error
	switch {
	case q.Parent != 0:
		ids, err = db.page(ctx, q, "parent = ?", q.Parent)
	case q.CommentsBy != 0: // a seek on messages_author (author, kind, deleted, id)
		ids, err = db.page(ctx, q, "author = ? AND kind = ?", q.CommentsBy, store.KindComment)
	case q.Public:
		ids, err = db.page(ctx, q, "kind = ?", store.KindPost)
	case q.Tag != "":
		ids, err = db.tagPage(ctx, q)
	default:
		ids, err = db.ofAuthors(ctx, q)
	}
	return ids, wrap(db.d, "ids", err)
}

// ofAuthors reads each author's newest posts by a seek of its own on
// messages_author (author, kind, deleted, id), Limit at most, and merges
// them. With an IN list instead, the planners may scan the whole table
// backwards, which for authors who posted long ago means every row. A query
// reads d.authorsPerQuery authors, one branch of a UNION ALL each; once
// Limit ids are at hand, later queries need only look above the oldest.
func (db *DB) ofAuthors(ctx context.Context, q store.ArchiveQuery) ([]int64, error) {
	authors, per := uniq(q.Authors), db.d.authorsPerQuery
	if q.Ascending && q.Before == 0 {
		// merge lowers Before as After rises in a newest-first read: the
		// prepared query must have its bound from the start.
		q.Before = math.MaxInt64
	}
	var full *sql.Stmt // the query of a full chunk, when more than one will run
	if len(authors) >= 2*per {
		s, _ := authorsSQL(q, authors[:per])
		var err error
		if full, err = db.read.PrepareContext(ctx, s); err != nil {
			return nil, err
		}
		defer full.Close()
	}
	var ids []int64
	merge := func() {
		if q.Ascending { // once Limit are at hand, later queries look below the newest
			slices.Sort(ids)
			if len(ids) >= q.Limit {
				ids = ids[:q.Limit]
				if last := ids[q.Limit-1]; q.Before == 0 || last < q.Before {
					q.Before = last
				}
			}
			return
		}
		slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) })
		if len(ids) >= q.Limit {
			ids = ids[:q.Limit]
			q.After = max(q.After, ids[q.Limit-1])
		}
	}
	for chunk := range slices.Chunk(authors, per) {
		s, args := authorsSQL(q, chunk)
		var got []int64
		var err error
		if full != nil && len(chunk) == per {
			got, err = column(full.QueryContext(ctx, args...))
		} else {
			got, err = column(db.read.QueryContext(ctx, s, args...))
		}
		if err != nil {
			return nil, err
		}
		if ids = append(ids, got...); len(ids) >= 2*q.Limit {
			merge() // amortized: a sort per Limit ids gathered
		}
	}
	merge()
	return ids, nil
}

// authorsSQL is the query of ofAuthors for the authors of chunk, and its
// arguments.
func authorsSQL(q store.ArchiveQuery, chunk []int64) (string, []any) {
	if len(chunk) == 1 {
		return pageSQL(q, "author = ? AND kind = ?", chunk[0], store.KindPost)
	}
	var b strings.Builder
	var args []any
	b.WriteString("SELECT id FROM (")
	for i, author := range chunk {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		page, pageArgs := pageSQL(q, "author = ? AND kind = ?", author, store.KindPost)
		fmt.Fprintf(&b, "SELECT id FROM (%s) AS a%d", page, i)
		args = append(args, pageArgs...)
	}
	b.WriteString(") AS u ORDER BY id " + order(q) + " LIMIT ?")
	return b.String(), append(args, q.Limit)
}

// page returns the newest ids (with q.Ascending the oldest) of the messages that are not deleted and that
// where (with its args) selects, within q's bounds.
func (db *DB) page(ctx context.Context, q store.ArchiveQuery, where string, args ...any) ([]int64, error) {
	s, args := pageSQL(q, where, args...)
	return column(db.read.QueryContext(ctx, s, args...))
}

// pageSQL is the query of page and its arguments.
func pageSQL(q store.ArchiveQuery, where string, args ...any) (string, []any) {
	s := "SELECT id FROM messages WHERE " + where + " AND deleted = 0 AND id > ?"
	args = append(args, q.After)
	if q.Before > 0 {
		s += " AND id < ?"
		args = append(args, q.Before)
	}
	return s + " ORDER BY id " + order(q) + " LIMIT ?", append(args, q.Limit)
}

// order is the SQL order of q's ids: DESC (newest first), or ASC with
// q.Ascending.
func order(q store.ArchiveQuery) string {
	if q.Ascending {
		return "ASC"
	}
	return "DESC"
}

// column reads the rows of a query of one integer column.
func column(rows *sql.Rows, err error) ([]int64, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// list is the parenthesized list of n placeholders.
func list(n int) string { return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")" }

func anys(ids []int64) []any {
	a := make([]any, len(ids), len(ids)+1)
	for i, id := range ids {
		a[i] = id
	}
	return a
}

// uniq returns ids without repeats, in their first order, as a new slice.
func uniq(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
