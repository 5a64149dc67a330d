package redisdb

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// The checker's pass over private messages, after the posts' (checker.go),
// under the same lock. On one Redis a message is written in one
// transaction; on a cluster its hash goes first and its two sides after,
// so a process that stops in between leaves a hash no conversation holds.
// The pass walks the ids issued since its checkpoint (repair:messages:
// checkpoint) up to global:messageid, as the posts' pass does, and
// finishes such a message as SendDM would have (both sides, its
// images, its archive entry, its live events), or removes it when a retry
// holds its Idempotency-Key by now.

// Kinds of repair of private messages, the label of microblog_repairs_total.
const (
	repairDMIndexed = "private_message_indexed" // a message no side held, added to both
	repairDMRemoved = "private_message_removed" // a message that could not be finished, removed
)

// checkDMRange checks the private messages lo to hi in order (see
// chunkCheck).
func (c *Checker) checkDMRange(ctx context.Context, lo, hi, floor int64) (chunkResult, error) {
	s := c.s
	n := int(hi - lo + 1)
	hashes := make([]*redis.MapStringStringCmd, n)
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i := range n {
			hashes[i] = pl.HGetAll(ctx, s.keys.DM(lo+int64(i)))
		}
		return nil
	})
	r := chunkResult{settled: lo - 1}
	if err != nil {
		r.stop = true
		return r, s.wrap("repair messages: read", err)
	}
	young := s.now() - c.opt.Grace.Milliseconds()
	for i, h := range hashes {
		pmid, v := lo+int64(i), h.Val()
		if v["sender"] == "" {
			if pmid <= floor {
				r.settled = pmid
			}
			continue // never written (or not yet), or archived away
		}
		if v[schema.FieldDeleted] == "1" { // its sender deleted it: done with
			r.settled = pmid
			continue
		}
		if parseID(v["time"]) > young {
			r.stop = true
			return r, nil
		}
		m := dmOf(pmid, parseID(v["sender"]), parseID(v["recipient"]), v["sender_name"], v["recipient_name"],
			v["content"], parseID(v["time"]), v["media"])
		kind, err := c.finishDM(ctx, m, v[schema.FieldIdem])
		if err != nil {
			r.stop = true
			return r, err
		}
		if kind != "" {
			c.repaired(kind)
			r.mended++
		}
		r.settled = pmid
	}
	return r, nil
}

// finishDM adds m to both sides of its conversation if a side lacks
// it, or removes it when another request holds its Idempotency-Key by now;
// it returns the kind of repair made, or "" for none.
func (c *Checker) finishDM(ctx context.Context, m *store.DM, idem string) (string, error) {
	s := c.s
	from, to := m.Sender.ID, m.Recipient.ID
	var sent, got *redis.FloatCmd
	var moved *redis.FloatCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		sent = pl.ZScore(ctx, s.keys.Conversation(from, to), id(m.ID))
		got = pl.ZScore(ctx, s.keys.Conversation(to, from), id(m.ID))
		moved = pl.ZScore(ctx, s.keys.ConversationsArchived(from), id(to))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.wrap("repair messages: read sides", err)
	}
	if sent.Err() == nil && got.Err() == nil || int64(moved.Val()) >= m.ID {
		return "", nil // whole, or moved to the archive past the window
	}
	d := &dmDraft{msg: *m, row: archivedDM(m)}
	if keyHash, claim, ok := strings.Cut(idem, " "); ok {
		d.idemKey, d.claim, d.reqHash = s.keys.Idempotency(from, keyHash), claim, parseIdem(claim).reqHash
		won, err := schema.IdemFinish.Run(ctx, s.rdb, []string{d.idemKey}, claim,
			dmResult(m.ID, d.reqHash), IdempotencyTTL.Milliseconds()).Int()
		if err != nil {
			return "", s.wrap("repair messages: idempotency", err)
		}
		if won == 0 {
			s.unwriteDM(ctx, d)
			return repairDMRemoved, nil
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return "", s.wrap("repair messages: encode", err)
	}
	frame, indexFrame := store.FrameOf(store.EventDM, raw), []byte(nil)
	if !s.keys.Cluster() { // on a cluster the event follows the writes
		indexFrame = frame
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.queueDMIndex(ctx, pl, d, indexFrame)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", s.wrap("repair messages: index", err)
	}
	if s.keys.Cluster() {
		s.publishDM(ctx, d, frame)
	}
	return repairDMIndexed, nil
}
