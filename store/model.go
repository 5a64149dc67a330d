package store

import (
	"encoding/json"
	"time"
)

// User is the contract's User object. Following is nil for anonymous callers.
type User struct {
	ID             int64   `json:"id"`
	Username       string  `json:"username"`
	Bio            string  `json:"bio"`
	CreatedAt      Time    `json:"created_at"`
	FollowersCount int64   `json:"followers_count"`
	FollowingCount int64   `json:"following_count"`
	PostsCount     int64   `json:"posts_count"`
	Following      *bool   `json:"following"`
	AvatarURL      *string `json:"avatar_url"` // nil: none (front ends draw a letter)
	// DisplayName ("" for none: the username is shown), HeaderURL (nil
	// for none) and Fields are the profile of CONTRACT.md §15 (profile.go).
	DisplayName string  `json:"display_name"`
	HeaderURL   *string `json:"header_url"`
	Fields      []Field `json:"fields"`
	// UnreadNotifications is set only on the user's own User (/me).
	UnreadNotifications *int64 `json:"unread_notifications,omitempty"`
	// UnreadDMs (the conversations with unread messages) and
	// DMsFrom (who may write to the user) are set only on /me.
	UnreadDMs *int64 `json:"unread_messages,omitempty"`
	DMsFrom   string `json:"messages_from,omitempty"`
	// Blocking, BlockedBy, Muting and Requested say whether the caller
	// blocks them, is blocked by them, mutes them, and has asked to follow
	// them (a protected account); nil for anonymous callers.
	Blocking  *bool `json:"blocking"`
	BlockedBy *bool `json:"blocked_by"`
	Muting    *bool `json:"muting"`
	Requested *bool `json:"requested"`
	// Protected: only approved fans see its posts.
	Protected bool `json:"protected"`
	// Suspended: an operator has suspended the account.
	Suspended bool `json:"suspended,omitempty"`
	// Admin is set on the user's own User (/me) when it is an operator.
	Admin bool `json:"admin,omitempty"`
	// Remote is true on an account of another ActivityPub server (its
	// username is name@domain), whose profile page there is URL.
	Remote bool   `json:"remote,omitempty"`
	URL    string `json:"url,omitempty"`
}

// Author is the short form of a user embedded in a Post.
type Author struct {
	ID        int64   `json:"id"`
	Username  string  `json:"username"`
	AvatarURL *string `json:"avatar_url,omitempty"` // set on posts read back; absent in mentions
	// DisplayName is the author's display name as it is now (read with its
	// avatar); absent when it has none, and in mentions.
	DisplayName string `json:"display_name,omitempty"`
	// CreatedAt is when the author signed up; absent in mentions (and
	// in posts of the archive's own tools, which do not know it).
	CreatedAt Time `json:"created_at,omitempty"`
	// Protected: the author's posts are for its approved fans only (so
	// they cannot be reposted).
	Protected bool `json:"protected,omitempty"`
	// Suspended and Approved are for the safety rule (Lens) alone: the
	// author is suspended; the reader may see a protected author's posts.
	Suspended bool `json:"-"`
	Approved  bool `json:"-"`
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
	LikesCount    int64  `json:"likes_count"`
	// Liked says whether the reader likes it; nil for anonymous readers.
	Liked    *bool    `json:"liked"`
	Mentions []Author `json:"mentions"`          // the existing users its text mentions
	Tags     []string `json:"tags"`              // the topics its text carries
	Media    []Media  `json:"media"`             // its images, at most MaxMedia
	Deleted  bool     `json:"deleted,omitempty"` // only on a repost_of whose original is gone
	// EditedAt is when the content last changed; nil until it is edited.
	EditedAt *Time `json:"edited_at"`
	// Pinned says whether its author pinned it to the top of its profile;
	// Bookmarked whether the reader saved it. Both nil for anonymous readers.
	Pinned     *bool `json:"pinned"`
	Bookmarked *bool `json:"bookmarked"`
	// Poll is the post's poll (store/poll.go), nil when it has none.
	Poll *Poll `json:"poll"`
	// Spoiler is its content warning (empty: none), shown in place of
	// its content and images until the reader opens it (spoiler.go).
	Spoiler string `json:"spoiler"`
	// URL is, on a post that came from another server (federation), the
	// address of its original there; absent on local posts.
	URL string `json:"url,omitempty"`
	// Reposted says whether the reader reposted it (for a repost, its
	// original); nil for anonymous readers.
	Reposted *bool `json:"reposted"`
	// Filtered says the reader's word filters hide it: only on a page of
	// the reader's home timeline, which shows it folded (Lens.FilteredOnly).
	Filtered bool `json:"filtered,omitempty"`
	// Federated is set, on a post just written (Create), when its author
	// has had remote followers (store/fed_delivery.go): its activity goes
	// out to them. Never shown.
	Federated bool `json:"-"`
	// Encoded is the post as its live event carries it, when a write has
	// just encoded it so (nil otherwise): what a writer answers, as is,
	// rather than encoding it a second time.
	Encoded json.RawMessage `json:"-"`
}

// Media is an image attached to a post, as the contract shows it.
type Media struct {
	ID       int64  `json:"id"`
	URL      string `json:"url"`
	ThumbURL string `json:"thumb_url"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Alt      string `json:"alt"`
	// Blurhash is a few dozen characters that draw a blurred likeness of
	// the image (blurha.sh) while it loads; empty for uploads made before
	// there were any.
	Blurhash string `json:"blurhash,omitempty"`
}

// MaxMedia is how many images one post may carry.
const MaxMedia = 9

// MaxAlt is the longest alt text of an image, in characters.
const MaxAlt = 1000

// Notification is one entry of a user's notifications.
type Notification struct {
	ID        int64  `json:"id"`
	Kind      string `json:"kind"` // one of the Notify* kinds
	Actor     User   `json:"actor"`
	Post      *Post  `json:"post"` // nil for follows
	CreatedAt Time   `json:"created_at"`
	Read      bool   `json:"read"`
}

// Kinds of notification.
const (
	NotifyComment = "comment" // a comment on the user's post
	NotifyReply   = "reply"   // a comment on the user's comment
	NotifyRepost  = "repost"
	NotifyLike    = "like"
	NotifyFollow  = "follow"
	NotifyMention = "mention"
	// NotifyFollowRequest: someone asks to follow the user's protected
	// account; Post is nil.
	NotifyFollowRequest = "follow_request"
	// NotifyFollowAccepted: the protected account the user asked to follow
	// approved the request (the actor); Post is nil. Mastodon has no such
	// type: its API leaves these out.
	NotifyFollowAccepted = "follow_request_accepted"
)

// Version is one version of a message's content, in its history.
type Version struct {
	Content   string `json:"content"`
	CreatedAt Time   `json:"created_at"`
}

// Limits of edits and pins.
const (
	MaxEdits = 10 // edits of one message
	MaxPins  = 5  // posts one user may pin
)

// Report is a user's report of another user (and some of its posts) to
// the operators.
type Report struct {
	ID        int64  `json:"id"`
	Reporter  User   `json:"reporter"`
	Target    User   `json:"target"`
	Posts     []Post `json:"posts"` // those still there
	Reason    string `json:"reason"`
	CreatedAt Time   `json:"created_at"`
	Resolved  bool   `json:"resolved"`
}

// TagCount is a topic and how many posts carry it.
type TagCount struct {
	Tag        string `json:"tag"`
	PostsCount int64  `json:"posts_count"`
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

// MarshalText writes the time as the contract asks,
// "2006-01-02T15:04:05.000Z", which encoding/json quotes. Every post,
// comment, notification and live event carries one or more: written by
// hand, a time costs a fifth of time's layout engine, and as text rather
// than JSON encoding/json neither validates nor compacts it.
func (t Time) MarshalText() ([]byte, error) {
	return t.AppendText(make([]byte, 0, len("2006-01-02T15:04:05.000Z")))
}

// AppendText appends the text form of t to b.
func (t Time) AppendText(b []byte) ([]byte, error) {
	tm := time.UnixMilli(int64(t)).UTC()
	year, month, day := tm.Date()
	if year < 0 || year > 9999 {
		return tm.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00"), nil
	}
	hour, minute, second := tm.Clock()
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), second, 2)
	b = appendDigits(append(b, '.'), tm.Nanosecond()/1e6, 3)
	return append(b, 'Z'), nil
}

// appendDigits appends n (0 <= n < 10^width) in width decimal digits.
func appendDigits(b []byte, n, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, 0)
	}
	for i := len(b) - 1; i >= len(b)-width; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
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
