package archive

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"microblog/store"
)

// The private messages (store.DMArchive), in the table direct_messages
// (migrations/<engine>/004_direct_messages.sql): one row per message, and a
// tombstone per deleted one, found by conversation through the pair of its
// users, the lower uid first.

// dmColumns are the stored columns of direct_messages, in the order of
// dmArgs.
const dmColumns = "id, sender, recipient, sender_name, recipient_name, content, created, media, deleted, user_low, user_high"

const dmColumnCount = 11

// dmTombstone ends the INSERT of tombstones: a row already there is
// cleared and marked deleted, its other columns kept.
func (d *dialect) dmTombstone() string {
	return d.replaceWith + "deleted = 1, content = '', media = ''"
}

// SaveDMs writes, in one transaction, new messages (an id already
// archived, or already a tombstone, is left as it is) and tombstones for
// deleted ones (see store.DMArchive). Replaying it changes nothing.
// Every id must be positive.
func (db *DB) SaveDMs(ctx context.Context, put, deleted []store.ArchivedDM) error {
	if len(put)+len(deleted) == 0 {
		return nil
	}
	for _, ms := range [][]store.ArchivedDM{put, deleted} {
		for _, m := range ms {
			if m.ID <= 0 || m.Sender <= 0 || m.Recipient <= 0 {
				return fmt.Errorf("archive: save messages: %w: message %d from %d to %d", store.ErrInvalid, m.ID, m.Sender, m.Recipient)
			}
		}
	}
	// Rows locked in the same order by every save deadlock less on MySQL.
	byDMID := func(a, b store.ArchivedDM) int { return cmp.Compare(a.ID, b.ID) }
	put, deleted = slices.Clone(put), slices.Clone(deleted)
	slices.SortFunc(put, byDMID)
	slices.SortFunc(deleted, byDMID)
	var err error
	for range saveAttempts {
		if err = db.saveDMs(ctx, put, deleted); err == nil || !db.d.retry(err) {
			break
		}
	}
	return wrap(db.d, "save messages", err)
}

func (db *DB) saveDMs(ctx context.Context, put, deleted []store.ArchivedDM) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, part := range []struct {
		ms         []store.ArchivedDM
		onConflict string
		tombstones bool
	}{{put, db.d.keepExisting, false}, {deleted, db.d.dmTombstone(), true}} {
		for chunk := range slices.Chunk(part.ms, rowsPerInsert) {
			args := make([]any, 0, len(chunk)*dmColumnCount)
			for _, m := range chunk {
				args = dmArgs(args, m, part.tombstones || m.Deleted)
			}
			row := "(" + strings.Repeat("?, ", dmColumnCount-1) + "?)"
			q := "INSERT INTO direct_messages (" + dmColumns + ") VALUES " +
				strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ") + part.onConflict
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// dmArgs appends the column values of m, in the order of dmColumns.
func dmArgs(args []any, m store.ArchivedDM, tombstone bool) []any {
	if tombstone {
		m.Content, m.Media = "", ""
	}
	low, high := pair(m.Sender, m.Recipient)
	return append(args, m.ID, m.Sender, m.Recipient, m.SenderName, m.RecipientName, m.Content,
		m.Created, m.Media, tombstone, low, high)
}

// pair is a conversation's two users, the lower uid first.
func pair(a, b int64) (int64, int64) { return min(a, b), max(a, b) }

// DMs returns the rows of these ids that exist, tombstones
// included (Deleted set, Content and Media empty).
func (db *DB) DMs(ctx context.Context, ids []int64) (map[int64]store.ArchivedDM, error) {
	found := make(map[int64]store.ArchivedDM, len(ids))
	for chunk := range slices.Chunk(uniq(ids), idsPerQuery) {
		rows, err := db.read.QueryContext(ctx, "SELECT id, sender, recipient, sender_name, recipient_name, content, created, media, deleted"+
			" FROM direct_messages WHERE id IN "+list(len(chunk)), anys(chunk)...)
		if err != nil {
			return nil, wrap(db.d, "direct messages", err)
		}
		for rows.Next() {
			var m store.ArchivedDM
			if err := rows.Scan(&m.ID, &m.Sender, &m.Recipient, &m.SenderName, &m.RecipientName,
				&m.Content, &m.Created, &m.Media, &m.Deleted); err != nil {
				rows.Close()
				return nil, wrap(db.d, "direct messages", err)
			}
			found[m.ID] = m
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, wrap(db.d, "direct messages", err)
		}
	}
	return found, nil
}

// HasDMs returns which of ids have a row (a message or a tombstone),
// in the order of ids, each once.
func (db *DB) HasDMs(ctx context.Context, ids []int64) ([]int64, error) {
	return db.has(ctx, "direct_messages", ids)
}

// ConversationIDs returns the ids of the messages between q.A and q.B that
// are not deleted, newest first, within q's bounds; q.Limit must be
// positive, else the error wraps store.ErrInvalid.
func (db *DB) ConversationIDs(ctx context.Context, q store.ConversationQuery) ([]int64, error) {
	if q.Limit <= 0 {
		return nil, fmt.Errorf("archive: conversation ids: %w: want a positive Limit, got %d", store.ErrInvalid, q.Limit)
	}
	where, args := conversationWhere(q)
	ids, err := column(db.read.QueryContext(ctx, "SELECT id FROM direct_messages WHERE "+where+
		" ORDER BY id DESC LIMIT ?", append(args, q.Limit)...))
	return ids, wrap(db.d, "conversation ids", err)
}

// CountConversation counts the messages between q.A and q.B that are not
// deleted, within q's bounds (q.Limit aside).
func (db *DB) CountConversation(ctx context.Context, q store.ConversationQuery) (int64, error) {
	where, args := conversationWhere(q)
	var n int64
	err := db.read.QueryRowContext(ctx, "SELECT COUNT(*) FROM direct_messages WHERE "+where, args...).Scan(&n)
	return n, wrap(db.d, "count conversation", err)
}

// conversationWhere is the condition of q's messages (index
// direct_messages_conversation) and its arguments.
func conversationWhere(q store.ConversationQuery) (string, []any) {
	low, high := pair(q.A, q.B)
	where := "user_low = ? AND user_high = ? AND deleted = 0 AND id > ?"
	args := []any{low, high, q.After}
	if q.Before > 0 {
		where += " AND id < ?"
		args = append(args, q.Before)
	}
	return where, args
}
