package store

import "context"

// Web Push (RFC 8030) subscriptions: a device's push service endpoint and
// the keys to encrypt to it (RFC 8291), one per access token or session.

// PushAlerts are the kinds of notification a subscription wants, by
// Mastodon's names.
type PushAlerts struct {
	Mention       bool `json:"mention"`
	Status        bool `json:"status"`
	Reblog        bool `json:"reblog"`
	Follow        bool `json:"follow"`
	FollowRequest bool `json:"follow_request"`
	Favourite     bool `json:"favourite"`
	Poll          bool `json:"poll"`
	Update        bool `json:"update"`
	AdminSignUp   bool `json:"admin.sign_up"`
	AdminReport   bool `json:"admin.report"`
}

// AllPushAlerts wants every kind.
var AllPushAlerts = PushAlerts{true, true, true, true, true, true, true, true, true, true}

// Allows tells whether the alerts want a notification of Mastodon type t.
func (a PushAlerts) Allows(t string) bool {
	switch t {
	case "mention":
		return a.Mention
	case "status":
		return a.Status
	case "reblog":
		return a.Reblog
	case "follow":
		return a.Follow
	case "follow_request":
		return a.FollowRequest
	case "favourite":
		return a.Favourite
	case "poll":
		return a.Poll
	case "update":
		return a.Update
	case "admin.sign_up":
		return a.AdminSignUp
	case "admin.report":
		return a.AdminReport
	}
	return false
}

// The policies of a subscription: from whom it wants to hear.
const (
	PushPolicyAll      = "all"      // anyone
	PushPolicyFollowed = "followed" // people the user follows
	PushPolicyFollower = "follower" // the user's followers
	PushPolicyNone     = "none"     // no one
)

// PushSubscription is one device's Web Push subscription.
type PushSubscription struct {
	ID  int64 `json:"id"`
	UID int64 `json:"uid"`
	// Owner is the access token or session it belongs to ("m:" or "s:"
	// and the token's hash): it ends with it.
	Owner    string     `json:"owner"`
	Endpoint string     `json:"endpoint"`
	P256dh   string     `json:"p256dh"` // the device's public key, base64url
	Auth     string     `json:"auth"`   // the device's 16-byte secret, base64url
	Alerts   PushAlerts `json:"alerts"`
	Policy   string     `json:"policy"`
	// Lang is the language the notifications are written in ("en", "zh").
	Lang string `json:"lang"`
	// Origin is the service's public origin as the device reached it, for
	// the icons' URLs.
	Origin  string `json:"origin"`
	Created Time   `json:"created"`
}

// PushJob is one notification to push to a user's devices: a
// notification (Notification) or a private message (DM, from Actor with
// Text).
type PushJob struct {
	UID          int64
	Notification int64
	DM           int64
	Actor        int64
	Text         string
}

// Push keeps the Web Push subscriptions and the service's VAPID keys.
type Push interface {
	// PutPushSubscription stores sub as the one of its owner, replacing
	// any, and returns it; a new one (ID 0) is given an id.
	PutPushSubscription(ctx context.Context, sub PushSubscription) (PushSubscription, error)
	// PushSubscription is owner's subscription (ErrNotFound: none).
	PushSubscription(ctx context.Context, uid int64, owner string) (PushSubscription, error)
	// DeletePushSubscription removes owner's subscription, if any.
	DeletePushSubscription(ctx context.Context, uid int64, owner string) error
	// VAPIDKeys are the deployment's VAPID keys; the first call of any
	// process makes and stores them with generate, every other reads them.
	VAPIDKeys(ctx context.Context, generate func() (public, private string, err error)) (public, private string, err error)
}

// PushDeliveries is what the delivery of push jobs reads.
type PushDeliveries interface {
	// PushSubscriptions are all of uid's subscriptions whose owner is
	// still signed in; those of ended sessions are removed.
	PushSubscriptions(ctx context.Context, uid int64) ([]PushSubscription, error)
	// PushNotification is notification nid as uid would be shown it; false
	// when it is gone or hidden from uid (blocks, mutes).
	PushNotification(ctx context.Context, uid, nid int64) (Notification, bool, error)
	// PushFrom tells whether uid hears from actor under policy (and no
	// block or mute of uid hides actor).
	PushFrom(ctx context.Context, uid, actor int64, policy string) (bool, error)
	// User is uid as viewer sees it.
	User(ctx context.Context, uid, viewer int64) (User, error)
	DeletePushSubscription(ctx context.Context, uid int64, owner string) error
}
