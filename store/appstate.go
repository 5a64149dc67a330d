package store

import "context"

// What apps of the Mastodon client API keep on the server beside the
// service's own data: where the user stopped reading (markers), and
// notifications dismissed one by one or all at once.

// Marker timelines.
const (
	MarkerHome          = "home"
	MarkerNotifications = "notifications"
)

// Marker is where a user stopped reading one of its timelines in an app:
// LastReadID is the newest item read, Version counts the changes.
type Marker struct {
	Timeline   string
	LastReadID int64
	Version    int64
	UpdatedAt  Time
}

// AppState is what apps keep of a user's reading.
type AppState interface {
	// Markers are uid's markers of timelines (MarkerHome,
	// MarkerNotifications); those never set are left out.
	Markers(ctx context.Context, uid int64, timelines []string) ([]Marker, error)
	// SetMarker moves uid's marker of timeline to lastReadID (a new
	// version even when it stays).
	SetMarker(ctx context.Context, uid int64, timeline string, lastReadID int64) (Marker, error)
	// DismissNotification removes uid's notification nid; ErrNotFound
	// when uid has none of that id.
	DismissNotification(ctx context.Context, uid, nid int64) error
	// ClearNotifications removes all of uid's notifications.
	ClearNotifications(ctx context.Context, uid int64) error
	// Totals are how many accounts and messages the service has given
	// ids to (deleted ones included), for the instance's figures.
	Totals(ctx context.Context) (users, messages int64, err error)
}
