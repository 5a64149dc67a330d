package redisdb

import "github.com/redis/go-redis/v9"

// What the live feed's subscriber (package pubsub) needs from the store:
// the client it opens its pub/sub connections with, and how the channels
// it listens to are spread over a cluster.

// Client is the store's Redis client. The subscriber opens its own pub/sub
// connections through it; everything else goes through the Store.
func (s *Store) Client() redis.UniversalClient { return s.rdb }
