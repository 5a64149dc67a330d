// Package store is the microblog's domain: the types every part shares
// (users, posts, pages, live frames and topics), the error kinds and codes of
// the contract, the rules that check what users write, and the small
// interfaces through which the server and the hub use a store.
//
// It knows neither HTTP nor Redis. The Redis implementation is
// store/redisdb; tests start throwaway servers with store/storetest.
package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Accounts are users, passwords and sessions.
type Accounts interface {
	// Register creates a user and a first session, returning its token.
	Register(ctx context.Context, username, password string) (User, string, error)
	// Login checks a name and password and opens a new session. Failed
	// attempts count against the account under at's guard.
	Login(ctx context.Context, username, password string, at Attempt) (User, string, error)
	// Authenticate returns the user of a session token and the token's
	// hash; ErrNotLoggedIn for a token an OAuth grant was given
	// (OAuth.OpenOAuthSession), valid only on the Mastodon API.
	Authenticate(ctx context.Context, token string) (uid int64, tokenHash string, err error)
	// Logout ends the session whose token hash is tokenHash, everywhere.
	Logout(ctx context.Context, uid int64, tokenHash string) error
	// LogoutAll ends every session of the user, everywhere.
	LogoutAll(ctx context.Context, uid int64) error
	// ChangePassword replaces the user's password after checking the old one
	// (under at's guard, like a login) and ends every session but keep's.
	ChangePassword(ctx context.Context, uid int64, keep, oldPassword, newPassword string, at Attempt) error
	// DeleteAccount checks the password (under at's guard) and removes the
	// user: sessions, posts, follows both ways, profile, and its name.
	DeleteAccount(ctx context.Context, uid int64, password string, at Attempt) error
	// UIDByName resolves a username, in any letter case.
	UIDByName(ctx context.Context, name string) (int64, error)
	// User and UserByName return a user as viewer (0: anonymous) sees it.
	User(ctx context.Context, uid, viewer int64) (User, error)
	UserByName(ctx context.Context, name string, viewer int64) (User, error)
	SetBio(ctx context.Context, uid int64, bio string) (User, error)
}

// ExternalAccounts are users who sign in through another service (an
// OpenID provider, the campus directory) that has already proved who they
// are. provider names the service (lower-case letters, digits, - and _);
// subject is the stable id it gives the person.
type ExternalAccounts interface {
	// SignInExternal opens a session for the user linked to (provider,
	// subject), first making one (with a valid, unique username derived
	// from preferredName) and linking it when there is none. Such a user
	// has no local password.
	SignInExternal(ctx context.Context, provider, subject, preferredName string) (User, string, error)
	// LinkExternal links (provider, subject) to the existing user uid;
	// ErrIdentityTaken when another user has it. Linking again is a no-op.
	LinkExternal(ctx context.Context, uid int64, provider, subject string) error
	// ExternalIdentities are the providers linked to uid, sorted.
	ExternalIdentities(ctx context.Context, uid int64) ([]string, error)
	// GuardExternal runs prove (another service's check of a password,
	// which returns ErrBadCredential for a wrong one) under at's login
	// guard, keyed by provider and name, as Login checks a local password.
	GuardExternal(ctx context.Context, provider, name string, at Attempt, prove func() error) error
}

// SignInStates keeps what a sign-in through another service started with
// until its callback, once: the record is the server's, opaque to the store.
type SignInStates interface {
	// PutOIDCState keeps record under state for ttl.
	PutOIDCState(ctx context.Context, state string, record []byte, ttl time.Duration) error
	// TakeOIDCState returns and deletes the record of state; ErrNotFound
	// when there is none (never kept, already taken, or expired).
	TakeOIDCState(ctx context.Context, state string) ([]byte, error)
}

// Attempt is where an attempt to prove a password comes from and the guard
// it is held to.
type Attempt struct {
	// Client is the client's address.
	Client string
	// Guard allows N failed passwords in a row per account and address
	// (forgotten Per after the last) before the attempts must wait, and a
	// few times N from all addresses together; zero: no guard.
	Guard Limit
}

// Follows are who follows whom.
type Follows interface {
	Follow(ctx context.Context, fan, star int64) error
	Unfollow(ctx context.Context, fan, star int64) error
	Followers(ctx context.Context, uid, viewer int64, q PageQuery) (Page[User], error)
	Following(ctx context.Context, uid, viewer int64, q PageQuery) (Page[User], error)
}

// Posts are posts, reposts and comments and the lists they appear in.
// Reads take the viewer (0: anonymous) for Post.Liked.
type Posts interface {
	Create(ctx context.Context, np NewPost) (Post, error)
	Post(ctx context.Context, mid, viewer int64) (Post, error)
	Delete(ctx context.Context, uid, mid int64) error
	Comments(ctx context.Context, mid int64, q PageQuery) (Page[Post], error)
	UserPosts(ctx context.Context, uid int64, q PageQuery) (Page[Post], error)
	// UserComments pages the comments uid wrote, newest first.
	UserComments(ctx context.Context, uid int64, q PageQuery) (Page[Post], error)
	HomeTimeline(ctx context.Context, uid int64, q PageQuery) (Page[Post], error)
	PublicTimeline(ctx context.Context, q PageQuery) (Page[Post], error)
}

// Social is what users do around messages and each other: likes,
// notifications, topics, search and suggestions.
type Social interface {
	// Like makes uid like message mid (on) or not (idempotent).
	Like(ctx context.Context, uid, mid int64, on bool) error
	// Likers is a page of the users who like mid, newest like first.
	Likers(ctx context.Context, mid int64, q PageQuery) (Page[User], error)
	// Liked is a page of the messages uid likes as it may see them now,
	// newest like first.
	Liked(ctx context.Context, uid int64, q PageQuery) (Page[Post], error)
	// Notifications is a page of uid's notifications, newest first.
	Notifications(ctx context.Context, uid int64, q PageQuery) (Page[Notification], error)
	// MarkRead marks uid's notifications up to id read.
	MarkRead(ctx context.Context, uid, upTo int64) error
	// TagPosts is a page of the posts carrying tag, newest first.
	TagPosts(ctx context.Context, tag string, q PageQuery) (Page[Post], error)
	// SearchUsers are the users whose name starts with prefix, by followers.
	SearchUsers(ctx context.Context, prefix string, q PageQuery) (Page[User], error)
	// SearchTags are the topics that start with prefix with a post
	// q.Viewer may see, by posts, at most q.Size().
	SearchTags(ctx context.Context, prefix string, q PageQuery) ([]TagCount, error)
	// Suggestions are popular local users viewer does not follow yet (no
	// suspended account, no account of another server).
	Suggestions(ctx context.Context, q PageQuery) (Page[User], error)
}

// Safety is what users do about one another (blocks, mutes, word filters,
// a protected account and who may follow it, reports) and what operators do
// about users. What each reader may see follows from it through Lens.
type Safety interface {
	// Block makes uid block target (on) or not, idempotent. Blocking ends
	// the follows both ways and any follow request between them.
	Block(ctx context.Context, uid, target int64, on bool) error
	// Mute makes uid mute target (on) or not, idempotent.
	Mute(ctx context.Context, uid, target int64, on bool) error
	// Blocks and Mutes are pages of the users uid blocks or mutes, newest first.
	Blocks(ctx context.Context, uid int64, q PageQuery) (Page[User], error)
	Mutes(ctx context.Context, uid int64, q PageQuery) (Page[User], error)
	// Filters are uid's filtered words, as they were set.
	Filters(ctx context.Context, uid int64) ([]string, error)
	// SetFilters replaces uid's filtered words (CheckFilters first).
	SetFilters(ctx context.Context, uid int64, words []string) ([]string, error)
	// SetProtected turns uid's protection on or off.
	SetProtected(ctx context.Context, uid int64, on bool) (User, error)
	// FollowOrAsk makes fan follow star, or, when star is protected and fan
	// is not its fan yet, asks star (requested true).
	FollowOrAsk(ctx context.Context, fan, star int64) (requested bool, err error)
	// FollowRequests is a page of the users asking to follow uid, newest first.
	FollowRequests(ctx context.Context, uid int64, q PageQuery) (Page[User], error)
	// AnswerFollowRequest approves (fan becomes uid's fan) or rejects fan's
	// request; ErrNotFound when there is none.
	AnswerFollowRequest(ctx context.Context, uid, fan int64, approve bool) error
	// Report files reporter's report.
	Report(ctx context.Context, reporter int64, nr NewReport) (Report, error)
	// Reports is a page of the reports, resolved or not, oldest first.
	Reports(ctx context.Context, resolved bool, q PageQuery) (Page[Report], error)
	// ResolveReport marks a report resolved (idempotent).
	ResolveReport(ctx context.Context, id int64) (Report, error)
	// Suspend suspends uid (its sessions end at once, its posts leave every
	// view) or lifts the suspension; nothing is deleted.
	Suspend(ctx context.Context, uid int64, on bool) error
	// Remove deletes any message (a post or a comment) as its author could.
	Remove(ctx context.Context, mid int64) error
}

// Edits are the changes to a message after it was written.
type Edits interface {
	// Edit replaces the content of uid's message mid (a post or a comment):
	// ErrNotAuthor for anyone else, 409 edit_limit past MaxEdits. Mentions
	// and tags are read again; the edited Post goes out live as
	// EventPostUpdate.
	Edit(ctx context.Context, uid, mid int64, content string) (Post, error)
	// EditPost is Edit that may change the content warning too.
	EditPost(ctx context.Context, uid, mid int64, e PostEdit) (Post, error)
	// History is every version of mid as viewer may see it, oldest first,
	// the current one last.
	History(ctx context.Context, mid, viewer int64) ([]Version, error)
}

// Keeps are what users keep of posts: pins to the top of a profile and
// private bookmarks.
type Keeps interface {
	// Pin pins uid's own post mid to the top of its profile (on) or not;
	// 409 pin_limit past MaxPins.
	Pin(ctx context.Context, uid, mid int64, on bool) error
	// Pinned are uid's pinned posts as viewer sees them, newest pin first.
	Pinned(ctx context.Context, uid, viewer int64) ([]Post, error)
	// Bookmark saves mid for uid (on) or not, privately and idempotently.
	Bookmark(ctx context.Context, uid, mid int64, on bool) error
	// Bookmarks is a page of uid's bookmarked posts, newest bookmark first.
	Bookmarks(ctx context.Context, uid int64, q PageQuery) (Page[Post], error)
}

// NewReport is what a user reports.
type NewReport struct {
	Target  int64
	PostIDs []int64
	Reason  string
}

// MediaFile is an uploaded image as kept in the media folder.
type MediaFile struct {
	Name, ThumbName string // file names in the media folder
	Width, Height   int
	Alt             string
	Blurhash        string
}

// Uploads keeps the metadata of uploaded images; their bytes live outside
// the store.
type Uploads interface {
	// SaveMedia records an upload of owner's, unattached until a post
	// takes it (unattached ones are removed after a day).
	SaveMedia(ctx context.Context, owner int64, f MediaFile) (Media, error)
	// Upload is owner's upload id; ErrNotFound when it is none of owner's.
	Upload(ctx context.Context, owner, id int64) (Media, error)
	// DescribeUpload replaces the alt text of owner's upload id while no
	// post has taken it (400 invalid_media after).
	DescribeUpload(ctx context.Context, owner, id int64, alt string) (Media, error)
	// SetAvatar makes the image file name uid's avatar.
	SetAvatar(ctx context.Context, uid int64, name string) (User, error)
}

// Limiter counts requests against rate limits shared by every server process.
type Limiter interface {
	// Allow counts one request of subject in bucket against l; it returns a
	// *RateLimitError when the limit is spent.
	Allow(ctx context.Context, bucket, subject string, l Limit) error
}

// Service is everything the HTTP API needs of a store.
type Service interface {
	Accounts
	ExternalAccounts
	SignInStates
	OAuth
	Follows
	Posts
	Social
	Safety
	Keeps
	Lists
	FollowedTags
	Edits
	Reposts
	Polls
	Conversations
	Push
	PushDeliveries
	Mail
	MailDeliveries
	Search
	Uploads
	Profiles
	AppState
	Limiter
	// Ping tells whether the database answers.
	Ping(ctx context.Context) error
	// PingArchive tells whether there is an archive and whether it answers.
	PingArchive(ctx context.Context) (on bool, err error)
}

// LiveTimeline is what the live feed reads to replay what a client missed.
type LiveTimeline interface {
	// Stars returns the uids user uid follows.
	Stars(ctx context.Context, uid int64) ([]int64, error)
	// HomeSince returns uid's home-timeline posts newer than after, oldest
	// first, but those of skip (posts the client has: neither loaded nor
	// counted): the newest max of them when there are more.
	HomeSince(ctx context.Context, uid, after int64, max int, skip []int64) ([]Post, error)
	// HomeSinceLast is HomeSince (no posts when max is 0) and the newest
	// message id of uid's home timeline (0 if empty), read together: what a
	// live connection needs as it opens.
	HomeSinceLast(ctx context.Context, uid, after int64, max int, skip []int64) ([]Post, int64, error)
	// Lens is what uid may see, read now (not from a cache): the live feed
	// holds back what it hides, and reads it again on EventLensChanged.
	Lens(ctx context.Context, uid int64) (*Lens, error)
	// TagKeys are the keys (TagKey) of the topics uid follows, whose
	// TagTopic its live feed listens to; read again on EventTagsChanged.
	TagKeys(ctx context.Context, uid int64) ([]string, error)
	LiveDMs
}

// NewPost is what a user writes: a post, a repost (RepostOf set) or a
// comment (Parent set).
type NewPost struct {
	Author   int64
	Content  string
	RepostOf int64 // a repost of a repost is stored as a repost of the original
	Parent   int64 // the message a comment answers
	// IdempotencyKey, when set, makes a retry return the first result.
	IdempotencyKey string
	// MediaIDs are the author's own uploads to attach (at most MaxMedia).
	MediaIDs []int64
	// Poll is the poll a post carries (store/poll.go), or nil.
	Poll *NewPoll
	// Spoiler is its content warning (at most MaxSpoiler characters);
	// Check trims it.
	Spoiler string
	// URL is, for a note that came from another server, the address of its
	// original there (the Post's url); set by the federation alone.
	URL string
	// Limit is the author's rate limit of posts, counted in the "post"
	// bucket (see Limiter) by Create itself, in the round trip that claims
	// the message; the zero Limit is none.
	Limit Limit
}

// Check applies the contract's rules to a new message before anything is read
// or written.
func (np *NewPost) Check() error {
	spoiler, err := NormalizeSpoiler(np.Spoiler)
	if err != nil {
		return err
	}
	np.Spoiler = spoiler
	isComment := np.Parent != 0
	// A repost may pass the original on, and images may speak, without a word.
	if err := CheckContent(np.Content, (np.RepostOf != 0 || len(np.MediaIDs) > 0) && !isComment); err != nil {
		return err
	}
	if np.RepostOf != 0 && isComment {
		return Invalid(CodeInvalidRepost, "a comment cannot be a repost")
	}
	if np.RepostOf < 0 || np.Parent < 0 {
		return ErrPostNotFound
	}
	if len(np.MediaIDs) > MaxMedia {
		return Invalid(CodeInvalidMedia, fmt.Sprintf("a post may carry at most %d images", MaxMedia))
	}
	if np.Parent != 0 && len(np.MediaIDs) > 0 {
		return Invalid(CodeInvalidMedia, "comments carry no images")
	}
	if len(np.IdempotencyKey) > MaxIdemKeyLen {
		return Invalid(CodeInvalidIdemKey, fmt.Sprintf("Idempotency-Key must be at most %d characters", MaxIdemKeyLen))
	}
	if np.Poll != nil {
		if np.RepostOf != 0 || isComment {
			return NewError(ErrUnprocessable, CodeInvalidPoll, "only a post of its own can carry a poll, not a repost or a comment")
		}
		return np.Poll.Check()
	}
	return nil
}

// TokenHash is the SHA-256 hex of a secret (a session token, an
// idempotency key): the only form of it that is ever stored.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
