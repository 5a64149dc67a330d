package hub_test

import (
	"testing"

	"microblog/hub"
	"microblog/server/mastodon"
)

// BenchmarkDeliverFormat compares one post event fanned out to 10,000
// local connections as native frames and through the Mastodon streaming
// API's own Format (each connection on the user stream), which decodes the
// post, maps it to a Status and encodes its frame once per event
// (Event.Shared): what is left per connection is the same fan-out, so
// 10,000 streaming clients should cost what 10,000 native sockets cost.
// The live benchmark (server/bench/live, -kinds) measures the same end to
// end. Run it with
//
//	go test -run '^$' -bench DeliverFormat -benchmem ./hub
func BenchmarkDeliverFormat(b *testing.B) {
	const text = "The weather is lovely today: let's walk in the park #weekend"
	b.Run("native", func(b *testing.B) { hub.BenchDeliver(b, 10_000, text, nil) })
	b.Run("mastodon", func(b *testing.B) {
		hub.BenchDeliver(b, 10_000, text, func() hub.Format { return mastodon.StreamFormat("https://example.com", 100, "user", false) })
	})
	b.Run("mastodon-sse", func(b *testing.B) {
		hub.BenchDeliver(b, 10_000, text, func() hub.Format { return mastodon.StreamFormat("https://example.com", 100, "user", true) })
	})
}
