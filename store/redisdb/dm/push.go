package dm

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// pushTextMax is how much of a message its push carries, in runes.
const pushTextMax = 140

// queuePush queues the push of a message just written to its recipient's
// devices, when it has any: the pusher runner sends it. A push is a side
// effect of a message that stands, so a failure is logged, not returned.
func (s *DMs) queuePush(ctx context.Context, d *dmDraft) {
	if d.push == nil || d.push.Val() == 0 {
		return
	}
	m := d.msg
	text := []rune(m.Content)
	if len(text) > pushTextMax {
		text = append(text[:pushTextMax-1], '…')
	}
	err := s.rdb.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.PushQueue(), MaxLen: schema.PushQueueMax, Approx: true,
		Values: schema.PushEntry(store.PushJob{UID: m.Recipient.ID, DM: m.ID, Actor: m.Sender.ID, Text: string(text)})}).Err()
	if err != nil {
		slog.WarnContext(ctx, "queue push of message", "id", m.ID, "err", err)
	}
}
