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
