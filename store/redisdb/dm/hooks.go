package dm

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// What the rest of the request path (package redisdb) does with the
// private messages beyond the store's interfaces. These are functions, not
// methods, so that they do not join the method set of the Store that
// embeds DMs.

// OfMe reads what /me shows of uid's messages: how many of its
// conversations are unread, and from whom it takes messages.
func OfMe(ctx context.Context, d *DMs, uid int64) (unread int64, from string, err error) {
	return d.dmsOfMe(ctx, uid)
}

// LeaveConversations removes a deleted account's own side of its
// conversations.
func LeaveConversations(ctx context.Context, d *DMs, uid int64) error {
	return d.leaveConversations(ctx, uid)
}

// WriteHalf claims nm and writes its hash alone, as a request stopped half
// way leaves it on a cluster, and returns its id: for tests of the checker.
func WriteHalf(ctx context.Context, d *DMs, nm store.NewDM) (int64, error) {
	dr := &dmDraft{nm: nm}
	if first, err := d.claimDM(ctx, dr); err != nil || first != nil {
		return 0, fmt.Errorf("claim: %v, %v", first, err)
	}
	_, err := d.rdb.TxPipelined(ctx, func(pl redis.Pipeliner) error { d.queueDM(ctx, pl, dr); return nil })
	return dr.msg.ID, err
}
