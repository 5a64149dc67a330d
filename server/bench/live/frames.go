package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// loadMark starts the content of the tool's own posts and messages, before
// the time they were sent (Unix ns): what the frames' parsers look for.
const loadMark = "load "

// parsePost reads a post frame's id and, for the tool's own posts, when
// it was sent (see parseFrame).
func parsePost(b []byte) (int64, time.Time, bool) { return parseFrame(b, "post") }

// parseMessage reads a private message frame's id and, for the tool's own
// messages, when it was sent (see parseFrame).
func parseMessage(b []byte) (int64, time.Time, bool) { return parseFrame(b, "message") }

// parseFrame reads the id of a frame of event (a post or a message) and,
// for the tool's own writes ("load <ns>"), when it was sent. The id is the
// data's first field, as the server writes them; anything else goes
// through encoding/json.
func parseFrame(b []byte, event string) (id int64, sent time.Time, ok bool) {
	head := `{"event":"` + event + `"`
	prefix, load := head+`,"data":{"id":`, `"content":"`+loadMark
	if !bytes.HasPrefix(b, []byte(head)) {
		return 0, time.Time{}, false
	}
	if rest, found := bytes.CutPrefix(b, []byte(prefix)); found {
		if id, ok = leadingInt(rest); ok {
			if i := bytes.Index(rest, []byte(load)); i >= 0 {
				if ns, ok := leadingInt(rest[i+len(load):]); ok {
					return id, time.Unix(0, ns), true
				}
			}
			return id, time.Time{}, true
		}
	}
	var f struct {
		Data struct {
			ID      int64
			Content string
		}
	}
	if json.Unmarshal(b, &f) != nil {
		return 0, time.Time{}, false
	}
	if ns, err := strconv.ParseInt(strings.TrimPrefix(f.Data.Content, loadMark), 10, 64); err == nil {
		sent = time.Unix(0, ns)
	}
	return f.Data.ID, sent, true
}

// leadingInt parses the decimal digits b starts with.
func leadingInt(b []byte) (int64, bool) {
	var n int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	return n, i > 0
}

// parseStatus reads the status id of a Mastodon streaming update frame,
// {"stream":["user"],"event":"update","payload":"<the status's JSON>"},
// and, for the tool's own posts ("load <ns>" in the content), when it was
// sent. The status's id is the payload's first field, as the server
// writes it; anything else goes through encoding/json.
func parseStatus(b []byte) (id int64, sent time.Time, ok bool) {
	const event, head = `"event":"update","payload":"`, `{\"id\":\"`
	at := bytes.Index(b, []byte(event))
	if at < 0 || at > 64 { // the event comes before the payload, if at all
		return 0, time.Time{}, false
	}
	if rest, found := bytes.CutPrefix(b[at+len(event):], []byte(head)); found {
		if id, ok = leadingInt(rest); ok {
			if i := bytes.Index(rest, []byte(loadMark)); i >= 0 {
				if ns, ok := leadingInt(rest[i+len(loadMark):]); ok {
					return id, time.Unix(0, ns), true
				}
			}
			return id, time.Time{}, true
		}
	}
	var f struct{ Event, Payload string }
	var s struct{ ID, Content string }
	if json.Unmarshal(b, &f) != nil || f.Event != "update" || json.Unmarshal([]byte(f.Payload), &s) != nil {
		return 0, time.Time{}, false
	}
	id, err := strconv.ParseInt(s.ID, 10, 64)
	if err != nil {
		return 0, time.Time{}, false
	}
	if i := strings.Index(s.Content, loadMark); i >= 0 {
		if ns, ok := leadingInt([]byte(s.Content[i+len(loadMark):])); ok {
			sent = time.Unix(0, ns)
		}
	}
	return id, sent, true
}

// parseStatusEntity reads a Status as an event stream's data line carries
// it (the payload itself, not quoted in a frame): its id and the send time
// of a load post.
func parseStatusEntity(b []byte) (id int64, sent time.Time, ok bool) {
	rest, found := bytes.CutPrefix(b, []byte(`{"id":"`))
	if !found {
		return 0, time.Time{}, false
	}
	if id, ok = leadingInt(rest); !ok {
		return 0, time.Time{}, false
	}
	if i := bytes.Index(rest, []byte(loadMark)); i >= 0 {
		if ns, ok := leadingInt(rest[i+len(loadMark):]); ok {
			return id, time.Unix(0, ns), true
		}
	}
	return id, time.Time{}, true
}
