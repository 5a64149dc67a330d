// Package hub is the live feed's fan-out: it keeps this process's WebSocket
// connections, subscribes (reference-counted, per user) to the live topics
// they need on the process's one subscriber connection, and forwards each
// event to every local connection that wants it, encoded once.
//
// The hub knows topics, not Redis: the Broker (store.Subscriber) turns them
// into channels and calls back Deliver and Resubscribed; the Timeline
// (store.Store) answers the reads needed to replay what a client missed.
package hub
