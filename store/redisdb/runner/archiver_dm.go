package runner

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

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
	_, err := a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, d := range del {
			schema.EvictPost.Eval(ctx, pl, []string{a.keys.DM(d.ID)}, "tombstone")
		}
		for _, p := range put {
			for _, sd := range []side{{p.Sender, p.Recipient}, {p.Recipient, p.Sender}} {
				if past[sd] == nil {
					past[sd] = schema.PastWindow.Eval(ctx, pl, []string{a.keys.Conversation(sd.uid, sd.other)},
						s.ConversationWindow(), evictBatch)
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.Wrap("archive: evict messages", err)
	}
	var ids []int64
	for _, c := range past {
		ids = append(ids, pastIDs(c)...)
	}
	if len(ids) == 0 {
		return nil
	}
	has, err := s.Archive().HasDMs(ctx, ids)
	if err != nil {
		return s.Wrap("archive: evict messages", err)
	}
	saved := make(map[int64]bool, len(has))
	for _, pmid := range has {
		saved[pmid] = true
	}
	evicted := 0
	_, err = a.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		gone := map[int64]bool{}
		for sd, c := range past {
			for _, pmid := range pastIDs(c) {
				if !saved[pmid] {
					continue // not archived yet: its own batch moves it
				}
				if !gone[pmid] {
					gone[pmid] = true
					schema.EvictPost.Eval(ctx, pl, []string{a.keys.DM(pmid)}, "message")
				}
				pl.ZAddGT(ctx, a.keys.ConversationsArchived(sd.uid), redis.Z{Score: float64(pmid), Member: sd.other})
				pl.ZRem(ctx, a.keys.Conversation(sd.uid, sd.other), pmid)
			}
		}
		evicted = len(gone)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.Wrap("archive: evict messages", err)
	}
	a.opt.Metrics.Evicted.Add(float64(evicted))
	return nil
}
