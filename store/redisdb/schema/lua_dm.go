package schema

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts of private messages (lua/conv_*.lua), each touching the
// keys of one user only, as the Cluster rule asks: a message's two sides
// are two calls, one under each user's tag.
var (
	//go:embed lua/conv_add.lua
	convAddSrc string
	ConvAdd    = redis.NewScript(convAddSrc)

	//go:embed lua/conv_read.lua
	convReadSrc string
	ConvRead    = redis.NewScript(convReadSrc)

	//go:embed lua/conv_unlink.lua
	convUnlinkSrc string
	ConvUnlink    = redis.NewScript(convUnlinkSrc)

	//go:embed lua/conv_summary.lua
	convSummarySrc string
	ConvSummary    = redis.NewScript(convSummarySrc)
)
