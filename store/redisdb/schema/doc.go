// Package schema is the store's layout in Redis, with no I/O: every key and
// channel name (Keys, keys.go), the fields of every hash and how they decode
// (hashes.go), the entries of the fan-out and archive queues (Job,
// ArchiveEntry, jobs.go), the values of an Idempotency-Key
// (idempotency.go), the kinds of repair the checker counts (repairs.go),
// the live partitions of a cluster (partition.go) and every Lua script
// (lua.go, lua/). It builds names, arguments and scripts and reads what
// Redis returned; it never sends a command. The request path (package
// redisdb), the background runners (package runner) and the live feed's
// subscriber (package pubsub) all go through it, so that they agree on
// every byte, and a test can pin the exact strings.
//
// On a Redis Cluster the id in the keys of one user or one message is
// wrapped in a hash tag (B:{12}, F:{7}:messageID), so that all the keys of
// one message, or of one user, are on one slot and a script that touches
// several of them never fails with CROSSSLOT; on a single Redis the names
// are exactly the contract's (docs/redis-keys.md lists them all).
package schema
