// Package dm is the private messages' part of the store's request path on
// Redis: sending, reading and deleting messages, conversations and their
// read marks, who may write to whom, and finishing a message a stopped
// request left half written (repair.go, for the checker).
//
// A redisdb.Store embeds DMs, so their methods are the Store's. What the
// messages share with posts (the rate limit, the archive queue's room, the
// Idempotency-Key's claim, images) and the users they show they ask of
// Core, which the Store gives them; what the rest of the store needs of
// them beyond the store's interfaces is in hooks.go. This package never
// imports redisdb.
//
// A private message (send.go) has an id of its own (global:messageid)
// and its hash pm:<id> under its own tag; each of its two users holds it
// in keys under their own tag (conv:<uid>:<other>, conv:<uid> and the read
// and unread marks), written by one script call per side. It is claimed as
// a post is, in one round trip with the checks (blocks both ways, who may
// write to the recipient, its images), and written in one more: on one
// Redis its hash and both sides are one MULTI/EXEC; on a cluster the hash
// goes first, and a write that fails half way is taken out again, what
// Redis refuses even then the checker finishes or removes, walking the
// message ids from its own checkpoint as it walks the posts'. Its event
// goes out on both users' notify channels, after the writes. With an
// archive, messages and their deletes are queued on archive:queue with the
// write, and the archiver moves a message out of a side once archived and
// past ConversationWindow, raising that side's conv:<uid>:archived mark:
// readers go on in the archive below it.
package dm
