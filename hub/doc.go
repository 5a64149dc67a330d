// Package hub is the live feed's fan-out: it keeps this process's WebSocket
// connections, subscribes (reference-counted, per user) to the live topics
// they need on the process's one subscriber connection, and forwards each
// event to every local connection that wants it, encoded once.
//
// A connection may also be a stream of server-sent events (StartEvents,
// for the Mastodon API's streams over plain HTTP): everything above the
// wire (topics, safety rule, queue, replays) is the same, and only wire.go
// knows which of the two a connection is.
//
// The hub knows topics, not Redis: the store.Broker (pubsub.Subscriber) turns them
// into channels and calls back Deliver, Interrupted and Resubscribed; the
// store.LiveTimeline (redisdb.Store) answers the reads needed to replay what a client
// missed.
//
// # Life of a user
//
// A user is in the hub while it has a connection here. Its first connection
// creates it, in userLoading, and loads it: the user's own topics
// (notify:<id>, author:<id>) are subscribed and brought in force first, so
// that every follow or unfollow from then on is heard, then its lens and
// stars are read and the stars' author topics subscribed, with the tag
// topics of the topics it follows (tags.go). Stars events
// heard during the read are newer than it and win over it. If the broker
// came back from a gap during the read, lens and stars are read again: the
// read may have missed changes whose events were lost in the gap, and the
// catch-up after a gap leaves loading users out. The user is then
// userReady: stars events change its topics at once, and after a gap of the
// broker its lens and stars are read again. If loading fails the user is
// userFailed and its connections are refused (1012) until the last one has
// left. Either way loaded is closed, which the user's other connections
// wait for. When the last connection leaves, the user goes; a topic without
// listeners stays subscribed for Linger, so that a reconnect does not churn.
//
// # The safety rule
//
// What a user may see is its store.Lens (blocks both ways, mutes, word
// filters), the one rule of the store, which the live feed applies in one
// place: Deliver. For a post (new, or edited: post_update), comment or
// notification event it decodes, once per event, the little the rule reads
// (ids, authors, protected flags, contents, a repost's original), marks the
// protected authors the topic's readers may see (on author:<id> every
// listener is the author or one of its fans; on notify:<id>, the user's own
// posts and its stars'), and asks each listening user's lens, once per user,
// not per connection. A user whose lens blocks, mutes and filters nothing is
// asked only about what no reader without lists may see, so it costs a flag
// test. An event held while a connection opens is asked again when it goes
// out, since the lens may have been read meanwhile. Other events (delete,
// counts, follow, notification_removed) pass as they are. Replays (?after=)
// come with ready's last_id from LiveTimeline.HomeSinceLast, in one call,
// and the catch-up after a gap from LiveTimeline.HomeSince, which the store
// filters itself.
//
// The lens is read with the stars at load and after a gap, and again on
// each lens_changed event (internal, on notify:<id>, never forwarded), on
// the control goroutine, like stars events; reads are numbered and the one
// that began last is kept, whichever answers first. From a lens_changed
// event until the read it asked for is in force, the user's events are
// held, in order, and then go through the new lens: the store publishes
// the event before a block returns, so what the blocked user does next
// does not slip through the old lens. If more events wait than a
// connection's queue takes, the user's connections are asked to reconnect
// (1012) for a replay instead. A ready user whose lens cannot be read is
// made userFailed: its connections are closed with 1012, rather than go on
// with a lens that may let through what it just blocked. A suspended user
// needs nothing here: its sessions end, and the session_revoked events
// close its sockets with 4001.
//
// # Life of a connection
//
// Start registers the connection (after Shutdown it is turned away with
// 1001) and returns: the HTTP handler that called it ends, so an open
// connection keeps no request, HTTP buffers or handler goroutine. Its
// reader listens from the start, so that a peer that goes away while the
// connection opens cancels the opening. On Linux the reader is no
// goroutine while the client sends nothing: the socket waits in the
// process's one epoll (poll_linux.go), and a short-lived goroutine reads
// the frames that arrive (frames_linux.go, as gorilla's reader would:
// pings answered, pongs putting off the pong deadline, a close answered,
// text to the Format, protocol errors closed with 1002 or 1009) and hands
// the socket back; the ping timer drops a client that sent no pong within
// PongWait, and the socket leaves the epoll before it is closed, on every
// path. Elsewhere (and where a socket cannot be polled), the reader is a
// goroutine of its own that reads through gorilla. A first writer opens it: open joins the user (loading it,
// or waiting for it and then for a Sync so that its topics are in force),
// reads the replay (?after=) and the newest id, and goes live, returning
// the replay, ready, and the events held meanwhile without duplicates; the
// writer writes them. From then on events go to the connection's queue,
// and a writer runs only while the queue, a due ping or the close frame
// gives it something to write: an idle connection holds no writer, no
// queue and no write buffer. At most one writer runs at a time, and only
// it writes frames (the reader may answer a peer's close). A close is
// decided once, by closeWith (4008, 4001, 1001, 1012, or none when the
// peer is gone), and sent by the writer, which then gives the peer
// closeGrace to answer before dropping the socket; when the reader ends
// (for a polled socket: when it is shut, by its reader, the ping timer or
// that grace), the connection leaves the user and is gone.
//
// When the broker breaks (Interrupted), each live connection notes the
// newest post (and private message) it had. Once the subscriptions are back (Resubscribed), every
// ready user's stars are read again (stars events heard during that read
// win over it, as during load) and each of its connections replays the
// posts after its note. Until its replay has gone out, a connection holds
// the live events heard since the broker came back and sends them after it
// (dropping what both bring), so that its client never has a post newer
// than one lost in the gap: if the replay fails (1012, or too long to
// queue), the client's ?after=<newest post> resume covers the gap. A user
// that was loading meanwhile reads its stars again, and a connection that
// was opening meanwhile catches up on its own once it is live.
//
// # Private messages
//
// Private messages come on the user's own notify:<id> topic, as message,
// message_delete and conversation_read events, to every connection of the
// user, and pass the safety rule as they are (the store refuses messages
// between users who block one another). They get the posts' care, with
// marks of their own since their ids are a sequence of their own
// (dm.go): open reads, besides the posts, the messages after
// ?messages_after= (LiveTimeline.DMsSince) and the newest message id,
// which ready carries as last_message_id; message events held while the
// connection opens are merged with that replay by id (msgSeen), and those
// at or below ?messages_after= that the client got before it connected
// (heard in order on a topic subscribed before it) are dropped, since a
// replay may read a message before its event reaches the hub (that of the
// mark itself whenever its event comes, held or live); and
// Interrupted notes each connection's newest message too, from which the
// catch-up after a gap reads the messages it missed.
//
// # Other protocols and the public topic
//
// A connection may speak another protocol than the native feed's (the
// Mastodon streaming API): its Client carries a Format (format.go), which
// gets the events after the same topics, safety rule and queue as a native
// connection's, and makes that protocol's frames of them. What a frame
// holds is built once per event (Event.Shared), not per connection, so
// such a connection costs what a native one does. It gets no ready and no
// replays; the catch-up after a gap reaches it as events of the topics
// they would have come on. Its reader hands the client's messages to the
// Format once the connection is open, in order, so that what they change
// is in force when the next frame (a ping) is answered.
//
// Such a connection may listen to store.PublicTopic, which carries every
// public post (ListenPublic): its user listens while one of its
// connections does, counted in user.public, and native connections of that
// user get nothing of it. Clients that are no user (an app's token) are
// the connections of user 0, which has no topics, stars or lens of its
// own, and no timeline to replay.
//
// # Locks
//
// Locks are taken in this order only:
//
//	Hub.subMu → Hub.mu → Conn.mu
//
// subMu serialises changes of the broker's subscriptions with the
// bookkeeping that decides them; it is held across Subscribe and
// Unsubscribe, never across Sync. mu guards the users, topics and connections; it is never held while
// calling the broker or the timeline, because Deliver, on the broker's
// reader, takes it. Conn.mu guards one connection's queue, replay and
// duplicate state. user.heldMu, which guards the events held for a user
// while its lens is read again, is taken under mu, with no lock inside
// it. Hub.resyncMu and the control queue's lock are taken
// alone. Event.mu, which guards what Event.Shared built, is taken under
// Conn.mu, with no lock inside it. closeWith takes no lock and never blocks (it starts a writer if
// none runs), so it may be called under any of them. Deliver, Interrupted and Resubscribed never wait, neither for a
// client nor for the broker: stars and lens_changed events go to the
// control queue, whose goroutine makes the Redis round trips in order.
package hub
