package schema

import (
	"strconv"
	"strings"
)

// The keys of the delivery queue of federation (redisdb/fed/queue.go,
// runner/deliverer.go). They share one hash tag on a cluster, {fedq}, so
// that the scripts that move a job between them (fed_*.lua) run on one
// master.

// fedQ is the queue's part of its keys: fed: on one Redis, fed:{fedq}: on
// a cluster.
func (k Keys) fedQ() string {
	if k.cluster {
		return k.prefix + "fed:{fedq}:"
	}
	return k.prefix + "fed:"
}

// FedDeliveries is the STREAM fed:deliveries of delivery jobs, one entry per
// request (an activity to one inbox), read through the consumer group
// DeliverGroup of every server process: its one field j is a
// DeliveryJobRef.
func (k Keys) FedDeliveries() string { return k.fedQ() + "deliveries" }

// FedRetries is the ZSET fed:retries of delivery jobs waiting to be tried
// again: member = a DeliveryJobRef, score = when it is due (unix ms); due
// jobs go back on FedDeliveries (fed_due.lua).
func (k Keys) FedRetries() string { return k.fedQ() + "retries" }

// FedDeliveryBody is the HASH fed:delivery:<ref> of one queued delivery:
// b (its JSON), i (the activity id), s (the signer's uid), left (how many of
// its jobs are not settled yet; the hash goes with the last).
func (k Keys) FedDeliveryBody(ref string) string { return k.fedQ() + "delivery:" + ref }

// DeliverGroup is the consumer group of every server process's deliverer.
const DeliverGroup = "deliver"

// The fields of a FedDeliveryBody hash.
const (
	FedFieldBody   = "b"
	FedFieldID     = "i"
	FedFieldSigner = "s"
	FedFieldLeft   = "left"
	// FedFieldKey is, on the Delete of a deleted account's actor only, the
	// signing key (its private PEM) the account no longer has elsewhere.
	FedFieldKey = "k"
)

// FedJobField is the one field of a FedDeliveries entry.
const FedJobField = "j"

// DeliveryJobRef is a delivery job as the queue keeps it: its delivery's
// ref, how many tries it had, when its delivery was queued and its inbox,
// as "ref|attempt|first|inbox".
type DeliveryJobRef struct {
	Ref     string
	Attempt int
	First   int64
	Inbox   string
}

// String is the job's form in the queue.
func (j DeliveryJobRef) String() string {
	return j.Ref + "|" + strconv.Itoa(j.Attempt) + "|" + strconv.FormatInt(j.First, 10) + "|" + j.Inbox
}

// ParseDeliveryJobRef reads a job's form; ok is false for anything else.
func ParseDeliveryJobRef(s string) (j DeliveryJobRef, ok bool) {
	parts := strings.SplitN(s, "|", 4)
	if len(parts) != 4 || parts[0] == "" || parts[3] == "" {
		return j, false
	}
	var err1, err2 error
	j.Ref, j.Inbox = parts[0], parts[3]
	j.Attempt, err1 = strconv.Atoi(parts[1])
	j.First, err2 = strconv.ParseInt(parts[2], 10, 64)
	return j, err1 == nil && err2 == nil
}

// FieldFedFans is the field of a local user's hash (user:userid:<uid>)
// that is "1" once a remote account followed it or asked to: its posts
// then go out to the fediverse. A post reads it in the HMGET that reads
// its author's name, so a post by a user no remote account follows costs
// nothing more (issue 39).
const FieldFedFans = "fed_fans"

// FedOutbox is the STREAM fed:outbox of local events that may go out as
// activities (a post, its edit or its delete; a follow, like, block, ...
// of a remote account), read through the consumer group OutboxGroup: each
// entry's one field e is a store.FedEvent as JSON. The outbound runner
// turns each into a Delivery (server/federation/outbound*.go).
func (k Keys) FedOutbox() string { return k.prefix + "fed:outbox" }

// OutboxGroup is the consumer group of every server process's outbound
// runner.
const OutboxGroup = "outbox"

// FedEventField is the one field of a FedOutbox entry.
const FedEventField = "e"
