// Package reqpath holds what the request path's packages (redisdb and the
// areas below it) share besides the schema: the bound of a write and small
// helpers over script arguments, id lists and errors.
package reqpath

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// WriteTimeout bounds a write once claimed, whatever its request does: the
// client's going away does not cut it short, Redis's not answering does.
const WriteTimeout = 10 * time.Second

// Flag is a boolean as a script argument.
func Flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// JSONOr is v as JSON, or empty when v is empty.
func JSONOr[T any](v []T, empty string) string {
	if len(v) == 0 {
		return empty
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// MergeNewest merges two lists of ids, each newest first, into the n newest
// of both, without duplicates.
func MergeNewest(a, b []int64, n int) []int64 {
	all := append(slices.Clone(a), b...)
	slices.Sort(all)
	all = slices.Compact(all)
	slices.Reverse(all)
	return all[:min(n, len(all))]
}

// MergeOldest merges two lists of ids, each oldest first, into the n oldest
// of both, oldest first, without duplicates.
func MergeOldest(a, b []int64, n int) []int64 {
	all := append(slices.Clone(a), b...)
	slices.Sort(all)
	all = slices.Compact(all)
	return all[:min(n, len(all))]
}

// RangeBy is the range of the n newest ids below before (0: no bound) and
// above after (with ZRANGEBYSCORE, the n oldest).
func RangeBy(before, after int64, n int) *redis.ZRangeBy {
	maxScore := "+inf"
	if before > 0 {
		maxScore = "(" + strconv.FormatInt(before, 10)
	}
	return &redis.ZRangeBy{Max: maxScore, Min: "(" + strconv.FormatInt(after, 10), Count: int64(n)}
}

// IsOOM tells whether err is Redis refusing a write for lack of memory (its
// maxmemory reached, with nothing it may evict), as a command, a script or a
// transaction's EXECABORT says it.
func IsOOM(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "OOM ") || strings.Contains(msg, "OOM command not allowed")
}

// PipeErr is the error of the first of cmds that failed other than with
// redis.Nil, nil when none did; err is what Pipelined answered with them.
// go-redis answers a pipeline with its first failed command's error, in
// the commands' order, and a nil reply (a key not there, a script that
// answers nothing) is one: so a command that failed after it (on a
// cluster, a master that timed out while another answered) went unseen,
// and a write that had not all happened passed for done.
func PipeErr(cmds []redis.Cmder, err error) error {
	if err == nil {
		return nil
	}
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
			return e
		}
	}
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err // not a command's: the pipeline's own
}
