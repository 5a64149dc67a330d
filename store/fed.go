package store

import (
	"context"
	"strings"
)

// Federation (CONTRACT.md §16): the types and interfaces through which the
// server's federation package (server/federation) keeps what it knows of
// other ActivityPub servers. A remote account is a user like any other
// (its uid from the same counter, its name "name@domain"), with its actor
// kept beside it (RemoteActor); remote posts are posts by that uid.

// RemoteActor is what the service keeps of a remote account's ActivityPub
// actor.
type RemoteActor struct {
	// UID is the local user that stands for the actor (0 before it is saved).
	UID int64
	// ID is the actor's id (a URL); Handle its name@domain.
	ID     string
	Handle string
	// Inbox and SharedInbox are where activities for it go (SharedInbox
	// empty when it has none).
	Inbox, SharedInbox string
	// Outbox, Followers and Following are its collections' URLs.
	Outbox, Followers, Following string
	// KeyID and KeyPEM are its public key (PKIX or PKCS#1 PEM).
	KeyID, KeyPEM string
	// URL is its profile page on its own server.
	URL string
	// Locked is manuallyApprovesFollowers.
	Locked bool
	// Fetched is when the actor was last read, unix ms.
	Fetched int64
	// The profile, kept in the user's own fields: display name, bio
	// (plain text), avatar and header image URLs.
	Name, Bio, Avatar, Header string
}

// DeliveryInbox is where an activity for the actor is delivered: its shared inbox
// when it has one, else its own.
func (a RemoteActor) DeliveryInbox() string {
	if a.SharedInbox != "" {
		return a.SharedInbox
	}
	return a.Inbox
}

// Delivery is an activity to deliver: its id, who signs it (a local uid; 0
// is the instance actor), its JSON and the inboxes it goes to. The queue
// sends one request per distinct inbox.
type Delivery struct {
	ID      string
	Signer  int64
	Body    []byte
	Inboxes []string
	// Key, when set, is the signer's private key (PEM), carried with the
	// delivery and gone with it: the Delete of a deleted account's actor,
	// whose own key went with the account.
	Key string
}

// Fed is what the federation keeps in the store.
type Fed interface {
	// SaveRemoteActor records a (the first time, with a new uid and the name
	// a.Handle) or refreshes it, and returns its uid.
	SaveRemoteActor(ctx context.Context, a RemoteActor) (int64, error)
	// RemoteActorByID and RemoteActorByUID return a remote actor;
	// ErrNotFound when unknown (RemoteActorByUID: or local).
	RemoteActorByID(ctx context.Context, actorID string) (RemoteActor, error)
	RemoteActorByUID(ctx context.Context, uid int64) (RemoteActor, error)
	// RemoteActorsByUID reads many at once, skipping local and unknown uids.
	RemoteActorsByUID(ctx context.Context, uids []int64) ([]RemoteActor, error)
	// ForgetRemoteActor removes the remote account uid (Delete of a Person).
	ForgetRemoteActor(ctx context.Context, uid int64) error
	// LocalKey is the PEM pair (PKCS#1 private key, PKIX public key) of the
	// local user uid (0: the instance actor), made on first need with make.
	LocalKey(ctx context.Context, uid int64, make func() (priv, pub string, err error)) (priv, pub string, err error)
	// FirstSeen records an incoming activity id and tells whether it is new.
	FirstSeen(ctx context.Context, activityID string) (bool, error)
	// ForgetSeen takes an activity id back (its handling failed and may be
	// tried again by a redelivery).
	ForgetSeen(ctx context.Context, activityID string) error
	// ObjectPost is the local message of a remote object id (0 when none);
	// SetObjectPost records it (and url, unless "", as the Post's url: the
	// original's address), PostObject is the other way round ("" for a
	// message that is not remote), DropObject forgets it.
	ObjectPost(ctx context.Context, objectID string) (int64, error)
	SetObjectPost(ctx context.Context, objectID string, mid int64, url string) error
	PostObject(ctx context.Context, mid int64) (string, error)
	DropObject(ctx context.Context, objectID string) error
	// DomainBlocks lists the blocked domains, sorted; BlockDomain adds (on)
	// or removes one; DomainBlocked tells whether host or a domain above it
	// is blocked.
	DomainBlocks(ctx context.Context) ([]string, error)
	BlockDomain(ctx context.Context, domain string, on bool) error
	DomainBlocked(ctx context.Context, host string) (bool, error)
}

// NormalizeDomain is the form a domain is blocked and compared in: lower
// case, without a trailing dot or spaces, its port kept when it has one
// (a block of "example.org" covers every port, one of "example.org:8080"
// that port alone); "" when it is not a plausible domain.
func NormalizeDomain(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	host, port, hasPort := strings.Cut(d, ":")
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 || strings.HasPrefix(host, ".") || strings.Contains(host, "..") {
		return ""
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return ""
		}
	}
	if hasPort {
		if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
			return ""
		}
		return host + ":" + port
	}
	return host
}

// DomainsOf are host and the domains above it, host first
// ("a.b.example:8080" → a.b.example:8080, a.b.example, b.example,
// example): a block of a domain covers its subdomains and ports.
func DomainsOf(host string) []string {
	host = NormalizeDomain(host)
	if host == "" {
		return nil
	}
	var out []string
	if h, _, ok := strings.Cut(host, ":"); ok {
		out = append(out, host)
		host = h
	}
	out = append(out, host)
	for i := strings.IndexByte(host, '.'); i >= 0; i = strings.IndexByte(host, '.') {
		host = host[i+1:]
		out = append(out, host)
	}
	return out
}

// Federation's error codes (CONTRACT.md §16).
const (
	CodeInvalidDomain Code = "invalid_domain"
	CodeDomainBlocked Code = "domain_blocked" // ErrForbidden
	CodeRemoteFailed  Code = "remote_failed"  // ErrNotFound: the remote server did not answer as it should
	CodeFederationOff Code = "federation_off" // ErrNotFound
)

// Federation's errors.
var (
	ErrDomainBlocked = NewError(ErrForbidden, CodeDomainBlocked, "that domain is blocked here")
	ErrFederationOff = NewError(ErrNotFound, CodeFederationOff, "federation is off on this server (MICROBLOG_FEDERATION)")
)
