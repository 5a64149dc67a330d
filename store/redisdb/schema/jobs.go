package schema

import (
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// The fan-out runs off the request path: a write queues a job on the stream
// fanout:queue in the same pipeline that indexes the message, and the
// fan-out workers of every server process (FanOut, runner/fanout_worker.go) take
// the jobs through one consumer group.

// Kinds of fan-out job.
const (
	OpPush     = "push"     // push post mid into the home timeline of each (active) fan of author
	OpUnpush   = "unpush"   // take deleted post mid out of each fan's home timeline
	OpBackfill = "backfill" // push the author's posts after pull_from, then end its pull mode
)

// Job is one entry of the fan-out queue, or of its parts stream
// (runner/fanout_parts.go).
type Job struct {
	ID     string // the stream entry id
	Op     string
	Mid    int64
	Author int64
	At     int64 // unix ms the message was written: fans away longer before it are skipped
	// Drain is a backfill's token: it ends only the drain of that token.
	Drain string
	// Part is the part's number and its fans, for a part of a split job;
	// nil for a whole job.
	Part *JobPart
	// Settles says that acknowledging the job ends its post's push, so its
	// pending mark goes with it: a whole push job that was not split, or
	// the last part left of a split one.
	Settles bool
}

// JobPart is one part of a split job.
type JobPart struct {
	N    int // its number among the job's parts, from 0
	Fans Span
}

// Fans is the span of fans the job walks: its part's, or every fan.
func (j Job) Fans() Span {
	if j.Part != nil {
		return j.Part.Fans
	}
	return AllFans
}

// Kind names the job in the count of jobs done: its op, with "_part" for a
// part of a split job.
func (j Job) Kind() string {
	if j.Part != nil {
		return j.Op + "_part"
	}
	return j.Op
}

// ParseJobs reads the jobs of entries of the queue.
func ParseJobs(msgs []redis.XMessage) []Job {
	jobs := make([]Job, len(msgs))
	for i, m := range msgs {
		jobs[i] = ParseJob(m)
	}
	return jobs
}

// ParseJob reads the job of one entry of the queue or of its parts stream:
// a part's entry has the fields of its job and its own part, lo and hi.
func ParseJob(m redis.XMessage) Job {
	j := Job{ID: m.ID}
	j.Op, _ = m.Values["op"].(string)
	j.Drain, _ = m.Values["drain"].(string)
	for name, dst := range map[string]*int64{"author": &j.Author, "mid": &j.Mid, "at": &j.At} {
		v, _ := m.Values[name].(string)
		*dst, _ = strconv.ParseInt(v, 10, 64)
	}
	if n, ok := m.Values["part"].(string); ok {
		p := &JobPart{}
		p.N, _ = strconv.Atoi(n)
		p.Fans.Lo, _ = m.Values["lo"].(string)
		p.Fans.Hi, _ = m.Values["hi"].(string)
		j.Part = p
	} else {
		j.Settles = j.Op == OpPush
	}
	return j
}

// Span is the fans of an author a job walks: those whose follow time (the
// score in A:<uid>:fansID) is from lo up to, not including, hi. A whole job
// walks everything (AllFans); a part of a split job, its own span.
type Span struct {
	Lo, Hi string // ZRANGEBYSCORE bounds: "-inf" or a score; "+inf" or a score
}

// AllFans is the span of a job not split: every fan.
var AllFans = Span{Lo: "-inf", Hi: "+inf"}

// Max is the span's upper bound as ZRANGEBYSCORE takes it: exclusive.
func (sp Span) Max() string {
	if sp.Hi == "+inf" {
		return sp.Hi
	}
	return "(" + sp.Hi
}

// Kinds of archive job.
const (
	ArchivePut    = "put"    // save a new message
	ArchiveDelete = "del"    // make a message a tombstone
	ArchiveLike   = "like"   // save a like
	ArchiveUnlike = "unlike" // take a like away
	ArchiveEdit   = "edit"   // save an edited message, the whole row (redisdb/post_edit.go)
)

// Values is the job as a stream entry's fields, as ParseJob reads them.
func (j Job) Values() []any {
	v := []any{"op", j.Op, "author", j.Author, "mid", j.Mid, "at", j.At}
	if j.Part != nil {
		v = append(v, "part", j.Part.N, "lo", j.Part.Fans.Lo, "hi", j.Part.Fans.Hi)
	}
	if j.Drain != "" {
		v = append(v, "drain", j.Drain)
	}
	return v
}

// ArchiveEntry is an entry of the archive queue as its fields: the kind of
// job and the row, JSON, as ParseArchiveEntry reads them.
func ArchiveEntry(op string, row []byte) []any { return []any{"op", op, "row", row} }

// ParseArchiveEntry reads the kind and the row of an archive queue entry.
func ParseArchiveEntry(m redis.XMessage) (op, row string) {
	op, _ = m.Values["op"].(string)
	row, _ = m.Values["row"].(string)
	return op, row
}

// EntryVersion is the version of an archive:queue entry that carries none,
// from its id ("<ms>-<seq>"): in microseconds, as likeVersion's.
func EntryVersion(id string) int64 {
	ms, seq, _ := strings.Cut(id, "-")
	n, _ := strconv.ParseInt(seq, 10, 64)
	return ParseID(ms)*1000 + min(n, 999)
}

// ArchiveGroup is the consumer group of every server process's archiver.
const ArchiveGroup = "archive"

// FanOutGroup is the consumer group of every server process's workers.
const FanOutGroup = "fanout"
