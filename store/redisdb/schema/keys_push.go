package schema

import (
	"strconv"

	"microblog/store"
)

// The keys of Web Push: each user's subscriptions, the queue of pushes to
// send and the deployment's VAPID keys.

// PushSubscriptions is the HASH push:subs:<uid> of a user's Web Push
// subscriptions: owner ("m:" or "s:" and its token's hash) → JSON of a
// store.PushSubscription.
func (k Keys) PushSubscriptions(uid int64) string { return k.prefix + "push:subs:" + k.tag(uid) }

// LastPushSubscriptionID is the STRING global:pushsubid, INCRed for each
// new subscription.
func (k Keys) LastPushSubscriptionID() string { return k.prefix + "global:pushsubid" }

// PushQueue is the STREAM push:queue of pushes to send, read through the
// consumer group PushGroup: each entry is one PushJob.
func (k Keys) PushQueue() string { return k.prefix + "push:queue" }

// VAPIDKeys is the STRING global:vapid holding the deployment's VAPID key
// pair as JSON {"public","private"} (base64url), set once (SET NX) by the
// first process that needs it when the operator set none.
func (k Keys) VAPIDKeys() string { return k.prefix + "global:vapid" }

// PushGroup is the consumer group of every server process's pusher.
const PushGroup = "push"

// The fields of a PushQueue entry.
const (
	PushFieldUID          = "uid"
	PushFieldNotification = "n"
	PushFieldDM           = "dm"
	PushFieldActor        = "actor"
	PushFieldText         = "text"
)

// PushQueueMax bounds the push queue (XADD MAXLEN ~): a backlog this long
// means the push services are far behind, and the oldest pushes are the
// least worth sending.
const PushQueueMax = 100000

// PushEntry is the fields of job's entry in the PushQueue.
func PushEntry(job store.PushJob) []any {
	return []any{PushFieldUID, job.UID, PushFieldNotification, job.Notification,
		PushFieldDM, job.DM, PushFieldActor, job.Actor, PushFieldText, job.Text}
}

// ParsePushEntry is the job of a PushQueue entry's fields.
func ParsePushEntry(v map[string]any) store.PushJob {
	num := func(f string) int64 {
		s, _ := v[f].(string)
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	text, _ := v[PushFieldText].(string)
	return store.PushJob{UID: num(PushFieldUID), Notification: num(PushFieldNotification),
		DM: num(PushFieldDM), Actor: num(PushFieldActor), Text: text}
}
