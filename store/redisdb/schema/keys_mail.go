package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"microblog/store"
)

// The keys of email addresses and their mail: the index of confirmed
// addresses, the tokens of the links mailed, and the queue of mail to send.

// EmailIndex is the STRING email:<sha256-hex of the address's unique form
// (store.EmailKey)>:uid holding the uid of the account that confirmed the
// address: an address is confirmed by one account at most. It is claimed
// with SET NX and deleted only while it holds its owner's uid
// (del_if_equals.lua); an owner whose user hash no longer has the address
// confirmed is stale, and loses it to the next claim. The address is
// hashed so that the key names no address.
func (k Keys) EmailIndex(address string) string {
	sum := sha256.Sum256([]byte(store.EmailKey(address)))
	return k.prefix + "email:" + hex.EncodeToString(sum[:]) + ":uid"
}

// MailToken is the STRING mail:<kind>:<sha256-hex of token> of a link
// mailed (kind store.MailConfirm or store.MailReset), with a TTL a little
// past the link's life, holding the MailTokenRecord as JSON. A link is
// used with GETDEL, so that only one use wins.
func (k Keys) MailToken(kind, tokenHash string) string {
	return k.prefix + "mail:" + kind + ":" + tokenHash
}

// MailQueue is the STREAM mail:queue of mail to send, read through the
// consumer group MailGroup: each entry is one store.MailJob.
func (k Keys) MailQueue() string { return k.prefix + "mail:queue" }

// MailGroup is the consumer group of every server process's mailer.
const MailGroup = "mail"

// MailQueueMax bounds the mail queue (XADD MAXLEN ~).
const MailQueueMax = 100000

// The fields of the user hash that hold its addresses: the confirmed one
// (resets are mailed there) and one set but not confirmed yet.
const (
	FieldEmail        = "email"
	FieldEmailPending = "email_pending"
)

// MailTokenRecord is what a MailToken key holds.
type MailTokenRecord struct {
	UID int64  `json:"uid"`
	To  string `json:"to"`
	// Expires is when the link stops working, unix ms by the store's clock.
	Expires int64 `json:"expires"`
	// Password is, for a reset, a digest of the account's password record
	// when the link was made: a link made before the password changed (by
	// another reset, or by its owner) is void.
	Password string `json:"password,omitempty"`
	Lang     string `json:"lang,omitempty"`
}

// The fields of a MailQueue entry.
const (
	MailFieldKind = "kind"
	MailFieldUID  = "uid"
	MailFieldTo   = "to"
	MailFieldLang = "lang"
	MailFieldAt   = "at"
)

// MailEntry is the fields of job's entry in the MailQueue.
func MailEntry(job store.MailJob) []any {
	return []any{MailFieldKind, job.Kind, MailFieldUID, job.UID, MailFieldTo, job.To,
		MailFieldLang, job.Lang, MailFieldAt, job.At}
}

// ParseMailEntry is the job of a MailQueue entry's fields.
func ParseMailEntry(v map[string]any) store.MailJob {
	str := func(f string) string { s, _ := v[f].(string); return s }
	num := func(f string) int64 { n, _ := strconv.ParseInt(str(f), 10, 64); return n }
	return store.MailJob{Kind: str(MailFieldKind), UID: num(MailFieldUID), To: str(MailFieldTo),
		Lang: str(MailFieldLang), At: num(MailFieldAt)}
}
