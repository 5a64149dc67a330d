package schema

import (
	"hash/fnv"
	"strconv"
)

// LivePartitions is how many partitions the live channels are spread over
// on a Redis Cluster (centrifuge's approach). Each partition is one hash
// tag, so one slot: the channels of a partition can be subscribed together
// with one SSUBSCRIBE on one sharded connection, and the partitions are
// spread over the masters, so that no node carries every event. The number
// is fixed: every process must spell a user's channels alike, so changing
// it is a schema change (keys_test pins it).
const LivePartitions = 64

// LivePartition is the partition of the live channels of user uid.
func LivePartition(uid int64) int { return int(uint64(uid) % LivePartitions) }

// partitionTag is the hash tag {p<n>} that begins the channel names of
// partition n on a cluster.
func partitionTag(n int) string { return "{p" + strconv.Itoa(n) + "}" }

// TagPartition is the partition of the live channel of the topic of tagKey:
// its FNV-1a hash spread over the partitions like users' ids.
func TagPartition(tagKey string) int {
	h := fnv.New32a()
	h.Write([]byte(tagKey))
	return int(h.Sum32() % LivePartitions)
}
