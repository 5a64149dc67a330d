package store

import "encoding/json"

// Live events. The store publishes each event as the very frame a WebSocket
// client receives, {"event": NAME, "data": ...}, so that a hub encodes nothing:
// it forwards the bytes it got from Redis to every connection that wants them.
const (
	EventReady   = "ready"   // to one connection: {"user_id", "last_id"} once its replay is sent
	EventPost    = "post"    // on author:<uid>: a Post (post or repost)
	EventDelete  = "delete"  // on author:<uid>: {"id"} of a removed message
	EventComment = "comment" // on notify:<uid>: a comment Post on one of the user's messages
	EventFollow  = "follow"  // on notify:<uid>: {"user": User} who just followed the user
	EventCounts  = "counts"  // on author:<uid>: CountsData of one of the author's messages
	// EventPostUpdate: an edited Post, on the channels its post event went
	// out on (its author's; a comment's, its parent author's notify), and on
	// the author channels of those who reposted it.
	EventPostUpdate = "post_update"

	EventNotification        = "notification"         // on notify:<uid>: a Notification
	EventNotificationRemoved = "notification_removed" // on notify:<uid>: {"id"} of one undone (unlike, unfollow)

	// Internal events, on notify:<uid>; a hub acts on them and never forwards them.

	// EventStars says the user followed (Following true) or unfollowed a star:
	// the user's open connections must (un)subscribe from author:<star>.
	EventStars = "stars"
	// EventSessionRevoked says a session token was logged out: connections
	// opened with that token must be closed with 4001.
	EventSessionRevoked = "session_revoked"
	// EventLensChanged says what the user may see changed (a block, a mute,
	// its word filters, someone blocking it): connections read its Lens again.
	EventLensChanged = "lens_changed"
	// EventTagsChanged says the user followed or unfollowed a topic: its
	// connections read its followed topics again (LiveTimeline.TagKeys).
	EventTagsChanged = "tags_changed"
)

// Frame is one live event as published and as sent over a WebSocket.
type Frame struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// DeleteData is the data of a delete event: the message's id, and whose
// it is (PostRef).
type DeleteData struct {
	ID int64 `json:"id"`
	PostRef
}

// CountsData is the data of a counts event: a message's counters now, and
// whose it is (PostRef).
type CountsData struct {
	ID            int64 `json:"id"`
	LikesCount    int64 `json:"likes_count"`
	CommentsCount int64 `json:"comments_count"`
	RepostsCount  int64 `json:"reposts_count"`
	PostRef
}

// PostRef is whose the message a counts or delete event names is: its
// author, and for a repost its original's id and author. The live feed
// gives such an event only to whom may see that message, by the rule its
// post event goes by (Lens.Hides; CONTRACT.md §17): a frame never names a
// post its receiver may not see. Absent from an event an older version
// published, which then goes to every listener as before.
type PostRef struct {
	Author   *Author  `json:"author,omitempty"`
	RepostOf *OrigRef `json:"repost_of,omitempty"`
}

// OrigRef is a repost's original in a PostRef.
type OrigRef struct {
	ID     int64  `json:"id"`
	Author Author `json:"author"`
}

// RefOf is the PostRef of p; the original's author is left out when it is
// not known (a deleted original hides nothing).
func RefOf(p *Post) PostRef {
	if p == nil {
		return PostRef{}
	}
	a := Author{ID: p.Author.ID, Username: p.Author.Username, Protected: p.Author.Protected}
	r := PostRef{Author: &a}
	if o := p.RepostOf; o != nil && !o.Deleted && o.Author.ID != 0 {
		r.RepostOf = &OrigRef{ID: o.ID, Author: Author{ID: o.Author.ID, Username: o.Author.Username, Protected: o.Author.Protected}}
	}
	return r
}

// FollowData is the data of a follow event.
type FollowData struct {
	User User `json:"user"`
}

// StarsData is the data of the internal stars event.
type StarsData struct {
	StarID    int64 `json:"star_id"`
	Following bool  `json:"following"`
	// Since is the last message id issued before a follow: live
	// connections catch up on the star's posts after it, not before.
	Since int64 `json:"since,omitempty"`
}

// SessionRevokedData is the data of the internal session_revoked event.
type SessionRevokedData struct {
	TokenHash string `json:"token_hash"`
}

// EncodeFrame marshals an event the way it is published and sent.
func EncodeFrame(event string, data any) ([]byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return FrameOf(event, raw), nil
}

// FrameOf is the frame of event whose data is encoded already (raw, as
// json.Marshal made it): the same bytes EncodeFrame makes, without
// encoding the data again.
func FrameOf(event string, raw []byte) []byte {
	name, _ := json.Marshal(event)
	b := make([]byte, 0, len(`{"event":,"data":}`)+len(name)+len(raw))
	b = append(b, `{"event":`...)
	b = append(b, name...)
	b = append(b, `,"data":`...)
	b = append(b, raw...)
	return append(b, '}')
}
