package mastodon

import (
	"encoding/json"
	"slices"
	"strings"

	"microblog/hub"
	"microblog/store"
)

// postEvents are the Mastodon events of the hub's post events.
var postEvents = map[string]string{
	store.EventPost:       evUpdate,
	store.EventPostUpdate: evStatusUpdate,
	store.EventDelete:     evDelete,
}

// AppendFrames appends the frame of ev for each of the connection's
// streams that takes it: the hub has applied the safety rule already.
func (f *streamFormat) AppendFrames(dst []hub.Frame, ev *hub.Event, offHome bool) []hub.Frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.streams {
		if offHome && s.name == "user" {
			continue // an exclusive list's member: for that list alone
		}
		if name := f.eventFor(s, ev); name != "" {
			if fr, ok := f.frame(ev, s, name); ok {
				dst = append(dst, fr)
			}
		}
	}
	return dst
}

// eventFor is the Mastodon event that ev is on stream s, "" if s does not
// take it. The user stream is the home timeline (its own and its stars'
// author topics, and its followed topics' tag topics) and the
// notifications; the public and hashtag streams
// hear the public topic, which carries no protected author's post, and
// the comments with topics, whose thread is public, for the hashtag
// streams alone (Mastodon sends a reply to its hashtags' streams, and to
// the public ones only when it answers its own author).
func (f *streamFormat) eventFor(s stream, ev *hub.Event) string {
	switch ev.Topic.Kind {
	case store.TopicAuthor, store.TopicTag: // a followed topic's posts join home, and lists of their authors
		if s.name == "user" || s.name == "list" && f.inListLocked(s.key, eventAuthor(ev)) {
			return postEvents[ev.Name]
		}
	case store.TopicNotify:
		switch {
		case ev.Name == store.EventListMembers && s.name == "list":
			f.listChangedLocked(ev, s.key)
			return ""
		case ev.Name == store.EventNotification && (s.name == "user" || s.name == "user:notification"):
			return evNotification
		case ev.Name == store.EventDM && s.name == "direct":
			return evConversation
		}
	case store.TopicPublic:
		name := postEvents[ev.Name]
		if name == "" || !s.public() || strings.HasPrefix(s.name, "public:remote") {
			return ""
		}
		if name == evDelete { // of a post whose tags are gone: every stream hears it
			return name
		}
		p := postOf(ev)
		if p == nil || strings.HasSuffix(s.name, ":media") && len(p.Media) == 0 ||
			strings.HasPrefix(s.name, "hashtag") && !hasTag(ev, p, s.key) {
			return ""
		}
		if p.ParentID != nil && !strings.HasPrefix(s.name, "hashtag") {
			return "" // a comment (one with topics) is for the hashtag streams alone
		}
		return name
	}
	return ""
}

// eventAuthor is the author of the post event ev heard on an author's or a
// topic's topic. A member's post that carries a topic its list's owner
// follows comes on both; the connection takes the first copy only (the
// hub's window of ids), so a list stream must know it on either.
func eventAuthor(ev *hub.Event) int64 {
	if ev.Topic.Kind == store.TopicAuthor {
		return ev.Topic.UID
	}
	if p := postOf(ev); p != nil {
		return p.Author.ID
	}
	return 0
}

// hasTag tells whether p, the post of ev, carries the tag of key (a
// store.TagKey). Its tags are brought to their keys once per event, not
// once per hashtag stream that looks at it.
func hasTag(ev *hub.Event, p *store.Post, key string) bool {
	keys, _ := ev.Shared(tagsKey{}, func() any {
		keys := make([]string, len(p.Tags))
		for i, t := range p.Tags {
			keys[i] = store.TagKey(t)
		}
		return keys
	}).([]string)
	return slices.Contains(keys, key)
}

// memo keys of hub.Event.Shared: the post an event carries, its tags'
// keys, the payload of a Mastodon event, and its frame on one stream.
// viewer is the user a conversation is of, 0 for anything else.
type (
	postKey    struct{}
	tagsKey    struct{}
	payloadKey struct {
		origin, event string
		viewer        int64
	}
	frameKey struct {
		payloadKey
		stream, tag string
		sse         bool
	}
)

// postOf is the post a post event carries, decoded once per event; nil if
// it cannot be.
func postOf(ev *hub.Event) *store.Post {
	p, _ := ev.Shared(postKey{}, func() any {
		var p store.Post
		if json.Unmarshal(ev.Data, &p) != nil {
			return (*store.Post)(nil)
		}
		return &p
	}).(*store.Post)
	return p
}

// frame is ev's frame as event name on stream s, built once per event:
// a WebSocket message, or a server-sent event on an event stream (there
// the stream is the connection's one, so the frame does not name it);
// false if ev cannot be mapped.
func (f *streamFormat) frame(ev *hub.Event, s stream, name string) (hub.Frame, bool) {
	pk := payloadKey{origin: f.m.origin, event: name}
	if name == evConversation {
		pk.viewer = f.uid
	}
	key := frameKey{payloadKey: pk, stream: s.name, tag: s.tag, sse: f.sse}
	fr, ok := ev.Shared(key, func() any {
		payload, _ := ev.Shared(pk, func() any { return f.payload(ev, name) }).(string)
		if payload == "" {
			return nil
		}
		if f.sse {
			return hub.NewDataFrame([]byte("event: " + name + "\ndata: " + payload + "\n\n"))
		}
		names := []string{s.name}
		if strings.HasPrefix(s.name, "hashtag") || s.name == "list" {
			names = append(names, s.tag)
		}
		b, err := json.Marshal(struct {
			Stream  []string `json:"stream"`
			Event   string   `json:"event"`
			Payload string   `json:"payload"`
		}{names, name, payload})
		if err != nil {
			return nil
		}
		return hub.NewPreparedFrame(b)
	}).(hub.Frame)
	return fr, ok
}

// payload is the payload of ev as Mastodon event name: the JSON of the
// entity it carries, as a string, or the id of a deleted status; "" if
// ev cannot be mapped.
func (f *streamFormat) payload(ev *hub.Event, name string) string {
	var entity any
	switch name {
	case evUpdate, evStatusUpdate:
		p := postOf(ev)
		if p == nil {
			return ""
		}
		entity = f.m.status(*p)
	case evDelete:
		var d store.DeleteData
		if json.Unmarshal(ev.Data, &d) != nil || d.ID == 0 {
			return ""
		}
		return idString(d.ID)
	case evNotification:
		var n store.Notification
		if json.Unmarshal(ev.Data, &n) != nil || !hasType(n.Kind) {
			return ""
		}
		entity = f.m.notification(n)
	case evConversation:
		var m store.DM
		if json.Unmarshal(ev.Data, &m) != nil {
			return ""
		}
		entity = f.m.liveConversation(f.uid, m)
	}
	b, err := json.Marshal(entity)
	if err != nil {
		return ""
	}
	return string(b)
}
