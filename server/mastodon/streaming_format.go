package mastodon

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"microblog/hub"
	"microblog/store"
)

// Mastodon's streaming events, as this service sends them.
const (
	evUpdate       = "update"
	evDelete       = "delete"
	evNotification = "notification"
	evStatusUpdate = "status.update"
	evConversation = "conversation"
)

// maxStreams is the most streams one connection holds (contract section
// 17): each costs a look at every event of its topic, and without a cap
// one socket could ask for any number of them.
const maxStreams = 100

// stream is one stream a connection subscribed to: its name and, for
// hashtag streams, the tag as the client spelled it (echoed back so) and
// as tags compare (store.TagKey). A stream that is no hashtag's has no tag.
type stream struct{ name, tag, key string }

// newStream is the stream name, of tag for a hashtag stream and of list
// (an id) for a list stream (streaming_lists.go).
func newStream(name, tag, list string) stream {
	if name == "list" {
		return stream{name: name, tag: list, key: list}
	}
	if !strings.HasPrefix(name, "hashtag") {
		return stream{name: name}
	}
	return stream{name: name, tag: tag, key: store.TagKey(tag)}
}

// id is what tells s from another stream: a hashtag stream asked for
// again in another case is the one held, as in Mastodon.
func (s stream) id() streamID { return streamID{s.name, s.key} }

type streamID struct{ name, key string }

// streamScopes are the streams this service serves, with the scope each
// needs, as Mastodon asks for them. The public ones have a :media kind
// (posts with images only); public:remote and hashtag:local are served
// as the service has no other instance: nothing remote, everything local.
var streamScopes = map[string]string{
	"user":                "read:statuses",
	"user:notification":   "read:notifications",
	"direct":              "read:statuses",
	"public":              "read:statuses",
	"public:media":        "read:statuses",
	"public:local":        "read:statuses",
	"public:local:media":  "read:statuses",
	"public:remote":       "read:statuses",
	"public:remote:media": "read:statuses",
	"hashtag":             "read:statuses",
	"hashtag:local":       "read:statuses",
	"list":                "read:statuses",
}

// public tells whether s needs the hub's public topic.
func (s stream) public() bool {
	return strings.HasPrefix(s.name, "public") || strings.HasPrefix(s.name, "hashtag")
}

// personal tells whether s is one of the caller's own: a user is needed.
func (s stream) personal() bool {
	return strings.HasPrefix(s.name, "user") || s.name == "direct" || s.name == "list"
}

// streamFormat is a streaming connection's hub.Format: its streams, and
// Mastodon's frames of the hub's events. What a frame holds does not
// depend on the connection (but for a conversation, which is its user's),
// so each is built once per event (hub.Event.Shared) for every
// connection that gets it; like Mastodon's own, streamed statuses carry
// none of the reader's flags (favourited ...).
type streamFormat struct {
	m      mapper
	uid    int64
	scopes scopeSet
	// mu guards streams, held and public: Receive changes them on the
	// connection's reader, AppendFrames reads them under the hub's locks.
	// streams keeps the order of subscription (the order of an event's
	// frames); held indexes it, so that a subscribe costs one lookup
	// however many streams are held, and public counts those that need the
	// public topic. At most maxStreams.
	mu      sync.Mutex
	streams []stream
	held    map[streamID]struct{}
	public  int
	// listening: the connection listens to the public topic. Only Receive
	// (the connection's reader) reads and writes it after the start.
	listening bool
	// sse: the connection is an event stream (server-sent events) of one
	// stream, not a WebSocket.
	sse bool
	// lists holds the members of each list the connection streams, by
	// list id, and members reads them from the store (streaming_lists.go);
	// lists is guarded by mu.
	lists   map[string]map[int64]struct{}
	members func(ctx context.Context, list string) ([]int64, error)
}

// StreamFormat is the hub.Format of a connection of user uid to the
// streaming API on stream name (user, public, ...), as GET
// /api/v1/streaming?stream=name makes it (or, sse, GET
// /api/v1/streaming/name) with the statuses' URLs under origin, its scopes
// unchecked: for the hub's BenchmarkDeliverFormat, which puts its fan-out
// beside the native feed's.
func StreamFormat(origin string, uid int64, name string, sse bool) hub.Format {
	f := &streamFormat{m: mapper{origin: origin}, uid: uid, sse: sse}
	f.add(newStream(name, "", ""))
	f.listening = f.public > 0
	return f
}

// clientMessage is what a client sends: {"type": "subscribe", "stream":
// "hashtag", "tag": "x"} or unsubscribe.
type clientMessage struct {
	Type   string `json:"type"`
	Stream string `json:"stream"`
	Tag    string `json:"tag"`
	List   string `json:"list"`
}

// check tells whether the caller may subscribe to s.
func (f *streamFormat) check(s stream) *store.Error {
	scope, ok := streamScopes[s.name]
	switch {
	case !ok:
		return store.Invalid(store.CodeBadRequest, "Unknown stream type")
	case s.personal() && f.uid == 0:
		return store.NewError(store.ErrUnauthorized, store.CodeUnauthorized, "This stream requires an authenticated user")
	case !f.scopes.allows(scope):
		return store.NewError(store.ErrUnauthorized, store.CodeUnauthorized, "Access token does not have the required scopes")
	case strings.HasPrefix(s.name, "hashtag") && store.TagKey(s.tag) == "":
		return store.Invalid(store.CodeBadRequest, "No tag for stream provided")
	}
	return nil
}

// Receive subscribes and unsubscribes streams. An error is answered as
// Mastodon answers it, {"error": ..., "status": ...}, on the socket. Each
// message costs the same whatever the number of streams held, so that a
// flood of them costs in proportion to its length, and stops with the
// connection (the hub reads no more once it is closing).
func (f *streamFormat) Receive(c *hub.Conn, msg []byte) {
	var in clientMessage
	if err := json.Unmarshal(msg, &in); err != nil {
		c.Send(errorFrame("Invalid JSON", 400))
		return
	}
	s := newStream(in.Stream, in.Tag, in.List)
	switch in.Type {
	case "subscribe":
		if err := f.check(s); err != nil {
			status := 400
			if err.Kind == store.ErrUnauthorized {
				status = 401
			}
			c.Send(errorFrame(err.Error(), status))
			return
		}
		if err := f.loadList(s); err != nil {
			c.Send(errorFrame(err.Error(), listErrorStatus(err)))
			return
		}
		if !f.add(s) {
			f.dropList(s)
			c.Send(errorFrame(fmt.Sprintf("Too many streams: at most %d on one connection", maxStreams), 400))
			return
		}
	case "unsubscribe":
		f.remove(s)
		f.dropList(s)
	default:
		c.Send(errorFrame("Unknown message type", 400))
		return
	}
	f.listen(c)
}

// add subscribes s, and tells whether it is held: false if s is new and
// the connection holds maxStreams already.
func (f *streamFormat) add(s stream) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.held[s.id()]; ok {
		return true
	}
	if len(f.streams) >= maxStreams {
		return false
	}
	if f.held == nil {
		f.held = make(map[streamID]struct{})
	}
	f.held[s.id()] = struct{}{}
	f.streams = append(f.streams, s)
	if s.public() {
		f.public++
	}
	return true
}

// remove unsubscribes s, if held. Finding its place among the streams
// takes at most maxStreams steps.
func (f *streamFormat) remove(s stream) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := s.id()
	if _, ok := f.held[id]; !ok {
		return
	}
	delete(f.held, id)
	f.streams = slices.DeleteFunc(f.streams, func(x stream) bool { return x.id() == id })
	if s.public() {
		f.public--
	}
}

// listen makes the connection listen to the hub's public topic while one
// of its streams needs it, and returns once that is in force.
func (f *streamFormat) listen(c *hub.Conn) {
	f.mu.Lock()
	want := f.public > 0
	f.mu.Unlock()
	if want != f.listening && c.ListenPublic(want) == nil {
		f.listening = want
	}
}

// errorFrame is an error as Mastodon's streaming server sends it.
func errorFrame(msg string, status int) []byte {
	b, _ := json.Marshal(struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}{msg, status})
	return b
}
