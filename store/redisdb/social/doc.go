// Package social is the social part of the store's request path on Redis:
// follows and follow requests, likes, notifications, trends, the search of
// users and topics, suggestions, blocks, mutes and filtered words (each
// reader's store.Lens, and sieve, where every read of posts applies it),
// moderation (reports, suspensions), protected accounts, bookmarks and
// pins (keeps*.go).
//
// A redisdb.Store embeds Social, so its methods are the Store's. What it
// needs of the rest of the store (reading posts and users, the home
// timeline, the fan-out mode, the archive, live events) it asks of Core,
// which the Store gives it; what the rest of the store needs of it beyond
// the store's interfaces (sieve, notify, the trends' counts...) is in
// hooks.go. This package never imports redisdb.
//
// # Likes and topics of archived messages
//
// A message's likes set likes:<mid>, its entries in its likers' own sets
// (user:userid:<uid>:likes) and, for a post, its entries in the T: sets of
// its topics live as long as its hash, and leave Redis with it
// (runner/archiver_evict.go): the hash and the likes set together, in one script,
// and only when the archive holds every like of that set and the set is
// as the archiver read it (a like still on its way keeps both, until the
// batch that saves it lets them go); then the liker and topic entries. A
// crash between the two is mended by running the second again, with what
// it needs read from the archive. Once a message is out of Redis its likes
// are in the archive alone: its count and likers are read there, whether a
// reader likes it is asked there, and a like or an unlike of it is written
// there at once and queued too, so that the archive applies it after the
// likes queued while the message was hot (likes.go). The archive keeps the
// posts' topics in a table of its own, written with each post and edit, and
// a topic's page goes on there below its T: set.
package social
