// Package fed is federation's part of the store on Redis (CONTRACT.md §16,
// docs/federation.md): the remote actors behind remote accounts, the local
// users' signing keys, the incoming activities already taken in, the
// remote objects' local messages and the blocked domains.
//
// A remote account is a user like a local one: a uid from global:userid, a
// user hash whose username is name@domain and whose field remote holds its
// actor's id, and its name claimed in the name index in lower case (local
// names can hold no '@', so the two never clash). It has no password, no
// session, and is never touched, so that the fan-out never pushes into its
// home timeline. Its actor (inbox, key...) is the hash fed:actor:<uid>, and
// fed:actorid:<actor id> leads back to the uid.
//
// A redisdb.Store embeds Fed, so its methods are the Store's; what it
// needs of the rest of the store it asks of Core. This package never
// imports redisdb.
package fed
