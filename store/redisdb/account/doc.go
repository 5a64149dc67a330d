// Package account is the accounts' part of the store's request path on
// Redis: registering and signing in, sessions and their tokens, passwords,
// usernames and their look-alike skeletons, the login guard, OAuth records
// and sessions, OIDC state, the links to other sign-in services, each
// user's app state (markers, notifications' dismissal) and the identity
// stamped on Redis and the archive.
//
// A redisdb.Store embeds Accounts, so their methods are the Store's. What
// the accounts need of the rest of the store (the error wrapper, the clock,
// reading a user, the search index, live events) they ask of Core, which
// the Store gives them; what the rest of the store needs of them beyond the
// store's interfaces is in hooks.go. This package never imports redisdb.
//
// What the processes sharing one Redis may count on:
//
//   - A session is valid only while auth:<hash> and the user's session set
//     agree; it is opened by newSession alone, whatever proved who the user
//     is, and a suspended user gets none. Every session that ends has its
//     token hash published on sessions:revoked in the pipeline that ends it,
//     so every process's session cache forgets it (redisdb/store_caches.go).
//   - A session's kind (signed in here, or opened by an OAuth grant) is kept
//     in its own key: no spelling of a token passes for the other kind.
//   - A name is owned through keys written with SET NX and deleted only
//     while they hold the owner's uid (names.go): of concurrent claims of
//     one name, or of names that look alike, exactly one wins.
//   - A wrong name and a wrong password give the same error after the same
//     work, and both count against the name under the login guard.
package account
