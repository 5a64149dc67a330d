package runner

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store/storetest"
)

// failOnce fails the first pipeline that holds a SET of key, after
// sending it unsent: as a master that timed out while the stream's
// answered.
type failOnce struct {
	key    string
	failed atomic.Bool
}

func (f *failOnce) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}
func (f *failOnce) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (f *failOnce) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var keep []redis.Cmder
		var dropped redis.Cmder
		for _, c := range cmds {
			if c.Name() == "set" && len(c.Args()) > 1 && c.Args()[1] == f.key && !f.failed.Load() {
				dropped = c
				continue
			}
			keep = append(keep, c)
		}
		err := next(ctx, keep)
		if dropped != nil {
			f.failed.Store(true)
			dropped.SetErr(errors.New("i/o timeout (test)"))
			return dropped.Err()
		}
		return err
	}
}

// TestAckRetriesWhatGoesWithIt: when what goes with an acknowledgement
// fails while the entries are acknowledged and deleted (on a cluster they
// are on different masters), it is sent again: nothing else would ever do
// it (a fan-out's in-flight mark stayed for good).
func TestAckRetriesWhatGoesWithIt(t *testing.T) {
	rdb := storetest.Start(t).Client()
	ctx := context.Background()
	if err := rdb.XGroupCreateMkStream(ctx, "q", "g", "0").Err(); err != nil {
		t.Fatal(err)
	}
	id := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "q", Values: []any{"job", "1"}}).Val()
	rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"q", ">"}, Count: 1})
	hook := &failOnce{key: "done"}
	rdb.AddHook(hook)
	c := newConsumer(rdb, "q", "g", "test", 1, time.Second, slog.New(slog.DiscardHandler))
	c.ack(ctx, []string{id}, func(ctx context.Context, pl redis.Pipeliner) { pl.Set(ctx, "done", "1", 0) })
	if !hook.failed.Load() {
		t.Fatal("the SET never met its failure: the test shows nothing")
	}
	if n := rdb.XLen(ctx, "q").Val(); n != 0 {
		t.Fatalf("the stream holds %d entries, want the acknowledged one deleted", n)
	}
	if v := rdb.Get(ctx, "done").Val(); v != "1" {
		t.Fatalf("what goes with the acknowledgement was not done again: done=%q", v)
	}
}

// TestAckTrimsDoneEntries: an acknowledgement takes out of the stream every
// entry older than the oldest not done (queue_ack.lua), not the entries
// acknowledged one by one: entries done behind one still in hand stay until
// it is done, and entries not yet read stay.
func TestAckTrimsDoneEntries(t *testing.T) {
	rdb := storetest.Start(t).Client()
	ctx := context.Background()
	if err := rdb.XGroupCreateMkStream(ctx, "q", "g", "0").Err(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 5 {
		ids = append(ids, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "q", Values: []any{"job", i}}).Val())
	}
	// Two consumers take the first four; the fifth is not read yet.
	rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "a", Streams: []string{"q", ">"}, Count: 2})
	rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "b", Streams: []string{"q", ">"}, Count: 2})
	c := newConsumer(rdb, "q", "g", "test", 2, time.Second, slog.New(slog.DiscardHandler))
	left := func() []string {
		t.Helper()
		var out []string
		for _, m := range rdb.XRange(ctx, "q", "-", "+").Val() {
			out = append(out, m.ID)
		}
		return out
	}
	c.ack(ctx, ids[2:4], nil) // b's, behind a's
	if got := left(); !slices.Equal(got, ids) {
		t.Fatalf("after b's acknowledgement the stream holds %v, want all of %v (a's still in hand)", got, ids)
	}
	if n := rdb.XPending(ctx, "q", "g").Val().Count; n != 2 {
		t.Fatalf("%d pending, want a's 2", n)
	}
	c.ack(ctx, ids[:1], nil)
	if got := left(); !slices.Equal(got, ids[1:]) {
		t.Fatalf("after a's first the stream holds %v, want %v", got, ids[1:])
	}
	c.ack(ctx, ids[1:2], nil)
	if got := left(); !slices.Equal(got, ids[4:]) {
		t.Fatalf("with every read entry done the stream holds %v, want the unread %v", got, ids[4:])
	}
	rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "a", Streams: []string{"q", ">"}, Count: 1})
	c.ack(ctx, ids[4:], nil)
	if n := rdb.XLen(ctx, "q").Val(); n != 0 {
		t.Fatalf("the stream holds %d entries with all done, want 0", n)
	}
}
