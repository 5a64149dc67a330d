package schema

// The keys of federation (CONTRACT.md §16, docs/federation.md): the remote
// actors that stand behind remote users, the local users' signing keys,
// the activities already taken in, the remote objects' local messages and
// the blocked domains.

// FedActor is the HASH fed:actor:<uid> of the remote account uid's actor:
// the fields FedActor* below.
func (k Keys) FedActor(uid int64) string { return k.prefix + "fed:actor:" + k.tag(uid) }

// FedActorID is the STRING fed:actorid:<actor id> holding the uid of the
// remote account whose actor has that id, claimed with SET NX.
func (k Keys) FedActorID(actorID string) string { return k.prefix + "fed:actorid:" + actorID }

// FedKey is the HASH fed:key:<uid> of a local user's signing key (uid 0:
// the instance actor): FedKeyPrivate (PKCS#1 PEM) and FedKeyPublic (PKIX
// PEM), written once with HSETNX so that concurrent first uses agree.
func (k Keys) FedKey(uid int64) string { return k.prefix + "fed:key:" + k.tag(uid) }

// FedSeen is the STRING fed:seen:<activity id>, set NX with FedSeenTTL when
// an incoming activity is taken in, so that a redelivery takes effect once.
func (k Keys) FedSeen(activityID string) string { return k.prefix + "fed:seen:" + activityID }

// FedObject is the STRING fed:object:<object id> holding the local message
// id of a remote object (a Note).
func (k Keys) FedObject(objectID string) string { return k.prefix + "fed:object:" + objectID }

// FedDomainBlocks is the SET fed:domain_blocks of the domains an operator
// blocked (store.NormalizeDomain's form).
func (k Keys) FedDomainBlocks() string { return k.prefix + "fed:domain_blocks" }

// FedSeenTTL is how long an activity id is remembered, in seconds (7 days).
const FedSeenTTL = 7 * 24 * 3600

// The fields of a FedActor hash.
const (
	FedActorFieldID          = "id"
	FedActorFieldHandle      = "handle"
	FedActorFieldInbox       = "inbox"
	FedActorFieldSharedInbox = "shared_inbox"
	FedActorFieldOutbox      = "outbox"
	FedActorFieldFollowers   = "followers"
	FedActorFieldFollowing   = "following"
	FedActorFieldKeyID       = "key_id"
	FedActorFieldKeyPEM      = "key_pem"
	FedActorFieldURL         = "url"
	FedActorFieldLocked      = "locked"
	FedActorFieldFetched     = "fetched"
)

// The fields of a FedKey hash.
const (
	FedKeyPrivate = "private"
	FedKeyPublic  = "public"
)

// FieldRemote of a user hash is, on a remote account, its actor's id;
// FieldRemoteURL its profile page on its own server. Absent on local users.
const (
	FieldRemote    = "remote"
	FieldRemoteURL = "remote_url"
)

// FieldAPID of a message hash is, on a remote message, its object's id;
// FieldAPURL, on a remote note, the address of its original to open (its
// url there, or its id): the Post's url, read with the rest of the hash.
const (
	FieldAPID  = "apid"
	FieldAPURL = "apurl"
)
