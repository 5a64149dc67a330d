package hub

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"microblog/store"
)

// BenchmarkDeliverLens is what the safety rule adds to Deliver: one post
// event of a star fanned out to 1 and to 1,000 local fans, each with one
// live connection, whose lenses are none (nil, or empty as the store reads
// it for a user who blocks, mutes and filters nothing), 1,000 hidden users,
// or 1,000 hidden users and 100 filtered words. A clean post goes through
// every word of the last lens; a filtered one carries its last word, so
// that it too is checked against all of them before it is withheld. Run it
// with
//
//	go test -run '^$' -bench DeliverLens -benchmem ./hub
func BenchmarkDeliverLens(b *testing.B) {
	hidden := make(map[int64]bool)
	for i := range 1000 {
		hidden[int64(10_000+i)] = true
	}
	heavy := &store.Lens{Viewer: -1, Hidden: hidden}
	for i := range 100 {
		w := fmt.Sprintf("filtered%02d", i)
		if i%2 == 1 {
			w = fmt.Sprintf("过滤词%02d", i)
		}
		heavy.Words = append(heavy.Words, store.FoldWord(w))
	}
	const text = "今天天气很好，我们去公园散步吧。The weather is lovely today: let's walk in the park #周末"
	posts := map[string]string{"clean": text, "filtered": text + " " + heavy.Words[len(heavy.Words)-1]}
	lenses := []struct {
		name string
		lens *store.Lens
	}{{"none", nil}, {"empty", &store.Lens{}}, {"1000hidden", &store.Lens{Viewer: -1, Hidden: hidden}}, {"1000hidden+100words", heavy}}
	for _, users := range []int{1, 1000} {
		for _, l := range lenses {
			for _, kind := range []string{"clean", "filtered"} {
				name := fmt.Sprintf("fans=%d/lens=%s/post=%s", users, l.name, kind)
				withheld := l.lens == heavy && kind == "filtered"
				b.Run(name, func(b *testing.B) { benchDeliver(b, users, l.lens, posts[kind], withheld, nil) })
			}
		}
	}
}

// benchDeliver delivers post events of star 1 with content to fans live
// connections whose users have lens, which withholds them or not, in
// format (nil: native frames). The
// connections' writers are never started, so their queues are emptied (off
// the clock) before they fill up.
func benchDeliver(b *testing.B, fans int, lens *store.Lens, content string, withheld bool, format func() Format) {
	h := New(nil, nil, Options{Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { h.Shutdown(context.Background()) })
	const star = 1
	t := store.AuthorTopic(star)
	tp := &topic{}
	h.topics[t] = tp
	conns := make([]*Conn, 0, fans)
	for i := range fans {
		u := newUser(int64(100 + i))
		u.state, u.lens = userReady, newUserLens(lens)
		u.stars.add(star)
		c := &Conn{h: h, uid: u.id, user: u, live: true}
		if format != nil {
			c.format = format()
		}
		c.writing.Store(true) // as if a writer ran: none is started
		u.conns.add(c)
		tp.users.add(u)
		conns = append(conns, c)
	}
	// More distinct ids than a connection remembers, so that none is
	// dropped as a duplicate.
	payloads := make([][]byte, 4*seenWindow)
	for i := range payloads {
		p := store.Post{ID: int64(i + 1), Kind: store.KindPost, Author: store.Author{ID: star, Username: "star"}, Content: content}
		payloads[i], _ = store.EncodeFrame(store.EventPost, p)
	}
	batch := h.opt.SendQueue / 2
	b.ResetTimer()
	for i := range b.N {
		if i%batch == batch-1 {
			b.StopTimer()
			for _, c := range conns {
				if c.closing() {
					b.Fatal("a connection was closed")
				}
				c.queue = c.queue[:0]
			}
			b.StartTimer()
		}
		h.Deliver(t, payloads[i%len(payloads)])
	}
	b.StopTimer()
	if queued := len(conns[0].queue) > 0; queued == withheld {
		b.Fatalf("withheld %v, yet %d frames queued", withheld, len(conns[0].queue))
	}
}
