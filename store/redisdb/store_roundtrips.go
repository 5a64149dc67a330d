package redisdb

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTrips counts the round trips to Redis made with one context: each
// command sent alone and each pipeline (or transaction) is one. The server
// counts them per request, so that what a route costs in waits on Redis
// shows in its metrics.
type RoundTrips struct{ n atomic.Int64 }

// N is the number of round trips counted so far.
func (r *RoundTrips) N() int64 { return r.n.Load() }

type roundTripsKey struct{}

// CountRoundTrips returns a context under which the Store's round trips to
// Redis are counted into the RoundTrips returned.
func CountRoundTrips(ctx context.Context) (context.Context, *RoundTrips) {
	rt := new(RoundTrips)
	return context.WithValue(ctx, roundTripsKey{}, rt), rt
}

func countRoundTrip(ctx context.Context) {
	if rt, ok := ctx.Value(roundTripsKey{}).(*RoundTrips); ok {
		rt.n.Add(1)
	}
}

// roundTripHook counts round trips for CountRoundTrips. On a cluster client
// it sees a pipeline once, however many masters it goes to in parallel.
type roundTripHook struct{}

func (roundTripHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (roundTripHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		countRoundTrip(ctx)
		return next(ctx, cmd)
	}
}

func (roundTripHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		countRoundTrip(ctx)
		return next(ctx, cmds)
	}
}
