package hub_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"microblog/hub"
	"microblog/store"
)

// seenQuery spells ?after= and ?seen= as a resuming client sends them.
func seenQuery(after int64, seen []int64) string {
	ids := make([]string, len(seen))
	for i, id := range seen {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return fmt.Sprintf("after=%d&seen=%s", after, strings.Join(ids, ","))
}

// TestResumeReplaysLatePost: a post whose id was drawn before newer ones
// but that stood only after them (its write waited on a failing master)
// and whose event went out while the client was away is replayed to a
// client that resumes as ResumePoint says, and the posts it holds are not.
// With ?after=<the newest id it holds> alone it would be passed by.
func TestResumeReplaysLatePost(t *testing.T) {
	const star, other, fan = 1, 2, 3
	th := newTestHub(t, hub.Options{})
	th.tl.follow(fan, star)
	th.tl.follow(fan, other)
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))
	late := th.tl.claim(star)
	a, b := th.post(star), th.post(other)
	c.expect(wantPost(a), wantPost(b))
	held := []store.Held{{ID: a, At: th.tl.createdAt(a)}, {ID: b, At: th.tl.createdAt(b)}}
	c.Conn.Close()

	th.tl.addClaimed(late) // its event went out while the client was away
	newer := th.post(other)

	old := th.dial(t, fan, fmt.Sprintf("after=%d", b))
	old.expect(wantPost(newer), wantReady(newer)) // the late post passed by

	after, seen := store.ResumePoint(0, held)
	if after != 0 || !slices.Equal(seen, []int64{a, b}) {
		t.Fatalf("ResumePoint = %d, %v; want 0, [%d %d]", after, seen, a, b)
	}
	c = th.dial(t, fan, seenQuery(after, seen))
	c.expect(wantPost(late.ID), wantPost(newer), wantReady(newer))
	c.expect(wantPost(th.post(star)))
}

// TestResumeLeavesOutSeenHeardWhileOpening: a post the client listed as
// seen whose event is heard again while the connection opens (go-redis
// re-sends a cluster pipeline after CLUSTERDOWN) is not sent.
func TestResumeLeavesOutSeenHeardWhileOpening(t *testing.T) {
	const star, fan = 1, 3
	th := newTestHub(t, hub.Options{})
	th.tl.follow(fan, star)
	a := th.tl.add(star, "held")
	g := th.tl.hold("HomeSince", fan)
	c := th.dial(t, fan, seenQuery(0, []int64{a.ID}))
	<-g.entered
	th.broker.publish(store.AuthorTopic(star), store.EventPost, a)
	g.open()
	c.expect(wantReady(a.ID))
	c.expect(wantPost(th.post(star)))
}

// TestCatchUpAfterGapFindsLatePost: a post that stood below the newest one
// a live connection was sent, during a broker gap that lost its event, is
// sent by the catch-up, and what the connection was sent is not sent again.
func TestCatchUpAfterGapFindsLatePost(t *testing.T) {
	th, c := gapReady(t, hub.Options{})
	late := th.tl.claim(gapStar)
	sent := th.post(gapOther)
	c.expect(wantPost(sent))
	th.broker.interrupt()
	th.tl.addClaimed(late) // stands during the gap; its event is lost
	th.broker.resubscribe()
	c.expect(wantPost(late.ID))
	c.expect(wantPost(th.post(gapStar)))
}

// TestCatchUpLooksBackOnlyTheWindow: the catch-up after a gap starts at the
// newest post sent that was written ResumeWindow before the newest sent,
// not further back: with a queue that takes a catch-up of 2 posts, one of
// 6 would close the connection.
func TestCatchUpLooksBackOnlyTheWindow(t *testing.T) {
	th, c := gapReady(t, hub.Options{SendQueue: 6}) // a catch-up may take 2
	old := store.Time(time.Now().Add(-2 * store.ResumeWindow).UnixMilli())
	for range 4 {
		p := th.tl.addPost(store.Post{Author: store.Author{ID: gapStar}, CreatedAt: old})
		th.broker.publish(store.AuthorTopic(gapStar), store.EventPost, p)
		c.expect(wantPost(p.ID))
	}
	recent := th.post(gapOther)
	c.expect(wantPost(recent))
	th.broker.interrupt()
	lost := th.post(gapStar)
	th.broker.resubscribe()
	c.expect(wantPost(lost))
	c.expect(wantPost(th.post(gapStar)))
}

// createdAt is the created_at of post id, as its frame carries it.
func (tl *fakeTimeline) createdAt(id int64) store.Time {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, h := range tl.home {
		for _, p := range h {
			if p.ID == id {
				return p.CreatedAt
			}
		}
	}
	return 0
}

// TestCatchUpNeverResendsWhatLeftTheWindow: the catch-up after a gap does
// not send again posts that left the connection's window of sent ids, even
// when the post sent last, a late one, has an id below theirs: the window
// keeps the last ids sent, not the highest, and a catch-up that started
// below its lowest id sent the posts that had left it a second time (the
// chaos run's fan received a post live twice after a failover).
func TestCatchUpNeverResendsWhatLeftTheWindow(t *testing.T) {
	th, c := gapReady(t, hub.Options{SendQueue: 400, ReplayMax: 200})
	late := th.tl.claim(gapStar)
	for range 130 { // more than the window holds: the first ones leave it
		c.expect(wantPost(th.post(gapOther)))
	}
	p := th.tl.addClaimed(late)
	th.broker.publish(store.AuthorTopic(gapStar), store.EventPost, p)
	c.expect(wantPost(late.ID))
	th.broker.interrupt()
	lost := th.post(gapStar)
	th.broker.resubscribe()
	c.expect(wantPost(lost))
	c.expect(wantPost(th.post(gapStar)))
}
