package hub

import (
	"encoding/json"
	"testing"

	"github.com/gorilla/websocket"

	"microblog/store"
)

// BenchmarkDeliverFormat compares one post event fanned out to 10,000
// local connections as native frames and through a Format that, like the
// Mastodon API's, decodes the post and encodes its own frame once per
// event (Event.Shared): the per-connection cost is the same fan-out, so
// 10,000 streaming clients cost what 10,000 native sockets cost. Run it
// with
//
//	go test -run '^$' -bench DeliverFormat -benchmem ./hub
func BenchmarkDeliverFormat(b *testing.B) {
	const text = "The weather is lovely today: let's walk in the park #weekend"
	b.Run("native", func(b *testing.B) { benchDeliver(b, 10_000, nil, text, false, nil) })
	b.Run("format", func(b *testing.B) {
		benchDeliver(b, 10_000, nil, text, false, func() Format { return benchFormat{} })
	})
}

// benchFormat streams every post as {"stream", "event", "payload"}, the
// post re-encoded as a string, built once per event.
type benchFormat struct{}

func (benchFormat) AppendFrames(dst []*websocket.PreparedMessage, ev *Event) []*websocket.PreparedMessage {
	pm, _ := ev.Shared("update", func() any {
		var p store.Post
		if json.Unmarshal(ev.Data, &p) != nil {
			return (*websocket.PreparedMessage)(nil)
		}
		payload, _ := json.Marshal(p)
		b, _ := json.Marshal(struct {
			Stream  []string `json:"stream"`
			Event   string   `json:"event"`
			Payload string   `json:"payload"`
		}{[]string{"user"}, "update", string(payload)})
		return NewPreparedFrame(b)
	}).(*websocket.PreparedMessage)
	if pm == nil {
		return dst
	}
	return append(dst, pm)
}

func (benchFormat) Receive(*Conn, []byte) {}
