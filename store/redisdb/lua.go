package redisdb

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

//go:embed lua/hincrby_if_exists.lua
var hincrbyIfExistsSrc string

// hincrbyIfExists is sent with EVAL (inside pipelines EVALSHA could not fall
// back on NOSCRIPT); it touches a single message's hash (one key), as the Cluster rule asks.
var hincrbyIfExists = redis.NewScript(hincrbyIfExistsSrc)
