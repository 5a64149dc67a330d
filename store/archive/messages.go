package archive

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"microblog/store"
)

// The private messages (store.MessageArchive), in the table direct_messages
// (migrations/<engine>/004_direct_messages.sql): one row per message, and a
// tombstone per deleted one, found by conversation through the pair of its
// users, the lower uid first.

// messageColumns are the stored columns of direct_messages, in the order of
// messageArgs.
const messageColumns = "id, sender, recipient, sender_name, recipient_name, content, created, media, deleted, user_low, user_high"

const messageColumnCount = 11

// messageTombstone ends the INSERT of tombstones: a row already there is
// cleared and marked deleted, its other columns kept.
func (d *dialect) messageTombstone() string {
	return d.replaceWith + "deleted = 1, content = '', media = ''"
}

// SaveMessages writes, in one transaction, new messages (an id already
// archived, or already a tombstone, is left as it is) and tombstones for
// deleted ones (see store.MessageArchive). Replaying it changes nothing.
// Every id must be positive.
func (db *DB) SaveMessages(ctx context.Context, put, deleted []store.ArchivedMessage) error {
	if len(put)+len(deleted) == 0 {
		return nil
	}
	for _, ms := range [][]store.ArchivedMessage{put, deleted} {
		for _, m := range ms {
			if m.ID <= 0 || m.Sender <= 0 || m.Recipient <= 0 {
				return fmt.Errorf("archive: save messages: %w: message %d from %d to %d", store.ErrInvalid, m.ID, m.Sender, m.Recipient)
			}
		}
	}
	// Rows locked in the same order by every save deadlock less on MySQL.
	byMessageID := func(a, b store.ArchivedMessage) int { return cmp.Compare(a.ID, b.ID) }
	put, deleted = slices.Clone(put), slices.Clone(deleted)
	slices.SortFunc(put, byMessageID)
	slices.SortFunc(deleted, byMessageID)
	var err error
	for range saveAttempts {
		if err = db.saveMessages(ctx, put, deleted); err == nil || !db.d.retry(err) {
			break
		}
	}
	return wrap(db.d, "save messages", err)
}

func (db *DB) saveMessages(ctx context.Context, put, deleted []store.ArchivedMessage) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, part := range []struct {
		ms         []store.ArchivedMessage
		onConflict string
		tombstones bool
	}{{put, db.d.keepExisting, false}, {deleted, db.d.messageTombstone(), true}} {
		for chunk := range slices.Chunk(part.ms, rowsPerInsert) {
			args := make([]any, 0, len(chunk)*messageColumnCount)
			for _, m := range chunk {
				args = messageArgs(args, m, part.tombstones || m.Deleted)
			}
			row := "(" + strings.Repeat("?, ", messageColumnCount-1) + "?)"
			q := "INSERT INTO direct_messages (" + messageColumns + ") VALUES " +
				strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ") + part.onConflict
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// messageArgs appends the column values of m, in the order of messageColumns.
func messageArgs(args []any, m store.ArchivedMessage, tombstone bool) []any {
	if tombstone {
		m.Content, m.Media = "", ""
	}
	low, high := pair(m.Sender, m.Recipient)
	return append(args, m.ID, m.Sender, m.Recipient, m.SenderName, m.RecipientName, m.Content,
		m.Created, m.Media, tombstone, low, high)
}

// pair is a conversation's two users, the lower uid first.
func pair(a, b int64) (int64, int64) { return min(a, b), max(a, b) }

// DirectMessages returns the rows of these ids that exist, tombstones
// included (Deleted set, Content and Media empty).
func (db *DB) DirectMessages(ctx context.Context, ids []int64) (map[int64]store.ArchivedMessage, error) {
	found := make(map[int64]store.ArchivedMessage, len(ids))
	for chunk := range slices.Chunk(uniq(ids), idsPerQuery) {
		rows, err := db.read.QueryContext(ctx, "SELECT id, sender, recipient, sender_name, recipient_name, content, created, media, deleted"+
			" FROM direct_messages WHERE id IN "+list(len(chunk)), anys(chunk)...)
		if err != nil {
			return nil, wrap(db.d, "direct messages", err)
		}
		for rows.Next() {
			var m store.ArchivedMessage
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

// HasMessages returns which of ids have a row (a message or a tombstone),
// in the order of ids, each once.
func (db *DB) HasMessages(ctx context.Context, ids []int64) ([]int64, error) {
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
