package hub_test

import (
	"testing"
	"time"

	"microblog/hub"
)

// Two authors, star and other, and a live fan of both.
const gapStar, gapOther, gapFan = 1, 2, 3

// gapReady starts a hub with opt, and a fan of two authors connected and
// ready.
func gapReady(t *testing.T, opt hub.Options) (*testHub, *client) {
	t.Helper()
	th := newTestHub(t, opt)
	th.tl.follow(gapFan, gapStar)
	th.tl.follow(gapFan, gapOther)
	c := th.dial(t, gapFan, "")
	c.expect(wantReady(0))
	return th, c
}

// TestFailedCatchUpSendsNothingNewer: when the catch-up after a gap fails
// (here: more was missed than it may queue), the client has been sent
// nothing newer than the posts lost in the gap, so that its resume with
// ?after=<newest post it has> replays them. A post heard live after the
// broker came back, while the catch-up was reading, once went out first
// and hid them (issue 27: fans missed a failed-over partition's posts).
func TestFailedCatchUpSendsNothingNewer(t *testing.T) {
	th, c := gapReady(t, hub.Options{SendQueue: 4}) // a catch-up of 2 posts is too long
	th.broker.interrupt()
	th.post(gapStar) // lost, as on a partition whose master failed over
	th.post(gapStar)
	g := th.tl.hold("HomeSince", gapFan)
	th.broker.resubscribe()
	<-g.entered       // the catch-up
	th.post(gapOther) // live, newer than the lost ones
	// Time for the writer to send it, were it queued: a close frame
	// decided first would go before it.
	time.Sleep(50 * time.Millisecond)
	g.open()
	c.expectClose(hub.CloseResume)
}

// TestCatchUpBeforeNewerLive: posts heard live while the catch-up after a
// gap reads the timeline go out after it, so that each author's posts
// arrive in order and once.
func TestCatchUpBeforeNewerLive(t *testing.T) {
	th, c := gapReady(t, hub.Options{})
	th.broker.interrupt()
	lost := th.post(gapStar)
	g := th.tl.hold("HomeSince", gapFan)
	th.broker.resubscribe()
	<-g.entered
	newer, again := th.post(gapOther), th.post(gapStar) // live, and in the catch-up's read
	g.open()
	c.expect(wantPost(lost), wantPost(newer), wantPost(again))
	c.expect(wantPost(th.post(gapStar)))
}
