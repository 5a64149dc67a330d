package dm

import (
	"context"
	"encoding/json"
	"microblog/store/redisdb/internal/reqpath"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// What the checker (package runner) asks of the private messages to finish
// what a stopped request left half written: the same steps SendDM takes,
// from the message as read back from Redis.

// FinishDM adds private message pmid (v: its hash), which a stopped
// request left, to
// both sides of its conversation if a side lacks it, or removes it when another request holds its Idempotency-Key by now;
// it returns the kind of repair made, or "" for none.
func (s *DMs) FinishDM(ctx context.Context, pmid int64, v map[string]string) (string, error) {
	m := dmOf(pmid, parseID(v["sender"]), parseID(v["recipient"]), v["sender_name"], v["recipient_name"],
		v["content"], parseID(v["time"]), v["media"])
	idem := v[schema.FieldIdem]
	from, to := m.Sender.ID, m.Recipient.ID
	var sent, got *redis.FloatCmd
	var moved *redis.FloatCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		sent = pl.ZScore(ctx, s.keys.Conversation(from, to), id(m.ID))
		got = pl.ZScore(ctx, s.keys.Conversation(to, from), id(m.ID))
		moved = pl.ZScore(ctx, s.keys.ConversationsArchived(from), id(to))
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return "", s.core.Wrap("repair messages: read sides", err)
	}
	if sent.Err() == nil && got.Err() == nil || int64(moved.Val()) >= m.ID {
		return "", nil // whole, or moved to the archive past the window
	}
	d := &dmDraft{msg: *m, row: archivedDM(m)}
	if keyHash, claim, ok := strings.Cut(idem, " "); ok {
		d.idemKey, d.claim, d.reqHash = s.keys.Idempotency(from, keyHash), claim, schema.ParseIdem(claim).ReqHash
		won, err := schema.IdemFinish.Run(ctx, s.rdb, []string{d.idemKey}, claim,
			schema.DMResult(m.ID, d.reqHash), schema.IdempotencyTTL.Milliseconds()).Int()
		if err != nil {
			return "", s.core.Wrap("repair messages: idempotency", err)
		}
		if won == 0 {
			s.unwriteDM(ctx, d)
			return schema.RepairDMRemoved, nil
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return "", s.core.Wrap("repair messages: encode", err)
	}
	frame, indexFrame := store.FrameOf(store.EventDM, raw), []byte(nil)
	if !s.keys.Cluster() { // on a cluster the event follows the writes
		indexFrame = frame
	}
	piped, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queueDMIndex(ctx, pl, d, indexFrame)
		return nil
	})
	if err := reqpath.PipeErr(piped, err); err != nil {
		return "", s.core.Wrap("repair messages: index", err)
	}
	if s.keys.Cluster() {
		s.publishDM(ctx, d, frame)
	}
	return schema.RepairDMIndexed, nil
}
