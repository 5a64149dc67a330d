package redisdb

import (
	"context"
	"slices"
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
// it sees a pipeline once, however many masters it goes to in parallel. It
// leaves out a new connection's opening (HELLO, then CLIENT SETINFO), which
// go-redis sends through the same hooks with the context of the command
// that found no idle connection in the pool: a cost of the pool's size and
// the load, not of the route.
type roundTripHook struct{}

func (roundTripHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (roundTripHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !opensConn(cmd) {
			countRoundTrip(ctx)
		}
		return next(ctx, cmd)
	}
}

func (roundTripHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return !opensConn(c) }) {
			return next(ctx, cmds) // a connection's opening only (or nothing)
		}
		countRoundTrip(ctx)
		return next(ctx, cmds)
	}
}

// opensConn tells whether cmd is one go-redis sends to open a connection.
// The store sends none of them itself.
func opensConn(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "client", "auth", "select", "readonly":
		return true
	}
	return false
}
