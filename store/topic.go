package store

import (
	"context"
	"errors"
	"strconv"
)

// TopicKind says which family of live channel a Topic names.
type TopicKind uint8

// The kinds of live channel.
const (
	TopicAuthor TopicKind = iota + 1 // the user's posts, reposts and deletes
	TopicNotify                      // events for that user alone
	// TopicPublic carries every public post (not comments, reposts or
	// protected authors' posts), its edits and its deletes, for the
	// Mastodon API's public and hashtag streams. Its UID is 0.
	TopicPublic
	// TopicTag carries the new public posts that carry one topic (its Tag,
	// a TagKey), for the users who follow it. Its UID is 0.
	TopicTag
)

// Topic is one live channel, named without its spelling in the event bus so
// that the hub never builds a key.
type Topic struct {
	Kind TopicKind
	UID  int64
	Tag  string // a TopicTag's topic key
}

// AuthorTopic is the topic of uid's posts.
func AuthorTopic(uid int64) Topic { return Topic{Kind: TopicAuthor, UID: uid} }

// NotifyTopic is the topic of the events meant for uid alone.
func NotifyTopic(uid int64) Topic { return Topic{Kind: TopicNotify, UID: uid} }

// PublicTopic is the topic of every public post.
func PublicTopic() Topic { return Topic{Kind: TopicPublic} }

// TagTopic is the topic of the new public posts that carry the topic of
// key (a TagKey).
func TagTopic(key string) Topic { return Topic{Kind: TopicTag, Tag: key} }

func (t Topic) String() string {
	switch t.Kind {
	case TopicTag:
		return "tag/" + t.Tag
	case TopicNotify:
		return "notify/" + strconv.FormatInt(t.UID, 10)
	case TopicPublic:
		return "public"
	}
	return "author/" + strconv.FormatInt(t.UID, 10)
}

// ErrSubscriberGap is returned by Broker.Sync when the subscriber connection
// broke before the bus confirmed the barrier.
var ErrSubscriberGap = errors.New("store: subscriber connection lost")

// Broker is a process's one connection to the live event bus, as the hub
// uses it.
type Broker interface {
	// Subscribe and Unsubscribe change the topics delivered to the handler.
	// Even when Subscribe fails (the bus unreachable) the topics are
	// remembered and subscribed on reconnection.
	Subscribe(ctx context.Context, topics ...Topic) error
	Unsubscribe(ctx context.Context, topics ...Topic) error
	// Sync returns once every earlier Subscribe is in force.
	Sync(ctx context.Context) error
}

// SubscriberHandler receives what a Broker reads from the bus. Its methods
// are called from the broker's single receive goroutine, one at a time and
// in order, so they must not block.
type SubscriberHandler interface {
	// Deliver is one message published on a subscribed topic: the exact
	// frame a WebSocket client receives. payload belongs to the handler.
	Deliver(t Topic, payload []byte)
	// Interrupted reports that the connection just broke: from now until
	// Resubscribed, published messages are lost.
	Interrupted()
	// Resubscribed reports that the connection broke and every subscription
	// is back: whatever was published in between was lost and must be
	// recovered from the timelines.
	Resubscribed()
}
