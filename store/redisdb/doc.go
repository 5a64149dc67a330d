// Package redisdb is the microblog's store on Redis: the request path.
// Store serves the requests: the paper's A–G key families, accounts and
// sessions, follows, posts and timelines, private messages, rate limits,
// and the live events published when they change. It implements the
// interfaces of package store.
//
// The store is these packages, and the compiler holds them apart:
//
//   - schema: every key and channel (schema.Keys), every hash's fields,
//     the queues' entries, the values of an Idempotency-Key and every Lua
//     script. It does no I/O; all the others write through it.
//   - redisdb (this package): the request path's core, Store. Its files
//     are named by area, as package store's interfaces and the handlers
//     are: post_*, timeline_*, account_* (users, deleting an account),
//     store_* (the client, caches, options, metrics).
//   - account, dm, social, media: the request path's other areas
//     (accounts and sessions; private messages; follows, likes,
//     notifications, trends, search, safety, bookmarks and pins; uploads
//     and avatars). Store embeds each, so their methods are its own; each
//     asks the core for what it needs through a Core interface of its own
//     (the adapters are account.go, dm.go, social.go, media.go here), and
//     the core reaches their private steps through functions, not methods
//     (hooks.go in each). They never import redisdb, nor each other.
//   - runner: the work off the request path that each server process runs
//     (the fan-out workers, the archiver, the checker of half-written
//     messages, the media janitor, the caches' listener). It asks the
//     request path for anything beyond its own queues through one written
//     list, runner.Ops, which Store has (runner_ops.go, post_repair.go);
//     it never reaches a private step of this package.
//   - internal/livecache (the caches' type), internal/reqpath (helpers
//     the areas share with the core), internal/retry.
//
// Imports run one way: redisdb imports its areas; the areas, redisdb and
// runner import schema; nothing imports runner but the server's wiring and
// tests; pubsub (the live feed's subscriber) imports schema only. No other
// package speaks to Redis.
//
// Any number of server processes share one Redis (or one Redis Cluster).
// What follows is what each of them may count on from the others.
//
// # Writing a post
//
// Create claims, in one round trip, the author's name, avatar and fan-out
// mode, its Idempotency-Key, a count against its rate limit and a new id
// (INCR global:postid), the mode before the id. From the claim on, the
// write belongs to the server: the client's going away does not stop it,
// and reqpath.WriteTimeout bounds it. Then, in this order: the message's own keys
// (the hash B, D, E); its indexes (for a post: its author's F with
// posts_count, the author's own G, the public timeline, the reposts set of
// what it reposts, its topics, its images; for a comment: its parent's C
// set and comments_count); a post's push job on fanout:queue with its mark
// in fanout:pending, unless its author is pulled; with an archive, its
// entry on archive:queue; the Idempotency-Key's result; and last its live
// event, on its author's channel (a comment's, on the parent's author's
// notify channel unless they wrote it).
//
// On one Redis all of that is one MULTI/EXEC: a post is written whole or
// not at all, and its event is published after everything it announces.
// On a cluster a message's own keys share its hash tag and go in one
// transaction first, so that no index ever points at nothing, marked
// unfinished: readers pass it by until finish takes the mark off; its indexes,
// on other masters, follow in one pipeline whose parts are sent side by
// side; only once every part has succeeded is the Idempotency-Key's result
// recorded, in a round trip of its own, and only once that has are its live
// events sent (SPUBLISH on the master of its live partition; a post with no
// key sends them at once). So a message is shown live, and returned to a
// retry, only once it is written whole, and only if it stands: a
// script (post_finish.lua, last in the transaction on one Redis) publishes
// nothing when another request holds its key by now or another repost of
// its author's was recorded first, and it is then taken out again.
//
// A write that fails is settled once Redis answers again (settle: tried in
// the background, a little later each time, for up to claimTTL). On one
// Redis the message's E key tells whether the transaction ran: if not, the
// key's claim is given back; if so, the message stays (it was shown live,
// and the retry gets it from its key), unless it does not stand. On a
// cluster a message not written whole is taken out (unwrite: the message,
// its index entries and counts, with a delete event), and only then is its
// claim given back: a key given back while its post stands would let the
// retry make a second one. What Redis refuses even then, the checker
// mends: every process runs it, one at a time under lock:repair, over the
// ids issued since its checkpoint, leaving those younger than its grace
// (longer than reqpath.WriteTimeout) to a later run. It indexes a message no index
// points at, as Create would have, or removes it when a retry holds its key
// by now.
//
// # Live events
//
// Events go out on author:<uid> and notify:<uid>; on a cluster these are
// shard channels spread over LivePartitions hash tags, so that no master
// carries every event. An event is published in the pipeline of the
// writes it announces, after them; one published on its own that fails is
// logged, not returned. Events are not stored: a subscriber (package
// pubsub) reports every gap in what it heard, and the hub catches its users
// up on posts from their home timelines (HomeSince), which merge the F sets
// of the celebrities and of the pushes in flight: a post written during the
// gap is there whether or not its push has run.
//
// # Push, pull and drain
//
// A home timeline is its owner's G set merged, when read, with the F sets
// of the authors it follows that are in global:celebrities or have a push
// in flight (an author in fanout:pushing). Each post of an author in push
// mode (FieldFanOut "") queues a push job, which the fan-out worker runs
// off the request path: it adds the post to the G of every fan seen in
// global:lastseen within InactiveAfter before the post was written (a fan
// never seen counts as active) and trims each G to HotWindow. The post is
// marked in fanout:pending from its write until that job is acknowledged,
// and its author counted in fanout:pushing meanwhile (one script keeps
// both, so a mark made or taken twice counts once), so a fan's home shows
// it at once either way. A push job runs even if its
// author has become a celebrity since, and a push that finds its post gone
// at the end takes it out again, since the delete's unpush job may have
// run before it.
//
// An author whose fan count reaches CelebrityFans is promoted to pull
// (timeline_modes.go): it joins global:celebrities and the last id issued is read,
// and only then does its hash say "pull", with that id as pull_from. Its
// posts are then not pushed; readers merge its F. On one Redis every post
// that reads "pull" when claimed has an id above pull_from, since the
// claim reads the mode before it draws the id; on a cluster the two go to
// different masters side by side. So a post claimed in pull mode reads the
// mode again after writing F, and queues its push itself when its id is at
// or below pull_from or its author is no longer pulled. Falling back below the count demotes it: its
// mode says "drain" (posts are pushed again, readers still merge its F),
// with a token of the drain's own, and only then is a backfill job carrying
// that token queued (its entry id then recorded as drain_job), which pushes
// to every fan the posts after pull_from within the hot window and, under
// the author's mode lock and only if the drain still has its token, sets
// the mode back to push and then takes the author out of
// global:celebrities. An author leaves that set only after every post it
// wrote while pulled has been pushed, and joins it before its posts stop
// being pushed: no post is ever in neither place.
//
// These modes are a state machine (timeline_modes.go holds its table: each
// transition's steps and what a failure at each leaves). Every change runs
// under the author's mode lock and writes the mode through a script that
// checks the lock is still its own; what a Redis error or a process dying
// between steps leaves is valid, or mended by the next reconsider (every
// follow and unfollow of the author, and the checker's pass over
// global:celebrities each run): a drain whose job is gone gets another, a
// pushed author left among the celebrities leaves, a pulled one missing
// from them rejoins.
//
// A read asks about its reader's own stars only, never about everyone's:
// its cost does not grow with the number of celebrities or with the
// fan-out's backlog, and no key is read by every reader (timeline_pulls.go). On one
// Redis its first round trip, the one that reads G's first ids and
// lastseen, intersects the reader's A:loverID with global:celebrities and
// with fanout:pushing (ZINTER, O(the smaller set)); a reader with no pulled
// star (most) is then served in one more round trip that loads the posts,
// one with some merges their F sets first. On a cluster those keys cannot
// meet the reader's in one command: the marks, counts and celebrities are
// split into 16 shards by author (hash tags {f<n>}, global:celebrities
// kept whole beside them), and the first round trip reads the reader's
// stars; the shards they fall in are asked (SMISMEMBER, ZMSCORE) in the
// pipeline that loads the page's posts from G's first ids, and that page
// is thrown away for one that merges the F sets when a star is pulled, so
// that the common read takes two round trips there too. As before, G and
// the lookup are read on different masters side by side, not one after
// the other: a push done between the two may be missed by that read (not
// by the next); on one Redis the lookup is read first, in the same
// pipeline, so a push done meanwhile is in G. The
// orders above hold shard by shard: a post's mark and count are written in
// the pipeline that indexes it and taken in the one that acknowledges its
// job; a celebrity joins its shard in the round trip before its mode says
// pull, and leaves it with the drain's end. Schema 6 (Migrate) builds the
// counts and shards from what older versions kept.
//
// A live connection that opens reads its replay (HomeSince) and its
// last_id together (HomeSinceLast): both ranges of G go in the lookup's
// round trip, and with pulled stars both ranges of their F sets in one
// more.
//
// A user away longer than InactiveAfter gets no pushes. When its home
// timeline is read again (a page, or its live feed connecting), its
// lastseen and lastpull marks are
// written first, then its G is rebuilt from its stars' F sets after the
// old lastpull mark: a post written after that read is pushed, for its
// push finds the user active. lastseen is written at most once a minute
// (or every eighth of InactiveAfter) per user.
//
// # Idempotency
//
// A post sent with an Idempotency-Key claims idem:<uid>:<key hash> in the
// claim's round trip, with a token of its own and the hash of the request
// it belongs to, for claimTTL: a request that dies holds the key back that
// long, not a day, and a claim go-redis sends twice is still the same
// request's. The index writes the result (the post's id, for
// IdempotencyTTL) unless another request holds the key by now (this one's
// claim ran out first): then this post is taken out again.
// A second request with the key gets the first one's post once it is done,
// 409 while it runs, and 400 if it is another request; the retry of a
// repost that finds the repost made gets it too. A request that fails
// gives its claim back once it knows its write did not stand (see settle
// above), so that a retry after a 503 is served as soon as Redis answers
// again, not claimTTL later. The message's hash keeps the key and claim,
// so that the checker can finish the key with this post, or remove the
// post when a retry has made its own.
//
// What is left: on one Redis a transaction whose bytes were still on their
// way when its request gave up, and that lands after its claim was given
// back and a retry claimed the key, is a second post, unpublished (its
// finish finds the retry's claim) but indexed, until it is deleted; the
// claim is given back only once Redis answers a new connection, after the
// old one was closed, so this needs a network that delays a closed
// connection's data past that. A process killed between a failed write and
// its settle leaves its claim for claimTTL, as a crash always did.
//
// # The archive and the hot window
//
// With an archive, every message, delete and like is queued on
// archive:queue in the pipeline that writes it (a delete even when Redis is
// out of memory). Once a message is archived and past its author's hot
// window (the newest HotWindow ids of F), the archiver removes its B, D
// and E keys and its F entry, and its comments the same way once they are
// archived; the public timeline loses its ids past the window the same
// way, and G sets are trimmed to it on every push. The archiver removes
// only ids the archive says it holds. A reader that misses a message's hash finds it in
// the archive, unless a tombstone (a deleted hash, kept until the archive
// has the delete) says it is gone; a page that runs past a Redis set goes
// on in the archive with the same cursor. Without an archive, messages
// stay in Redis and only G sets and the public timeline are trimmed.
//
// # Caches and their invalidation
//
// Each process remembers, for cacheTTL, which user a session token belongs
// to and each author's avatar (store_caches.go). Every session that ends has its
// token hash published on sessions:revoked, every new avatar (and deleted
// account) its user id on avatars:changed, in the pipeline that makes the
// change; these are plain channels, heard on every node of a cluster. The
// process that makes the change forgets at once; the others when they hear
// it. A process uses its caches only while its subscription to both
// channels is confirmed and answering pings, and they start empty each time
// it is, so no invalidation sent while it was not listening is missed; a
// read of Redis that an invalidation may have overtaken is not cached.
package redisdb
