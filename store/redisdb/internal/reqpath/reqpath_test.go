package reqpath

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"microblog/store/storetest"
)

// TestPipeErr: a pipeline whose first command answers nil and whose second
// fails is a failure, though go-redis answers it with redis.Nil; one whose
// only error is a nil reply is not.
func TestPipeErr(t *testing.T) {
	rdb := storetest.Start(t).Client()
	ctx := context.Background()
	rdb.Set(ctx, "word", "abc", 0)
	cmds, err := rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Get(ctx, "missing")
		pl.Incr(ctx, "word")
		return nil
	})
	if !errors.Is(err, redis.Nil) {
		t.Fatalf("go-redis answered %v, want redis.Nil (the first command's): the test no longer shows what PipeErr is for", err)
	}
	if got := PipeErr(cmds, err); got == nil || errors.Is(got, redis.Nil) {
		t.Fatalf("PipeErr = %v, want the INCR's error", got)
	}
	cmds, err = rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Get(ctx, "missing")
		pl.Incr(ctx, "counter")
		return nil
	})
	if got := PipeErr(cmds, err); got != nil {
		t.Fatalf("PipeErr of a nil reply and a success = %v, want nil", got)
	}
	if got := PipeErr(nil, nil); got != nil {
		t.Fatalf("PipeErr(nil, nil) = %v", got)
	}
}

func TestMain(m *testing.M) { storetest.Main(m) }
