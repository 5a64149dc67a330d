// Package federation is the service's ActivityPub side (CONTRACT.md §16,
// docs/federation.md), everything of it that speaks HTTP: the actors of
// local users and of the instance, every post as an object, the inboxes
// (per user and shared) and what they do with what arrives, HTTP
// Signatures both ways (sign.go, verify.go), the fetcher that reads remote
// actors and objects safely (fetch.go), and the ActivityStreams
// vocabulary in and out (vocab.go). Discovery (WebFinger, host-meta,
// NodeInfo) is answered by the Mastodon API's documents, which name the
// actors when federation is on.
//
// The service is wired from server/ only when MICROBLOG_FEDERATION=on. Its
// URLs are built from the public URL P (urls.go): a local user's actor is
// P/ap/users/<uid> (a uid, so that a rename breaks nothing), a post
// P/ap/posts/<id>, the instance actor P/ap/actor. What it keeps is in the
// store (store.Fed, store/redisdb/fed).
package federation
