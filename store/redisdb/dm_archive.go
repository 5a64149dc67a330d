package redisdb

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
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
func (s *Store) queueArchiveDM(ctx context.Context, pl redis.Pipeliner, op string, a store.ArchivedDM) {
	s.queueArchiveRow(ctx, pl, op, a, op == schema.ArchiveDMDelete)
}

// archivedDM is m as the archive keeps it.
func archivedDM(m *store.DM) store.ArchivedDM {
	return store.ArchivedDM{ID: m.ID, Sender: m.Sender.ID, Recipient: m.Recipient.ID,
		SenderName: m.Sender.Username, RecipientName: m.Recipient.Username, Content: m.Content,
		Created: int64(m.CreatedAt), Media: jsonOr(m.Media, "[]")}
}

// parseDMJob reads one pm_put or pm_del entry of the queue into b;
// false when it is malformed.
func (b *archiveBatch) parseDMJob(op, raw string) bool {
	var row store.ArchivedDM
	if err := json.Unmarshal([]byte(raw), &row); err != nil || row.ID == 0 || row.Sender == 0 || row.Recipient == 0 {
		return false
	}
	if op == schema.ArchiveDMDelete {
		b.pmDel = append(b.pmDel, row)
	} else {
		b.pmPut = append(b.pmPut, row)
	}
	return true
}

// isDMJob tells whether a queue entry's op is a private message's.
func isDMJob(op string) bool { return op == schema.ArchiveDMPut || op == schema.ArchiveDMDelete }

// evictDMs moves out of Redis what a saved batch of private messages
// lets go: the tombstones of the deletes it archived, and the messages its
// conversations hold past their window, on each side, once the archive
// has them.
func (a *Archiver) evictDMs(ctx context.Context, put, del []store.ArchivedDM) error {
	s := a.s
	type side struct{ uid, other int64 }
	past := map[side]*redis.Cmd{}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, d := range del {
			schema.EvictPost.Eval(ctx, pl, []string{s.keys.DM(d.ID)}, "tombstone")
		}
		for _, p := range put {
			for _, sd := range []side{{p.Sender, p.Recipient}, {p.Recipient, p.Sender}} {
				if past[sd] == nil {
					past[sd] = schema.PastWindow.Eval(ctx, pl, []string{s.keys.Conversation(sd.uid, sd.other)},
						s.opt.ConversationWindow, evictBatch)
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("archive: evict messages", err)
	}
	var ids []int64
	for _, c := range past {
		ids = append(ids, pastIDs(c)...)
	}
	if len(ids) == 0 {
		return nil
	}
	has, err := s.opt.Archive.HasDMs(ctx, ids)
	if err != nil {
		return s.wrap("archive: evict messages", err)
	}
	saved := make(map[int64]bool, len(has))
	for _, pmid := range has {
		saved[pmid] = true
	}
	evicted := 0
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		gone := map[int64]bool{}
		for sd, c := range past {
			for _, pmid := range pastIDs(c) {
				if !saved[pmid] {
					continue // not archived yet: its own batch moves it
				}
				if !gone[pmid] {
					gone[pmid] = true
					schema.EvictPost.Eval(ctx, pl, []string{s.keys.DM(pmid)}, "message")
				}
				pl.ZAddGT(ctx, s.keys.ConversationsArchived(sd.uid), redis.Z{Score: float64(pmid), Member: sd.other})
				pl.ZRem(ctx, s.keys.Conversation(sd.uid, sd.other), pmid)
			}
		}
		evicted = len(gone)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.wrap("archive: evict messages", err)
	}
	s.opt.Metrics.evicted.Add(float64(evicted))
	return nil
}
