// Package api is the service's own face: the native JSON API under /api/v1
// (docs/api.md), its live feed at /ws, the OpenID Connect sign-in's browser
// routes, the uploaded images under /media, and the two front ends that
// speak it (the desktop page under /, the mobile app under /m/). The server
// (package main) builds it with New over a Deps and registers it with
// Routes, then LiveRoutes once the live hub is up, beside the Mastodon API
// (package mastodon).
//
// # Shape
//
//   - routes.go lists every route in one place (Routes). The few paths the
//     Mastodon API serves too (mastodon.SharedPaths) are not registered
//     here: Routes hands their handlers to the server, which gives them to
//     the Mastodon API to serve as the request speaks.
//   - One file per area serves its routes: handle_posts.go,
//     handle_users.go, handle_dm.go, handle_safety.go, handle_oidc.go, and
//     so on; handle_ws.go the live feed's upgrade.
//   - errors.go is the one table from the kinds of error to HTTP statuses
//     and codes (Describe), request.go reads requests (bindJSON, pages,
//     ids), auth.go the caller's session, static.go serves the front ends.
//
// # Invariants
//
//   - A handler is small: it reads the request, calls the store and
//     answers. It takes the narrowest store interface it needs
//     (store.Posts, store.Social, dmService ...), never knows a key, and
//     checks only the request's shape (a field missing, an id malformed):
//     the rules (what users may write, who may see what, rate limits,
//     idempotency) are package store's, the same for both APIs.
//   - A handler never writes an error itself: it returns one that wraps a
//     kind of store/errors.go, often a *store.Error with its code and
//     message. The server's error handler maps it with Describe, so a
//     Redis outage deep in a call is a 503 and a spent rate limit a 429
//     with Retry-After, with no special case; anything else is a logged
//     500 that tells nothing of its cause.
//   - A JSON body is read by bindJSON only: a JSON object in UTF-8 of at
//     most MaxBodyBytes, unknown fields ignored, what is wrong said in the
//     service's words, never the decoder's. Uploads (UploadPaths) are read
//     by package upload with their own limit.
//   - The caller is whoever its session token says: the Authorization
//     bearer token, else the session cookie (CookieName over plain HTTP,
//     HostCookieName, and only it, over HTTPS). A bearer token that is not
//     valid is always 401, so that clients learn to log in again; a stale
//     cookie on a public page is cleared and the request read as anonymous. A write authenticated by the
//     cookie must come from this origin (SameOriginWrites).
//   - A write once begun belongs to the server, not to the client's
//     connection: a create is the store's (it claims, then writes, with the
//     Idempotency-Key), and a delete runs on a context of its own
//     (deleteTimeout), which the client going away does not end.
//   - /ws authenticates the caller and checks its origin and its share of
//     sockets (the SocketGate) before the upgrade, so that a refusal is a
//     plain HTTP answer with the API's error body; then the hub takes the
//     socket and the request ends, leaving no handler goroutine behind.
//
// # Imports
//
// The package imports neither the server nor the Mastodon API, and the
// Mastodon API does not import it: the server wires the two, and hands
// each what they share (the store, the hub, the socket caps, the rate
// limits).
package api
