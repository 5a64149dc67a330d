package store

import (
	"encoding/json"
	"time"
)

// User is the contract's User object. Following is nil for anonymous callers.
type User struct {
	ID             int64  `json:"id"`
	Username       string `json:"username"`
	Bio            string `json:"bio"`
	CreatedAt      Time   `json:"created_at"`
	FollowersCount int64  `json:"followers_count"`
	FollowingCount int64  `json:"following_count"`
	PostsCount     int64  `json:"posts_count"`
	Following      *bool  `json:"following"`
}

// Author is the short form of a user embedded in a Post.
type Author struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// Post is the contract's Post object, for posts, reposts and comments alike.
type Post struct {
	ID            int64  `json:"id"`
	Kind          string `json:"kind"` // KindPost or KindComment
	Author        Author `json:"author"`
	Content       string `json:"content"`
	CreatedAt     Time   `json:"created_at"`
	RepostOf      *Post  `json:"repost_of"`
	ParentID      *int64 `json:"parent_id"`
	CommentsCount int64  `json:"comments_count"`
	RepostsCount  int64  `json:"reposts_count"`
	Deleted       bool   `json:"deleted,omitempty"` // only on a repost_of whose original is gone
}

// Message kinds, as stored in the B hash's kind field.
const (
	KindPost    = "post"
	KindComment = "comment"
)

// Page is one page of a list, with the opaque cursor of the next page (nil on the last).
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// Time is a unix-millisecond time that marshals as RFC 3339 in UTC with milliseconds.
type Time int64

// MarshalJSON writes the time as the contract asks: "2006-01-02T15:04:05.000Z".
func (t Time) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.UnixMilli(int64(t)).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
}

// UnmarshalJSON reads the RFC 3339 form back, for clients written in Go (tests, the load tool).
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	*t = Time(p.UnixMilli())
	return nil
}
