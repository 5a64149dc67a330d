package dm

import (
	"context"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Private messages reach the archive as posts do: each message, and each
// delete, is queued on archive:queue (kinds pm_put and pm_del) in the
// pipeline that writes it, and the archiver saves them with the batch. Once
// a message is archived and has left its conversation's hot window (the
// newest ConversationWindow ids of conv:<uid>:<other>), the archiver takes
// it out of that side and deletes its hash, and raises the side's mark in
// conv:<uid>:archived: readers go on in the archive below it. So a
// conversation's memory in Redis stays the same however long it grows.

// queueArchiveDM adds a message (archiveDMPut) or its delete to a
// pipeline, as one entry carrying the whole row. A delete is queued even
// when Redis is out of memory.
func (s *DMs) queueArchiveDM(ctx context.Context, pl redis.Pipeliner, op string, a store.ArchivedDM) {
	s.core.QueueArchiveRow(ctx, pl, op, a, op == schema.ArchiveDMDelete)
}

// archivedDM is m as the archive keeps it.
func archivedDM(m *store.DM) store.ArchivedDM {
	return store.ArchivedDM{ID: m.ID, Sender: m.Sender.ID, Recipient: m.Recipient.ID,
		SenderName: m.Sender.Username, RecipientName: m.Recipient.Username, Content: m.Content,
		Created: int64(m.CreatedAt), Media: reqpath.JSONOr(m.Media, "[]")}
}
