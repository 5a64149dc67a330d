package hub_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/store"
)

// testFormat is a hub.Format that sends each post event as a frame of its
// own, "public_post" or "home_post" by the topic it came on, built once
// per event (counted in builds). The client's message "public" makes it
// listen to the public topic, "quiet" stop.
type testFormat struct{ builds *atomic.Int64 }

func (f *testFormat) AppendFrames(dst []hub.Frame, ev *hub.Event, offHome bool) []hub.Frame {
	if ev.Name != store.EventPost {
		return dst
	}
	name := "home_post"
	if ev.Topic.Kind == store.TopicPublic {
		name = "public_post"
	}
	fr := ev.Shared(name, func() any {
		f.builds.Add(1)
		return hub.NewPreparedFrame(store.FrameOf(name, ev.Data))
	}).(hub.Frame)
	return append(dst, fr)
}

func (f *testFormat) Receive(c *hub.Conn, msg []byte) {
	if err := c.ListenPublic(string(msg) == "public"); err != nil {
		panic(err)
	}
}

// publicPost publishes a post by author on the public topic, as the store
// does for a public post, and returns its id.
func (th *testHub) publicPost(author int64, protected bool) int64 {
	p := th.tl.addPost(store.Post{Author: store.Author{ID: author, Protected: protected}, Content: "hi"})
	th.broker.publish(store.PublicTopic(), store.EventPost, p)
	return p.ID
}

// TestFormatSharesTheFanOut: connections with a Format get the public
// topic's posts through the safety rule (a protected author's never, a
// blocked one's not to the blocker), each frame built once for all of
// them, a client that is no user included; a native connection of the same user gets none of them, and a
// Format's client that stops listening gets no more.
func TestFormatSharesTheFanOut(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const amy, bob, cat, author, blocked = 1, 2, 3, 8, 9
	th.tl.setLens(bob, &store.Lens{Viewer: bob, Hidden: map[int64]bool{blocked: true}})
	native := th.dial(t, amy, "")
	native.expect(wantReady(0))
	a := th.dial(t, amy, "format=1&public=1")
	b := th.dial(t, bob, "format=1&public=1")
	c := th.dial(t, cat, "format=1")          // listens once it says so
	app := th.dial(t, 0, "format=1&public=1") // no user: an app's token
	if err := c.Conn.WriteMessage(websocket.TextMessage, []byte("public")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "4 users on the public topic", func() bool { return hub.Listeners(th.Hub, store.PublicTopic()) == 4 })

	first := th.publicPost(author, false)
	th.publicPost(author, true)
	fromBlocked := th.publicPost(blocked, false)
	last := th.publicPost(author, false)
	want := func(cl *client, ids ...int64) {
		t.Helper()
		for _, id := range ids {
			if f := cl.Next(t, hangWait); f.Event != "public_post" || f.ID() != id {
				t.Fatalf("got %s, want public_post %d", f, id)
			}
		}
	}
	want(a, first, fromBlocked, last)
	want(b, first, last)
	want(c, first, fromBlocked, last)
	want(app, first, fromBlocked, last)
	if n := th.builds.Load(); n != 3 {
		t.Fatalf("built %d frames for 3 events sent to 4 connections, want 3", n)
	}
	home := th.post(amy)
	native.expect(wantPost(home)) // and none of the public posts before it
	if f := a.Next(t, hangWait); f.Event != "home_post" || f.ID() != home {
		t.Fatalf("got %s, want home_post %d", f, home)
	}

	if err := c.Conn.WriteMessage(websocket.TextMessage, []byte("quiet")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "3 users on the public topic", func() bool { return hub.Listeners(th.Hub, store.PublicTopic()) == 3 })
	next := th.publicPost(author, false)
	want(a, next)
	if frames, _ := c.Drain(200 * time.Millisecond); len(frames) > 0 {
		t.Fatalf("after quiet: %v", frames)
	}
}
