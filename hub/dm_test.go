package hub_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"microblog/hub"
	"microblog/hub/wstest"
	"microblog/store"
)

// describeDM names a frame for comparing sequences of private messages:
// "message 3", "message_delete 3", "post 4", "ready 4 3" (the last post id
// and the last message id), or else its event.
func describeDM(f wstest.Frame) string {
	var d struct {
		ID       int64 `json:"id"`
		LastID   int64 `json:"last_id"`
		LastDMID int64 `json:"last_message_id"`
	}
	json.Unmarshal(f.Data, &d)
	switch f.Event {
	case store.EventDM, store.EventDMDelete, store.EventPost:
		return fmt.Sprintf("%s %d", f.Event, d.ID)
	case store.EventReady:
		return fmt.Sprintf("ready %d %d", d.LastID, d.LastDMID)
	}
	return f.Event
}

func wantDM(id int64) string { return fmt.Sprintf("message %d", id) }

// expectDM reads the next frames and fails unless they are want, in order.
func (c *client) expectDM(want ...string) {
	c.t.Helper()
	for i, w := range want {
		if got := describeDM(c.Next(c.t, hangWait)); got != w {
			c.t.Fatalf("frame %d: got %q, want %q of %q", i, got, w, want)
		}
	}
}

// TestDMReachesEverySocket: a message goes to every open socket of
// both its users, once each, and to no one else; ready says the newest
// message id.
func TestDMReachesEverySocket(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob, carol = 1, 2, 3
	old := th.tl.addDM(alice, bob).ID
	a1, a2, b, c := th.dial(t, alice, ""), th.dial(t, alice, ""), th.dial(t, bob, ""), th.dial(t, carol, "")
	for _, cl := range []*client{a1, a2, b} {
		cl.expectDM(fmt.Sprintf("ready 0 %d", old))
	}
	c.expectDM("ready 0 0")
	m := th.message(alice, bob)
	for _, cl := range []*client{a1, a2, b} {
		cl.expectDM(wantDM(m))
	}
	other := th.message(carol, bob)
	c.expectDM(wantDM(other)) // carol got nothing before it
	b.expectDM(wantDM(other))
	th.broker.publish(store.NotifyTopic(alice), store.EventDMDelete, store.DeleteData{ID: m})
	th.broker.publish(store.NotifyTopic(bob), store.EventDMDelete, store.DeleteData{ID: m})
	a1.expectDM("message_delete " + fmt.Sprint(m))
	a2.expectDM("message_delete " + fmt.Sprint(m))
	b.expectDM("message_delete " + fmt.Sprint(m))
}

// TestDMsReplayOnce: a connection with ?messages_after= gets the
// messages it missed, oldest first, before ready, and the live ones after,
// none twice; posts and messages replay side by side.
func TestDMsReplayOnce(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob = 1, 2
	first := th.tl.addDM(alice, bob).ID
	second := th.tl.addDM(bob, alice).ID
	third := th.tl.addDM(alice, bob).ID
	p := th.tl.add(bob, "own post").ID
	c := th.dial(t, bob, fmt.Sprintf("after=0&messages_after=%d", first))
	c.expectDM(wantPost(p), wantDM(second), wantDM(third), fmt.Sprintf("ready %d %d", p, third))
	live := th.message(alice, bob)
	c.expectDM(wantDM(live))
}

// TestDMDuringOpen: a message written while its recipient connects
// is neither lost nor doubled, whether the replay read it or not.
func TestDMDuringOpen(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob = 1, 2
	// The replay reads after the message is written: it is in the replay
	// and among the events held while the connection opened; sent once.
	g := th.tl.hold("DMsSince", bob)
	c := th.dial(t, bob, "messages_after=0")
	<-g.entered
	m := th.message(alice, bob)
	g.open()
	c.expectDM(wantDM(m), fmt.Sprintf("ready 0 %d", m))
	after := th.message(alice, bob)
	c.expectDM(wantDM(after))

	// The replay read before the message was written: it comes from the
	// events held meanwhile.
	g = th.tl.holdAnswer("DMsSince", bob)
	c2 := th.dial(t, bob, fmt.Sprintf("messages_after=%d", after))
	<-g.entered
	late := th.message(alice, bob)
	g.open()
	c2.expectDM(fmt.Sprintf("ready 0 %d", late), wantDM(late))
	c.expectDM(wantDM(late))
}

// TestDMsCaughtUpAfterGap: messages published while the broker was
// down reach every socket once it is back, in order, once.
func TestDMsCaughtUpAfterGap(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob = 1, 2
	a, b := th.dial(t, alice, ""), th.dial(t, bob, "")
	a.expectDM("ready 0 0")
	b.expectDM("ready 0 0")
	before := th.message(alice, bob)
	a.expectDM(wantDM(before))
	b.expectDM(wantDM(before))

	th.broker.interrupt()
	lost1, lost2 := th.message(alice, bob), th.message(bob, alice)
	th.broker.resubscribe()
	a.expectDM(wantDM(lost1), wantDM(lost2))
	b.expectDM(wantDM(lost1), wantDM(lost2))
	live := th.message(bob, alice)
	a.expectDM(wantDM(live))
	b.expectDM(wantDM(live))
}

// TestDMHeardAfterItsReplay: a client that got a message from a
// replay before its event reached the hub, and reconnects at once with
// ?messages_after= that message, does not get it again from the events
// held while it opens. A message heard after a newer one (late) is news
// to such a client and goes out; so is anything heard on a topic
// subscribed for the connection itself.
func TestDMHeardAfterItsReplay(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob, dave = 1, 2, 3
	phone := th.dial(t, bob, "")
	phone.expectDM("ready 0 0")

	// Written, its event not heard yet; another device replayed it.
	m := th.tl.addDM(alice, bob)
	g := th.tl.holdAnswer("DMsSince", bob)
	c := th.dial(t, bob, fmt.Sprintf("messages_after=%d", m.ID))
	<-g.entered
	th.broker.publish(store.NotifyTopic(bob), store.EventDM, m)
	g.open()
	c.expectDM(fmt.Sprintf("ready 0 %d", m.ID))
	phone.expectDM(wantDM(m.ID))

	// Claimed first, heard last: the client's mark passed it.
	early := th.tl.addDM(alice, bob)
	newer := th.message(alice, bob)
	phone.expectDM(wantDM(newer))
	c.expectDM(wantDM(newer))
	g = th.tl.holdAnswer("DMsSince", bob)
	c2 := th.dial(t, bob, fmt.Sprintf("messages_after=%d", newer))
	<-g.entered
	th.broker.publish(store.NotifyTopic(bob), store.EventDM, early)
	g.open()
	c2.expectDM(fmt.Sprintf("ready 0 %d", newer), wantDM(early.ID))
	next := th.message(alice, bob)
	c2.expectDM(wantDM(next)) // nothing in between
	c.expectDM(wantDM(early.ID), wantDM(next))

	// Dave's topic is subscribed for his connection: what it hears came
	// after he connected.
	d := th.tl.addDM(alice, dave)
	g = th.tl.holdAnswer("DMsSince", dave)
	dc := th.dial(t, dave, fmt.Sprintf("messages_after=%d", d.ID))
	<-g.entered
	th.broker.publish(store.NotifyTopic(dave), store.EventDM, d)
	g.open()
	dc.expectDM(fmt.Sprintf("ready 0 %d", d.ID), wantDM(d.ID))
}

// TestDMHeardAfterTheNextConnectionIsLive: on a cluster a message's event
// is published after its write, so a replay may read it before its event
// is even sent. A client that got it so, dropped its connection and
// reconnected at once with ?messages_after= that message does not get it
// again when its event reaches the hub after the new connection went
// live, rather than while it opened; a message heard late is still news.
func TestDMHeardAfterTheNextConnectionIsLive(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob = 1, 2
	first := th.dial(t, bob, "messages_after=0")
	first.expectDM("ready 0 0")

	// Written, its event not sent yet: a connection's replay reads it.
	m := th.tl.addDM(alice, bob)
	c1 := th.dial(t, bob, "messages_after=0")
	c1.expectDM(wantDM(m.ID), fmt.Sprintf("ready 0 %d", m.ID))
	c1.Conn.Close()
	c2 := th.dial(t, bob, fmt.Sprintf("messages_after=%d", m.ID))
	c2.expectDM(fmt.Sprintf("ready 0 %d", m.ID))
	th.broker.publish(store.NotifyTopic(bob), store.EventDM, m) // now, with c2 live
	th.broker.publish(store.NotifyTopic(alice), store.EventDM, m)
	first.expectDM(wantDM(m.ID))
	next := th.message(alice, bob)
	c2.expectDM(wantDM(next)) // not m again
	first.expectDM(wantDM(next))

	// Claimed first, heard last: a live client whose mark passed it gets it.
	early := th.tl.addDM(alice, bob)
	newer := th.message(alice, bob)
	c3 := th.dial(t, bob, fmt.Sprintf("messages_after=%d", newer))
	c3.expectDM(fmt.Sprintf("ready 0 %d", newer))
	th.broker.publish(store.NotifyTopic(bob), store.EventDM, early)
	c3.expectDM(wantDM(early.ID))
	first.expectDM(wantDM(newer), wantDM(early.ID))
	c2.expectDM(wantDM(newer), wantDM(early.ID))
}
