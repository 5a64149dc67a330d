package redisdb

import "github.com/redis/go-redis/v9"

// What the live feed's subscriber (package pubsub) needs from the store:
// the client it opens its pub/sub connections with, and how the channels
// it listens to are spread over a cluster.

// Client is the store's Redis client. The subscriber opens its own pub/sub
// connections through it; everything else goes through the Store.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Cluster tells whether k names the keys and channels of a Redis Cluster:
// hash tags in the keys, shard channels grouped in live partitions.
func (k Keys) Cluster() bool { return k.cluster }

// LivePartitions is how many partitions the live channels are spread over
// on a cluster, each subscribed on one sharded connection (partition.go).
const LivePartitions = livePartitions

// LivePartition is the live partition of user uid's channels on a cluster.
func LivePartition(uid int64) int { return livePartition(uid) }
