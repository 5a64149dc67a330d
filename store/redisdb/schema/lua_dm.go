package schema

import _ "embed"

// The Lua scripts of private messages (lua/conv_*.lua), each touching the
// keys of one user only, as the Cluster rule asks: a message's two sides
// are two calls, one under each user's tag.
var (
	//go:embed lua/conv_add.lua
	convAddSrc string
	ConvAdd    = newScript(convAddSrc)

	//go:embed lua/conv_read.lua
	convReadSrc string
	ConvRead    = newScript(convReadSrc)

	//go:embed lua/conv_unread.lua
	convUnreadSrc string
	ConvUnread    = newScript(convUnreadSrc)

	//go:embed lua/conv_unlink.lua
	convUnlinkSrc string
	ConvUnlink    = newScript(convUnlinkSrc)

	//go:embed lua/conv_summary.lua
	convSummarySrc string
	ConvSummary    = newScript(convSummarySrc)
)
