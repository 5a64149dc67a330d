package schema

// Kinds of repair, the label of microblog_repairs_total.
const (
	RepairPostIndexed    = "post_indexed"    // a post no index pointed at, indexed
	RepairCommentIndexed = "comment_indexed" // a comment missing from its parent's C set, added
	RepairRemoved        = "message_removed" // a message that could not be finished, removed
	RepairCounter        = "counter"         // comments_count or reposts_count set to its set's size
	RepairOrphanKeys     = "orphan_keys"     // D and E keys left without their B, removed
	RepairShown          = "post_shown"      // a message indexed whole but never finished, finished (a cluster's)
	RepairFanOutMode     = "fanout_mode"     // a change of an author's fan-out mode made or completed (runner/checker_modes.go)
)

// Kinds of repair of private messages, the label of microblog_repairs_total.
const (
	RepairDMIndexed = "private_message_indexed" // a message no side held, added to both
	RepairDMRemoved = "private_message_removed" // a message that could not be finished, removed
)
