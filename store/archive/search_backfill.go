package archive

import (
	"context"
	"database/sql"
	"time"

	"microblog/store"
)

// backfillChunk is how many posts one transaction of the backfill indexes:
// a few milliseconds of the one SQLite writer, so that the archiver's saves
// wait little behind it.
const backfillChunk = 500

// startBackfill indexes, in the background until done or stopped, the posts
// archived before the search index existed (migration 005 noted where they
// end), then the topics of those archived before the topic index (006);
// every process may run it, one chunk at a time, and a chunk done twice
// changes nothing. stop ends it and waits until it has.
func (db *DB) startBackfill() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait := time.Second
		steps := []func(context.Context) (bool, error){db.backfillOnce, db.tagBackfillOnce}
		for len(steps) > 0 {
			more, err := steps[0](ctx)
			if err == nil && !more {
				steps = steps[1:]
				continue
			}
			pause := time.Millisecond // leave the writer to the archiver a moment
			if err != nil {
				pause, wait = wait, min(2*wait, time.Minute) // the database is away: try again later
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}()
	return func() { cancel(); <-done }
}

// backfillOnce indexes the next chunk of the search backfill, newest
// first; false once none is left.
func (db *DB) backfillOnce(ctx context.Context) (more bool, err error) {
	return db.backfillStep(ctx, "search_backfill", func(tx *sql.Tx, next int64) ([]int64, error) {
		rows, err := tx.QueryContext(ctx, "SELECT id, kind, content, deleted FROM messages WHERE kind = ? AND deleted = 0 AND id < ? ORDER BY id DESC LIMIT ?"+
			db.search().lockRead, store.KindPost, next, backfillChunk)
		if err != nil {
			return nil, err
		}
		posts, _, err := readPosts(rows)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(posts))
		for i, p := range posts {
			ids[i] = p.id
		}
		return ids, db.putIndex(ctx, tx, posts)
	})
}

// backfillStep runs one chunk of the backfill whose progress is the row of
// table: index indexes, in tx, the posts below next (at most
// backfillChunk, newest first) and returns their ids; the row then says
// where the next chunk starts, or that none is left (next 1). False once
// none is left.
func (db *DB) backfillStep(ctx context.Context, table string, index func(tx *sql.Tx, next int64) ([]int64, error)) (more bool, err error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var next int64
	// FOR UPDATE: processes take chunks in turns (SQLite's one writer
	// takes them in turns anyway, and does not know the clause).
	q := "SELECT next FROM " + table + " WHERE id = 1"
	if db.search().lockRead != "" {
		q += " FOR UPDATE"
	}
	if err := tx.QueryRowContext(ctx, q).Scan(&next); err != nil || next <= 1 {
		return false, err
	}
	ids, err := index(tx, next)
	if err != nil {
		return false, err
	}
	next = 1 // done
	if len(ids) == backfillChunk {
		next = ids[len(ids)-1]
	}
	if _, err := tx.ExecContext(ctx, "UPDATE "+table+" SET next = ? WHERE id = 1", next); err != nil {
		return false, err
	}
	return next > 1, tx.Commit()
}
