package hub_test

import (
	"context"

	"microblog/store"
)

// addDM writes a private message from one user to another in both
// users' messages, as the store does before publishing it; it gets the
// next message id.
func (tl *fakeTimeline) addDM(from, to int64) store.DM {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.messages == nil {
		tl.messages = make(map[int64][]store.DM)
	}
	tl.lastMessageID++
	m := store.DM{ID: tl.lastMessageID, Sender: store.Party{ID: from}, Recipient: store.Party{ID: to},
		Content: "psst", Media: []store.Media{}}
	tl.messages[from] = append(tl.messages[from], m)
	tl.messages[to] = append(tl.messages[to], m)
	return m
}

// DMsSince returns the newest max messages of uid after the id,
// oldest first, as store.Store does.
func (tl *fakeTimeline) DMsSince(ctx context.Context, uid, after int64, max int) ([]store.DM, error) {
	return call(ctx, tl, "DMsSince", uid, func() []store.DM {
		var out []store.DM
		for _, m := range tl.messages[uid] {
			if m.ID > after {
				out = append(out, m)
			}
		}
		return out[len(out)-min(max, len(out)):]
	})
}

func (tl *fakeTimeline) LastDMID(ctx context.Context, uid int64) (int64, error) {
	return call(ctx, tl, "LastDMID", uid, func() int64 {
		if ms := tl.messages[uid]; len(ms) > 0 {
			return ms[len(ms)-1].ID
		}
		return 0
	})
}

// message sends a private message the way the store does: both users'
// messages first, then the live event on both users' notify topics. It
// returns the message's id.
func (th *testHub) message(from, to int64) int64 {
	m := th.tl.addDM(from, to)
	for _, uid := range []int64{from, to} {
		th.broker.publish(store.NotifyTopic(uid), store.EventDM, m)
	}
	return m.ID
}
