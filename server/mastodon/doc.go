// Package mastodon is the service's second face: the Mastodon client API
// (CONTRACT §13), so that the apps people already use (Elk, Phanpy, Tusky,
// Ice Cubes, and libraries such as masto and go-mastodon) work with it as
// it is. It is a thin layer over the same store.Service, safety rules,
// rate limits and live hub as the native API: a post made from an app is
// the same post in the service's own front ends.
//
// # Shape
//
//   - entities.go is the one place where the store's objects become
//     Mastodon's entities (Account, Status, Notification, Relationship,
//     MediaAttachment, Tag, Conversation), and html.go renders a post's
//     text as Mastodon does (mentions and tags as links).
//   - api.go holds the API value, its routes, the caller's token and
//     scopes, paging by max_id/since_id/min_id with Link headers, and
//     Mastodon's error bodies ({"error": "..."}).
//   - One file per area registers and serves its routes: oauth.go,
//     accounts.go, statuses.go, timelines.go, notifications.go, and so on.
//
// # Sharing /api/v1 with the native API
//
// Both APIs live under /api/v1, and a few paths are the same in both
// (timelines/home, timelines/public, notifications, conversations,
// reports, trends/tags, media). Those are served by whichever API the
// request speaks (Speaks): one that carries an OAuth access token, or
// a query parameter only Mastodon has (max_id, since_id, min_id, local,
// only_media ...), gets Mastodon's answer; anything else the native one.
package mastodon
