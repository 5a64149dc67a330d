// Package runner is the store's work off the request path, which every
// server process runs beside its requests: FanOut (the fan-out workers,
// fanout_*.go), Archiver (archiver_*.go), Checker (the checker of
// half-written messages, checker_*.go), MediaJanitor and CacheListener.
// Their options and defaults are in options.go; the fan-out workers and the
// archiver read their streams through one consumer loop (consumer*.go).
//
// A runner works on its own queues and keys through the client and the key
// schema (package schema) its Ops give it. Whatever the request path also
// does (indexing or removing a message a stopped request left, a change of
// an author's fan-out mode, a push into a home timeline, the caches) it
// asks for by name through Ops (ops.go), the one written list of what the
// runners may ask of the request path (package redisdb's Store has it). So
// the two share no private step, and the compiler checks it: this package
// does not import redisdb.
//
// Any number of server processes run these side by side on one Redis (or
// one Redis Cluster). What follows is what each may count on from the
// others; package redisdb's documentation says the rest (the writes the
// queues' entries come from, the hot window, the archive).
//
// # Consumer groups and claims
//
// fanout:queue and archive:queue are streams, each read by one consumer
// group (fanout, archive) that every process joins under a name of its own.
// The fan-out worker takes up to 64 jobs at a time, does the pushes among
// them together and the other jobs one by one in stream order, and
// acknowledges a job (queue_ack.lua: XACK, and an XTRIM MINID of every
// entry older than the oldest not done; for a push also the removal of its
// fanout:pending mark and count; in one round trip) only once it is done: a
// job that fails, or whose process dies, stays pending. Every 250 ms each
// process looks for jobs idle for ClaimIdle (XPENDING with IDLE) and takes
// them over one at a time (XCLAIM with the same least idle time); a process
// that stops gracefully hands back the jobs it could not finish within 1 s
// (XCLAIM to itself with IDLE 24 h), so that another takes them at once, and
// a consumer that holds nothing leaves the group (consumer_stop.go). A
// worker busy with a long job renews its claim (XCLAIM) every ClaimIdle/3
// between batches of fans. Every step of a job is idempotent
// (a ZADD or ZREM of a post's id; a backfill ends under the author's mode
// lock, if the mode still says drain), so a job done twice changes nothing.
// A process that finds a group missing creates it from the stream's start,
// so no entry queued before is skipped.
//
// A push or unpush to more than PartFans (10,000) fans is split, so that
// every worker of every process shares it (fanout_parts.go). The worker
// that takes it cuts the author's fans into spans of follow times, about
// PartFans fans each; for a push it adds the part numbers to the set
// fanout:left:<mid>, and only then queues one entry a part on the stream
// fanout:parts (same group, read one part at a time by the helpers of every
// process: 3 per CPU, which also join the workers while the queue holds a
// backlog), and acknowledges the job without its pending mark. A part pushes (or takes out) the post for the
// fans of its span, checks that the post still exists as a whole push
// does, then removes its number from fanout:left:<mid> (SREM, then SCARD
// in the same round trip); the part that finds the set empty ends the
// post's push: its acknowledgement takes the post out of fanout:pending.
// So the mark goes only once every part is done, and a part done twice, a
// part taken over, or a job split twice by two processes, changes nothing.
// Fans who followed in the same millisecond are in one part.
//
// The archiver saves a batch of archive:queue to the archive (retrying
// while the archive is away), moves out of Redis what the batch lets go,
// and only then acknowledges the batch. Every 250 ms it takes over a batch
// left idle for ClaimIdle or handed back, as the fan-out does. Saving a
// batch twice changes nothing.
package runner
