package hub_test

// Races between reading a user's stars and the stars events or broker gaps
// that happen meanwhile, on the fakes of fake_test.go. Each test holds the
// read's answer with holdAnswer, so that the stars it returns are older than
// what the test does next.

import (
	"testing"
	"time"

	"microblog/hub"
)

// TestGapDuringLoadRereadsStars: a follow lost while the broker was down
// during a new user's load, after its stars were read, is recovered: the
// catch-up leaves loading users out, so load reads the stars again.
func TestGapDuringLoadRereadsStars(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan, witness = 1, 2, 3
	th.tl.follow(witness, star)
	w := th.dial(t, witness, "")
	w.expect(wantReady(0))
	g := th.tl.holdAnswer("Stars", fan)
	c := th.dial(t, fan, "")
	<-g.entered // fan's stars are read: none

	th.broker.interrupt()
	th.tl.follow(fan, star)
	th.stars(fan, star, true) // lost in the gap
	lost := th.post(star)
	th.broker.resubscribe()
	// The witness got its catch-up, so the round picked its users
	// while fan was still loading.
	w.expect(wantPost(lost))
	g.open()
	c.expect(wantReady(lost))
	fromStar, own := th.post(star), th.post(fan)
	c.expect(wantPost(fromStar), wantPost(own))
}

// TestFollowWinsOverCatchUpSnapshot: a follow heard while the catch-up after
// a gap is reading a user's stars wins over that (older) read.
func TestFollowWinsOverCatchUpSnapshot(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan = 1, 2
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))

	th.broker.interrupt()
	lost := th.post(fan)
	g := th.tl.holdAnswer("Stars", fan)
	th.broker.resubscribe()
	<-g.entered // the catch-up read fan's stars: none
	th.tl.follow(fan, star)
	th.stars(fan, star, true)
	hub.FlushControl(th.Hub)
	g.open()
	c.expect(wantPost(lost)) // the catch-up is done with fan
	fromStar, own := th.post(star), th.post(fan)
	c.expect(wantPost(fromStar), wantPost(own))
}

// TestPeerGoneWhileLoading: a client that goes away while its user is still
// loading leaves nothing behind once the load is over, even when the read
// of its stars answers after the connection was cancelled.
func TestPeerGoneWhileLoading(t *testing.T) {
	th := newTestHub(t, hub.Options{Linger: 10 * time.Millisecond})
	const star, fan = 1, 2
	th.tl.follow(fan, star)
	g := th.tl.holdPastCancel("Stars", fan)
	c := th.dial(t, fan, "")
	<-g.entered
	c.Conn.Close()
	time.Sleep(50 * time.Millisecond) // the hub sees the peer go
	g.open()
	// The load goes on with what it read, then the user leaves and its
	// topics linger 10 ms: after that, nothing may be left subscribed.
	for deadline := time.Now().Add(hangWait); len(th.broker.subscribed()) > 0 || th.Connections() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("topics still subscribed for a user with no connection: %v; %d connections, want 0", th.broker.subscribed(), th.Connections())
		}
	}
}
