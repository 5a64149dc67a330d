package runner

import (
	"context"
	"errors"
	"log/slog"
	"net"
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
