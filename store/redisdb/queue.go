package redisdb

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// The fan-out runs off the request path: a write queues a job on the stream
// fanout:queue in the same pipeline that indexes the message, and the
// fan-out workers of every server process (FanOut, fanout_worker.go) take
// the jobs through one consumer group.

// Kinds of fan-out job.
const (
	opPush     = "push"     // push post mid into the home timeline of each (active) fan of author
	opUnpush   = "unpush"   // take deleted post mid out of each fan's home timeline
	opBackfill = "backfill" // push the author's posts after pull_from, then end its pull mode
)

// job is one entry of the fan-out queue, or of its parts stream
// (fanout_parts.go).
type job struct {
	id     string // the stream entry id
	op     string
	mid    int64
	author int64
	at     int64 // unix ms the message was written: fans away longer before it are skipped
	// drain is a backfill's token: it ends only the drain of that token.
	drain string
	// part is the part's number and its fans, for a part of a split job;
	// nil for a whole job.
	part *part
	// settles says that acknowledging the job ends its post's push, so its
	// pending mark goes with it: a whole push job that was not split, or
	// the last part left of a split one.
	settles bool
}

// part is one part of a split job.
type part struct {
	n   int // its number among the job's parts, from 0
	fan span
}

// fans is the span of fans the job walks: its part's, or every fan.
func (j job) fans() span {
	if j.part != nil {
		return j.part.fan
	}
	return allFans
}

// queueJob adds a job to a pipeline (the one that indexes its message). A
// push is also recorded as pending until done.
func (s *Store) queueJob(ctx context.Context, pl redis.Pipeliner, op string, author, mid int64) {
	if op == opPush {
		s.markPending(ctx, pl, author, mid)
	}
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.FanOutQueue(), Values: []any{
		"op", op, "author", author, "mid", mid, "at", s.now()}})
}

// kind names the job in the count of jobs done: its op, with "_part" for a
// part of a split job.
func (j job) kind() string {
	if j.part != nil {
		return j.op + "_part"
	}
	return j.op
}

// parseJobs reads the jobs of entries of the queue.
func parseJobs(msgs []redis.XMessage) []job {
	jobs := make([]job, len(msgs))
	for i, m := range msgs {
		jobs[i] = parseJob(m)
	}
	return jobs
}

// parseJob reads the job of one entry of the queue or of its parts stream:
// a part's entry has the fields of its job and its own part, lo and hi.
func parseJob(m redis.XMessage) job {
	j := job{id: m.ID}
	j.op, _ = m.Values["op"].(string)
	j.drain, _ = m.Values["drain"].(string)
	for name, dst := range map[string]*int64{"author": &j.author, "mid": &j.mid, "at": &j.at} {
		v, _ := m.Values[name].(string)
		*dst, _ = strconv.ParseInt(v, 10, 64)
	}
	if n, ok := m.Values["part"].(string); ok {
		p := &part{}
		p.n, _ = strconv.Atoi(n)
		p.fan.lo, _ = m.Values["lo"].(string)
		p.fan.hi, _ = m.Values["hi"].(string)
		j.part = p
	} else {
		j.settles = j.op == opPush
	}
	return j
}
