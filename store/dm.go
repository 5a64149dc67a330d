package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// Private messages (私信): a conversation is between exactly two users, and
// its messages are a kind of their own, apart from posts: never on a
// timeline, never public, with ids of their own sequence.

// DM is the contract's DM object.
type DM struct {
	ID        int64   `json:"id"`
	Sender    Party   `json:"sender"`
	Recipient Party   `json:"recipient"`
	Content   string  `json:"content"`
	CreatedAt Time    `json:"created_at"`
	Media     []Media `json:"media"`
	// Encoded is the message as its live event carries it, when a write
	// has just encoded it so (nil otherwise): what the sender is answered.
	Encoded json.RawMessage `json:"-"`
}

// Party is one of the two users of a message, as a DM shows it.
type Party struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// Other is the user of m that is not uid.
func (m *DM) Other(uid int64) Party {
	if m.Sender.ID == uid {
		return m.Recipient
	}
	return m.Sender
}

// Conversation is the contract's Conversation object: one of a user's
// conversations as that user sees it.
type Conversation struct {
	With   User `json:"with"`
	LastDM *DM  `json:"last_message"`
	// UnreadCount is how many of the conversation's messages the user has
	// not read.
	UnreadCount int64 `json:"unread_count"`
	// UpdatedAt is when its last message was written.
	UpdatedAt Time `json:"updated_at"`
}

// MaxDM is the longest message, in characters (runes).
const MaxDM = 1000

// Who may write to a user (User.DMsFrom, PATCH /me messages_from).
const (
	DMsFromEveryone  = "everyone"
	DMsFromFollowing = "following" // only the users it follows
)

// Live events of private messages, on notify:<uid> of each of the two users.
const (
	EventDM       = "message"        // a DM, to both users
	EventDMDelete = "message_delete" // {"id"} of a message its sender deleted, to both users
	// EventConversationRead: the user read a conversation, to the user's
	// own connections: ConversationReadData.
	EventConversationRead = "conversation_read"
	// EventConversationUnread: the user marked a conversation unread, to
	// the user's own connections: ConversationUnreadData.
	EventConversationUnread = "conversation_unread"
)

// ConversationUnreadData is the data of a conversation_unread event.
type ConversationUnreadData struct {
	With        Party `json:"with"`
	UnreadCount int64 `json:"unread_count"`
}

// ConversationReadData is the data of a conversation_read event.
type ConversationReadData struct {
	With Party `json:"with"`
	UpTo int64 `json:"up_to"`
}

// Errors of private messages.
var (
	ErrDMNotFound     = NewError(ErrNotFound, CodeDMNotFound, "no such message")
	ErrMessageSelf    = NewError(ErrInvalid, CodeCannotMessageSelf, "you cannot send a message to yourself")
	ErrMessagesClosed = NewError(ErrForbidden, CodeDMsClosed, "this user takes messages only from the people they follow")
	ErrNotSender      = NewError(ErrForbidden, CodeNotAuthor, "only its sender can delete a message")
)

// NewDM is a private message a user sends.
type NewDM struct {
	From, To int64
	Content  string
	// MediaIDs are the sender's own uploads to attach (at most MaxDMMedia).
	MediaIDs []int64
	// IdempotencyKey, when set, makes a retry return the first result.
	IdempotencyKey string
	// Limit is the sender's rate limit of messages, counted in the
	// "message" bucket (see Limiter) in the round trip that claims the
	// message; the zero Limit is none.
	Limit Limit
}

// MaxDMMedia is how many images one private message may carry: four, as
// before posts took nine (a post's grid is no chat bubble's).
const MaxDMMedia = 4

// Check applies the contract's rules to a new message before anything is
// read or written.
func (nm NewDM) Check() error {
	if nm.From == nm.To {
		return ErrMessageSelf
	}
	// A picture may go without words, as a post's may.
	if err := checkText(nm.Content, len(nm.MediaIDs) > 0, MaxDM); err != nil {
		return err
	}
	if len(nm.MediaIDs) > MaxDMMedia {
		return Invalid(CodeInvalidMedia, fmt.Sprintf("a message may carry at most %d images", MaxDMMedia))
	}
	if len(nm.IdempotencyKey) > MaxIdemKeyLen {
		return Invalid(CodeInvalidIdemKey, fmt.Sprintf("Idempotency-Key must be at most %d characters", MaxIdemKeyLen))
	}
	return nil
}

// CheckDMsFrom checks a messages_from setting.
func CheckDMsFrom(v string) error {
	if v != DMsFromEveryone && v != DMsFromFollowing {
		return Invalid(CodeInvalidField, `messages_from must be "everyone" or "following"`)
	}
	return nil
}

// Conversations are private messages: what users send one another, their
// conversations, and who may write to them. Every read is one user's own.
type Conversations interface {
	// SendDM writes nm; 403 blocked when one of the two blocks the
	// other, 403 messages_closed when the recipient takes messages from
	// the users it follows only and does not follow the sender.
	SendDM(ctx context.Context, nm NewDM) (DM, error)
	// ConversationList is a page of uid's conversations, latest activity first.
	ConversationList(ctx context.Context, uid int64, q PageQuery) (Page[Conversation], error)
	// ConversationDMs is a page of the messages between uid and
	// other, newest first, down to the first one.
	ConversationDMs(ctx context.Context, uid, other int64, q PageQuery) (Page[DM], error)
	// MarkConversationRead marks uid's conversation with other read up to
	// upTo (never unread again).
	MarkConversationRead(ctx context.Context, uid, other, upTo int64) error
	// MarkConversationUnread marks uid's conversation with other unread:
	// its newest message, unless something is unread already. It answers
	// how many messages are unread, ErrDMNotFound when the conversation
	// has none.
	MarkConversationUnread(ctx context.Context, uid, other int64) (int64, error)
	// DeleteDM deletes message id for both users; only its sender may.
	DeleteDM(ctx context.Context, uid, id int64) error
	// SetDMsFrom sets who may write to uid (DMsFromEveryone or
	// DMsFromFollowing).
	SetDMsFrom(ctx context.Context, uid int64, from string) error
}

// LiveDMs is what the live feed reads to replay the messages a client
// missed.
type LiveDMs interface {
	// DMsSince returns uid's messages (sent and received) newer than
	// after, oldest first: the newest max of them when there are more.
	DMsSince(ctx context.Context, uid, after int64, max int) ([]DM, error)
	// LastDMID is the id of uid's newest message, 0 if none.
	LastDMID(ctx context.Context, uid int64) (int64, error)
}

// ArchivedDM is one private message as the SQL archive keeps it. A
// deleted one stays as a tombstone: Deleted set, its text and pictures
// cleared.
type ArchivedDM struct {
	ID                        int64
	Sender, Recipient         int64
	SenderName, RecipientName string
	Content                   string
	Created                   int64  // unix ms
	Media                     string // the JSON the message carries in Redis
	Deleted                   bool
}

// ConversationQuery selects the ids of the messages between users A and B
// that are not deleted, newest first, below Before (0: no bound) and above
// After, at most Limit (which must be positive).
type ConversationQuery struct {
	A, B          int64
	Before, After int64
	Limit         int
}

// DMArchive is the part of the archive that keeps private messages,
// as Archive keeps posts: Save may be replayed, what is there stays.
type DMArchive interface {
	// SaveDMs writes, in one transaction, new messages (an id already
	// there is left as it is) and tombstones of deleted ones (which replace
	// whatever row there was, their text and media cleared).
	SaveDMs(ctx context.Context, put, deleted []ArchivedDM) error
	// DMs returns the rows of these ids that exist, tombstones
	// included.
	DMs(ctx context.Context, ids []int64) (map[int64]ArchivedDM, error)
	// HasDMs returns which of ids have a row, in the order of ids, each once.
	HasDMs(ctx context.Context, ids []int64) ([]int64, error)
	// ConversationIDs returns the ids q selects, newest first.
	ConversationIDs(ctx context.Context, q ConversationQuery) ([]int64, error)
	// CountConversation counts the messages q selects, Limit aside.
	CountConversation(ctx context.Context, q ConversationQuery) (int64, error)
}
