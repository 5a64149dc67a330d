package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// Private messages (私信): a conversation is between exactly two users, and
// its messages are a kind of their own, apart from posts: never on a
// timeline, never public, with ids of their own sequence.

// Message is the contract's Message object.
type Message struct {
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

// Party is one of the two users of a message, as a Message shows it.
type Party struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// Other is the user of m that is not uid.
func (m *Message) Other(uid int64) Party {
	if m.Sender.ID == uid {
		return m.Recipient
	}
	return m.Sender
}

// Conversation is the contract's Conversation object: one of a user's
// conversations as that user sees it.
type Conversation struct {
	With        User     `json:"with"`
	LastMessage *Message `json:"last_message"`
	// UnreadCount is how many of the conversation's messages the user has
	// not read.
	UnreadCount int64 `json:"unread_count"`
	// UpdatedAt is when its last message was written.
	UpdatedAt Time `json:"updated_at"`
}

// MaxMessage is the longest message, in characters (runes).
const MaxMessage = 1000

// Who may write to a user (User.MessagesFrom, PATCH /me messages_from).
const (
	MessagesFromEveryone  = "everyone"
	MessagesFromFollowing = "following" // only the users it follows
)

// Live events of private messages, on notify:<uid> of each of the two users.
const (
	EventMessage       = "message"        // a Message, to both users
	EventMessageDelete = "message_delete" // {"id"} of a message its sender deleted, to both users
	// EventConversationRead: the user read a conversation, to the user's
	// own connections: ConversationReadData.
	EventConversationRead = "conversation_read"
)

// ConversationReadData is the data of a conversation_read event.
type ConversationReadData struct {
	With Party `json:"with"`
	UpTo int64 `json:"up_to"`
}

// Errors of private messages.
var (
	ErrMessageNotFound = NewError(ErrNotFound, CodeMessageNotFound, "no such message")
	ErrMessageSelf     = NewError(ErrInvalid, CodeCannotMessageSelf, "you cannot send a message to yourself")
	ErrMessagesClosed  = NewError(ErrForbidden, CodeMessagesClosed, "this user takes messages only from the people they follow")
	ErrNotSender       = NewError(ErrForbidden, CodeNotAuthor, "only its sender can delete a message")
)

// NewMessage is a private message a user sends.
type NewMessage struct {
	From, To int64
	Content  string
	// MediaIDs are the sender's own uploads to attach (at most MaxMedia).
	MediaIDs []int64
	// IdempotencyKey, when set, makes a retry return the first result.
	IdempotencyKey string
	// Limit is the sender's rate limit of messages, counted in the
	// "message" bucket (see Limiter) in the round trip that claims the
	// message; the zero Limit is none.
	Limit Limit
}

// Check applies the contract's rules to a new message before anything is
// read or written.
func (nm NewMessage) Check() error {
	if nm.From == nm.To {
		return ErrMessageSelf
	}
	if err := checkText(nm.Content, false, MaxMessage); err != nil {
		return err
	}
	if len(nm.MediaIDs) > MaxMedia {
		return Invalid(CodeInvalidMedia, fmt.Sprintf("a message may carry at most %d images", MaxMedia))
	}
	if len(nm.IdempotencyKey) > MaxIdemKeyLen {
		return Invalid(CodeInvalidIdemKey, fmt.Sprintf("Idempotency-Key must be at most %d characters", MaxIdemKeyLen))
	}
	return nil
}

// CheckMessagesFrom checks a messages_from setting.
func CheckMessagesFrom(v string) error {
	if v != MessagesFromEveryone && v != MessagesFromFollowing {
		return Invalid(CodeInvalidField, `messages_from must be "everyone" or "following"`)
	}
	return nil
}

// Conversations are private messages: what users send one another, their
// conversations, and who may write to them. Every read is one user's own.
type Conversations interface {
	// SendMessage writes nm; 403 blocked when one of the two blocks the
	// other, 403 messages_closed when the recipient takes messages from
	// the users it follows only and does not follow the sender.
	SendMessage(ctx context.Context, nm NewMessage) (Message, error)
	// ConversationList is a page of uid's conversations, latest activity first.
	ConversationList(ctx context.Context, uid int64, q PageQuery) (Page[Conversation], error)
	// ConversationMessages is a page of the messages between uid and
	// other, newest first, down to the first one.
	ConversationMessages(ctx context.Context, uid, other int64, q PageQuery) (Page[Message], error)
	// MarkConversationRead marks uid's conversation with other read up to
	// upTo (never unread again).
	MarkConversationRead(ctx context.Context, uid, other, upTo int64) error
	// DeleteMessage deletes message id for both users; only its sender may.
	DeleteMessage(ctx context.Context, uid, id int64) error
	// SetMessagesFrom sets who may write to uid (MessagesFromEveryone or
	// MessagesFromFollowing).
	SetMessagesFrom(ctx context.Context, uid int64, from string) error
}

// LiveMessages is what the live feed reads to replay the messages a client
// missed.
type LiveMessages interface {
	// MessagesSince returns uid's messages (sent and received) newer than
	// after, oldest first: the newest max of them when there are more.
	MessagesSince(ctx context.Context, uid, after int64, max int) ([]Message, error)
	// LastMessageID is the id of uid's newest message, 0 if none.
	LastMessageID(ctx context.Context, uid int64) (int64, error)
}

// ArchivedMessage is one private message as the SQL archive keeps it. A
// deleted one stays as a tombstone: Deleted set, its text and pictures
// cleared.
type ArchivedMessage struct {
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

// MessageArchive is the part of the archive that keeps private messages,
// as Archive keeps posts: Save may be replayed, what is there stays.
type MessageArchive interface {
	// SaveMessages writes, in one transaction, new messages (an id already
	// there is left as it is) and tombstones of deleted ones (which replace
	// whatever row there was, their text and media cleared).
	SaveMessages(ctx context.Context, put, deleted []ArchivedMessage) error
	// DirectMessages returns the rows of these ids that exist, tombstones
	// included.
	DirectMessages(ctx context.Context, ids []int64) (map[int64]ArchivedMessage, error)
	// HasMessages returns which of ids have a row, in the order of ids, each once.
	HasMessages(ctx context.Context, ids []int64) ([]int64, error)
	// ConversationIDs returns the ids q selects, newest first.
	ConversationIDs(ctx context.Context, q ConversationQuery) ([]int64, error)
	// CountConversation counts the messages q selects, Limit aside.
	CountConversation(ctx context.Context, q ConversationQuery) (int64, error)
}
