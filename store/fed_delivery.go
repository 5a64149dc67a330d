package store

import (
	"context"
	"errors"
)

// The delivery of activities to other ActivityPub servers (CONTRACT.md §16,
// docs/federation.md "Delivery"): an activity is queued once with the
// inboxes it goes to (Delivery, EnqueueDelivery), and every server process's
// deliverer sends one signed request per inbox, retrying with back-off.

// DeliveryJob is one request of a queued Delivery: its activity to one
// inbox.
type DeliveryJob struct {
	// Ref names the queued delivery the job belongs to (its body).
	Ref string
	// ID is the activity's id; Signer the local uid whose key signs the
	// request (0: the instance actor); Body the activity's JSON.
	ID     string
	Signer int64
	Body   []byte
	// Key is the Delivery's Key, when it carries one (signs instead of
	// Signer's stored key).
	Key string
	// Inbox is where it goes.
	Inbox string
	// Attempt counts the tries before this one; First is when the delivery
	// was queued (unix ms): it is given up GiveUpAfter later.
	Attempt int
	First   int64
}

// ErrDeliveryRefused marks (wrapped) a delivery that must not be tried
// again: the inbox answered 4xx (other than 408 and 429, 410 included), or
// its address is one the service may not reach.
var ErrDeliveryRefused = errors.New("delivery refused")

// DeliveryQueue is the durable queue of activities to deliver.
type DeliveryQueue interface {
	// EnqueueDelivery queues d: one request per distinct inbox of
	// d.Inboxes, sent by the deliverers of every server process. Once it
	// returns nil the delivery survives a restart.
	EnqueueDelivery(ctx context.Context, d Delivery) error
}

// Kinds of FedEvent.
const (
	FedCreate      = "create"       // Post: a post, comment or repost written
	FedUpdate      = "update"       // Post: edited
	FedDelete      = "delete"       // Post: deleted (Object: its object id)
	FedFollow      = "follow"       // Target followed (or asked to follow)
	FedUnfollow    = "unfollow"     // Target unfollowed (or the request withdrawn)
	FedLike        = "like"         // Post (remote) liked
	FedUnlike      = "unlike"       // Post (remote) no longer liked
	FedBlock       = "block"        // Target blocked
	FedUnblock     = "unblock"      // Target unblocked
	FedAccept      = "accept"       // Target's request to follow Actor approved
	FedReject      = "reject"       // Target's request to follow Actor refused
	FedProfile     = "profile"      // Actor's profile changed
	FedDeleteActor = "delete_actor" // Actor's account deleted
	FedDM          = "dm"           // Post: a private message (its id) to Target
	FedVote        = "vote"         // Post (remote, a poll): Actor voted Choices
)

// FedEvent is a local event that may go out to other servers as an
// activity: queued durably (FedOutbox) by the request path, turned into a
// Delivery off it. Post and Target are the message and the user it
// concerns (0 when none); Object, for a deleted post, what it was.
type FedEvent struct {
	Kind   string `json:"k"`
	Actor  int64  `json:"a"`
	Post   int64  `json:"p,omitempty"`
	Target int64  `json:"t,omitempty"`
	// Parent, Mentions and Followers are what a deleted post reached:
	// its parent's author and its mentions (remote ones among them get the
	// Delete), and whether its author's followers saw it.
	Parent   int64   `json:"pa,omitempty"`
	Mentions []int64 `json:"m,omitempty"`
	// Protected says the author was protected (followers only).
	Protected bool `json:"pr,omitempty"`
	// At is when the event happened (unix ms): an Undo names it.
	At int64 `json:"at,omitempty"`
	// DM carries a private message's text and recipient's name.
	DM *DM `json:"dm,omitempty"`
	// Choices are a vote's options (indexes into the poll's).
	Choices []int `json:"c,omitempty"`
}

// FedOutbox is where the request path queues FedEvents, and what marks a
// local user as followed from elsewhere.
type FedOutbox interface {
	// QueueFedEvent queues e durably.
	QueueFedEvent(ctx context.Context, e FedEvent) error
	// MarkFedFans records that uid has (had) a remote follower: its posts
	// are queued as FedEvents from then on.
	MarkFedFans(ctx context.Context, uid int64) error
	// HasFedFans tells whether MarkFedFans marked uid.
	HasFedFans(ctx context.Context, uid int64) (bool, error)
	// FanIDs are uid's followers from rank offset on, n at most.
	FanIDs(ctx context.Context, uid, offset, n int64) ([]int64, error)
}
