package hub_test

// Scenarios of the hub against the in-memory Broker and Timeline of
// fake_test.go: no Redis, each in milliseconds. A test holds a timeline call
// or breaks the broker at the moment it wants, then checks every frame each
// client gets, in order, so that a duplicate or a gap shows as a wrong frame.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"microblog/hub"
	"microblog/hub/wstest"
	"microblog/store"
)

// TestReplayAfterThenLive: ?after= replays the newer posts, ready carries the
// newest id, and a post made while the replay was being read comes once.
func TestReplayAfterThenLive(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan = 1, 2
	th.tl.follow(fan, star)
	var old []int64
	for range 4 {
		old = append(old, th.post(star))
	}
	g := th.tl.hold("HomeSince", fan)
	c := th.dial(t, fan, "after="+strconv.FormatInt(old[1], 10))
	<-g.entered // subscribed and in force: a post now is both live and in the replay
	during := th.post(star)
	g.open()
	c.expect(wantPost(old[2]), wantPost(old[3]), wantPost(during), wantReady(during))
	c.expect(wantPost(th.post(star)))
}

// TestReplayTruncated: a replay longer than ReplayMax sends the newest posts
// and says so in ready.
func TestReplayTruncated(t *testing.T) {
	th := newTestHub(t, hub.Options{ReplayMax: 2})
	const star, fan = 1, 2
	th.tl.follow(fan, star)
	var ids []int64
	for range 4 {
		ids = append(ids, th.post(star))
	}
	th.dial(t, fan, "after=0").expect(wantPost(ids[2]), wantPost(ids[3]), wantReady(ids[3])+" truncated")
}

// TestGapWhileUsersJoin: a post lost while the broker was down reaches, once,
// a live connection, one whose user is still loading its stars, and one that
// is still reading its replay.
func TestGapWhileUsersJoin(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, live, loading, replaying = 1, 2, 3, 4
	for _, fan := range []int64{live, loading, replaying} {
		th.tl.follow(fan, star)
	}
	a := th.dial(t, live, "")
	a.expect(wantReady(0))
	gb := th.tl.hold("Stars", loading)
	b := th.dial(t, loading, "after=0")
	<-gb.entered
	gc := th.tl.hold("HomeSince", replaying)
	c := th.dial(t, replaying, "after=0")
	<-gc.entered

	th.broker.interrupt()
	lost := th.post(star) // written to the timelines, never delivered
	th.broker.resubscribe()
	a.expect(wantPost(lost)) // the hub's catch-up
	gb.open()
	gc.open()
	b.expect(wantPost(lost), wantReady(lost))
	c.expect(wantPost(lost), wantReady(lost))
	next, marker := th.post(star), th.post(star)
	for _, cl := range []*client{a, b, c} {
		cl.expect(wantPost(next), wantPost(marker))
	}
}

// TestRepeatedGapsReplayOnce: a second break while the first catch-up is
// reading the timeline keeps the connection's gap mark, so the next round
// starts where the first gap did; what both rounds bring is sent once.
func TestRepeatedGapsReplayOnce(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan = 1, 2
	th.tl.follow(fan, star)
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))

	th.broker.interrupt()
	first := th.post(star)
	g := th.tl.hold("HomeSince", fan)
	th.broker.resubscribe()
	<-g.entered // the first catch-up
	th.broker.interrupt()
	second := th.post(star)
	th.broker.resubscribe()
	g.open()
	c.expect(wantPost(first), wantPost(second))
	marker := th.post(star)
	c.expect(wantPost(marker))
}

// TestStarsEventWinsOverLoadingSnapshot: follows and unfollows heard while a
// new user's stars are being read win over that (older) snapshot.
func TestStarsEventWinsOverLoadingSnapshot(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const oldStar, newStar, fan = 1, 2, 3
	th.tl.follow(fan, oldStar) // what the snapshot will say
	g := th.tl.hold("Stars", fan)
	c := th.dial(t, fan, "")
	<-g.entered // fan's own notify topic is in force
	th.stars(fan, newStar, true)
	th.stars(fan, oldStar, false)
	hub.FlushControl(th.Hub)
	g.open()
	c.expect(wantReady(0))
	th.post(oldStar)
	fromNew, own := th.post(newStar), th.post(fan)
	c.expect(wantPost(fromNew), wantPost(own))
}

// TestSlowClientClosedFastKeepsUp: a client that stops reading is closed
// with 4008 while another one keeps getting every post.
func TestSlowClientClosedFastKeepsUp(t *testing.T) {
	reg := prometheus.NewRegistry()
	th := newTestHub(t, hub.Options{SendQueue: 4, SocketBuffer: 4 << 10, Registerer: reg})
	const star, fast, slow = 1, 2, 3
	th.tl.follow(fast, star)
	th.tl.follow(slow, star)
	f := th.dial(t, fast, "")
	f.expect(wantReady(0))
	s := th.dialWith(t, wstest.DialSlow, slow, "")
	s.expect(wantReady(0))

	// Big posts fill the slow client's socket buffers sooner; the fast client
	// reads each before the next is posted.
	big := strings.Repeat("x", 4<<10)
	posts := 0
	for ; !slowClosed(t, reg); posts++ {
		if posts == 1000 {
			t.Fatal("the slow client was not closed")
		}
		f.expect(wantPost(th.postText(star, big)))
	}
	f.expect(wantPost(th.postText(star, big)))
	// Now the slow client reads: what its socket held, then the close.
	if frames, code := s.closed(); code != hub.CloseTooSlow || len(frames) >= posts {
		t.Fatalf("slow client closed with %d after %d of %d posts, want %d", code, len(frames), posts, hub.CloseTooSlow)
	}
}

// slowClosed reads the hub's count of connections closed with 4008; the hub
// counts a close as it decides it, so no polling is needed.
func slowClosed(t *testing.T, reg *prometheus.Registry) bool {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "microblog_live_slow_closed_total" {
			return mf.GetMetric()[0].GetCounter().GetValue() > 0
		}
	}
	return false
}

// TestLogoutClosesOnlyThatSession: session_revoked closes the sockets of
// that token with 4001 and leaves the user's other sessions open.
func TestLogoutClosesOnlyThatSession(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const user = 1
	a := th.dial(t, user, "token=a")
	a.expect(wantReady(0))
	b := th.dial(t, user, "token=b")
	b.expect(wantReady(0))
	th.revoke(user, "a")
	a.expectClose(hub.CloseLoggedOut)
	b.expect(wantPost(th.post(user)))
}

// TestShutdownWaitsForConnections: Shutdown closes live and starting
// connections with 1001 and returns once they are gone; later ones are
// turned away with 1001.
func TestShutdownWaitsForConnections(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const alice, bob = 1, 2
	a := th.dial(t, alice, "")
	a.expect(wantReady(0))
	g := th.tl.hold("Stars", bob)
	b := th.dial(t, bob, "")
	<-g.entered // bob is still starting

	// The clients read meanwhile, so they answer the close at once.
	codes := make(chan int, 2)
	for _, c := range []*client{a, b} {
		go func() { _, code := c.closed(); codes <- code }()
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	if err := th.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := th.Connections(); n != 0 {
		t.Fatalf("%d connections left after Shutdown returned", n)
	}
	for range 2 {
		if code := <-codes; code != websocket.CloseGoingAway {
			t.Fatalf("closed with %d, want %d", code, websocket.CloseGoingAway)
		}
	}
	th.dial(t, alice, "").expectClose(websocket.CloseGoingAway)
}

// TestDeliverNeverBlocks: with the broker's Subscribe stuck, 10,000 stars
// events neither stall Deliver nor the posts behind them, and once the
// broker answers they are applied in order.
func TestDeliverNeverBlocks(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const fan, firstStar, stars, rounds = 1, 100, 10, 1000
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))
	release := sync.OnceFunc(th.broker.stallSubscribe())
	defer release()

	// Each star is followed and unfollowed in turn; the last event follows
	// the even stars. Encoded beforehand, so that the test times the hub.
	var frames [stars][2][]byte
	for i := range stars {
		for f := range 2 {
			frames[i][f] = frame(store.EventStars, store.StarsData{StarID: firstStar + int64(i), Following: f == 1})
		}
	}
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		for i := range stars * rounds {
			s := i % stars
			th.broker.publishFrame(store.NotifyTopic(fan), frames[s][(i/stars+s)%2])
		}
	}()
	select {
	case <-delivered:
	case <-time.After(hangWait):
		t.Fatal("Deliver blocked behind the stalled stars events")
	}
	c.expect(wantPost(th.post(fan)))

	release()
	hub.FlushControl(th.Hub)
	var want []string
	for s := int64(firstStar); s < firstStar+stars; s++ {
		if id := th.post(s); s%2 == 0 {
			want = append(want, wantPost(id))
		}
	}
	c.expect(append(want, wantPost(th.post(fan)))...)
}

// TestFailedLoadRefusesUsersConnections: when a user's topics cannot be
// brought in force, every connection waiting on that user is closed with
// 1012, and the user loads afresh once they are gone.
func TestFailedLoadRefusesUsersConnections(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const user = 1
	entered, fail := make(chan struct{}), make(chan struct{})
	once := sync.OnceFunc(func() { close(entered) })
	th.broker.onSync(func(ctx context.Context) error {
		once()
		select {
		case <-fail:
			return errors.New("redis unreachable")
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	first := th.dial(t, user, "")
	<-entered
	second := th.dial(t, user, "")
	waitFor(t, "the second connection", func() bool { return th.Connections() == 2 })
	close(fail)
	first.expectClose(hub.CloseResume)
	second.expectClose(hub.CloseResume)

	th.broker.onSync(nil)
	waitFor(t, "the refused connections to leave", func() bool { return th.Connections() == 0 })
	th.dial(t, user, "").expect(wantReady(0))
}

// TestPostRightAfterFollowArrives: a new star's post published before this
// process's subscription to it was in force still reaches the fan, once;
// the star's posts from before the follow are not replayed.
func TestPostRightAfterFollowArrives(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan = 1, 2
	old := th.post(star) // from before the follow: never live for the fan
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))
	th.tl.follow(fan, star)
	p := th.post(star) // lost live: nobody here listens to the star yet
	th.broker.publish(store.NotifyTopic(fan), store.EventStars, store.StarsData{StarID: star, Following: true, Since: old})
	hub.FlushControl(th.Hub)
	later := th.post(star)
	c.expect(wantPost(p), wantPost(later))
}
