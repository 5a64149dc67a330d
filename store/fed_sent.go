package store

import "context"

// SentActivities remembers the ids of activities a local user sent or
// received that a later one must name again as they were: the Follow (or
// Like, or Block) an Undo embeds, the remote Follow request an approval
// answers. Each is kept under its user and a name of what it is
// ("follow:<uid>", "like:<mid>"...), until taken.
type SentActivities interface {
	// RememberActivity keeps id as uid's activity what.
	RememberActivity(ctx context.Context, uid int64, what, id string) error
	// TakeActivity returns uid's activity what and forgets it; "" when
	// none is kept.
	TakeActivity(ctx context.Context, uid int64, what string) (string, error)
}
