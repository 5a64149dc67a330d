package runner

import (
	"context"

	"microblog/store/redisdb/schema"
)

// Steps of a fan-out worker for a test to drive by hand, with a fault or a
// stall between two of them: Take holds the jobs waiting without doing
// them, Do does a batch of them as a worker does, and Backfill runs the
// steps of one backfill job alone, as a run that was taken over and
// finishes late.

// Take makes the consumer group if need be and reads the jobs waiting,
// which f then holds (pending) without doing them.
func (f *FanOut) Take(ctx context.Context) ([]schema.Job, error) {
	f.c.createGroup(ctx)
	msgs, err := f.c.read(ctx)
	return schema.ParseJobs(msgs), err
}

// Do does jobs as one batch of a worker, and acknowledges them.
func (f *FanOut) Do(ctx context.Context, jobs []schema.Job) { f.doBatch(ctx, jobs) }

// Backfill runs the steps of backfill job j, without acknowledging it.
func (f *FanOut) Backfill(ctx context.Context, j schema.Job) error {
	return f.backfill(ctx, j, func() {})
}
