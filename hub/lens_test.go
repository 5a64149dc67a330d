package hub_test

// The safety rule on the live feed (CONTRACT §8): blocks, mutes, word
// filters and protected authors, on the fakes of fake_test.go. Each test
// ends a withheld event with one that is delivered, so that a frame that
// should not have come shows as a wrong frame.

import (
	"errors"
	"fmt"
	"testing"

	"microblog/hub"
	"microblog/store"
)

// newLens is uid's lens with the hidden (blocked or blocking) and muted
// users and the filtered words given, folded as the store keeps them.
func newLens(uid int64, hidden, muted []int64, words ...string) *store.Lens {
	l := &store.Lens{Viewer: uid, Hidden: make(map[int64]bool), Muted: make(map[int64]bool)}
	for _, id := range hidden {
		l.Hidden[id] = true
	}
	for _, id := range muted {
		l.Muted[id] = true
	}
	for _, w := range words {
		l.Words = append(l.Words, store.FoldWord(w))
	}
	return l
}

// connectFan makes fan follow stars and see through lens (nil: an empty
// one), connects it, and waits for its ready.
func (th *testHub) connectFan(t *testing.T, fan int64, lens *store.Lens, stars ...int64) *client {
	t.Helper()
	for _, s := range stars {
		th.tl.follow(fan, s)
	}
	if lens != nil {
		th.tl.setLens(fan, lens)
	}
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))
	return c
}

// lensChanged publishes the internal event that uid's lens changed and
// waits until the hub has read it again.
func (th *testHub) lensChanged(uid int64) {
	th.broker.publish(store.NotifyTopic(uid), store.EventLensChanged, struct{}{})
	hub.FlushControl(th.Hub)
}

// repost publishes author's repost of orig and returns its id.
func (th *testHub) repost(author int64, orig store.Post) int64 {
	p := th.tl.addPost(store.Post{Author: store.Author{ID: author}, RepostOf: &orig})
	th.broker.publish(store.AuthorTopic(author), store.EventPost, p)
	return p.ID
}

// publishPost publishes p, its id taken from the timeline, and returns it.
func (th *testHub) publishPost(p store.Post) store.Post {
	p = th.tl.addPost(p)
	th.broker.publish(store.AuthorTopic(p.Author.ID), store.EventPost, p)
	return p
}

// notify publishes to uid notification id of kind, caused by actor about
// post (nil for follows), and returns what describe calls it.
func (th *testHub) notify(uid, id int64, kind string, actor int64, post *store.Post) string {
	n := store.Notification{ID: id, Kind: kind, Actor: store.User{ID: actor}, Post: post}
	th.broker.publish(store.NotifyTopic(uid), store.EventNotification, n)
	return fmt.Sprintf("notification %d", id)
}

// comment publishes to uid, the author of the post commented on, the
// comment id by author, and returns what describe calls it.
func (th *testHub) comment(uid, id int64, author store.Author, content string) string {
	c := store.Post{ID: id, Kind: store.KindComment, Author: author, Content: content}
	th.broker.publish(store.NotifyTopic(uid), store.EventComment, c)
	return fmt.Sprintf("comment %d", id)
}

// TestLiveWithholdsHiddenAuthor: a post by a user the reader blocks (or who
// blocks it) never reaches the reader's socket.
func TestLiveWithholdsHiddenAuthor(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const blocked, friend, fan = 1, 2, 3
	c := th.connectFan(t, fan, newLens(fan, []int64{blocked}, nil), blocked, friend)
	th.post(blocked)
	c.expect(wantPost(th.post(friend)))
}

// TestLiveWithholdsRepostOfHiddenAuthor: a third user's repost of a hidden
// author's post does not reach the reader (the issue's own case), while
// that user's repost of anyone else's does.
func TestLiveWithholdsRepostOfHiddenAuthor(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const blocked, third, other, fan = 1, 2, 3, 4
	c := th.connectFan(t, fan, newLens(fan, []int64{blocked}, nil), third)
	fromBlocked := th.tl.add(blocked, "passed on")
	fromOther := th.tl.add(other, "passed on too")
	th.repost(third, fromBlocked)
	c.expect(wantPost(th.repost(third, fromOther)))
}

// TestLiveWithholdsMutedUser: a muted user's posts and reposts, reposts of
// its posts, its comments and the notifications it causes leave the
// reader's live feed; everyone else's come.
func TestLiveWithholdsMutedUser(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const muted, friend, fan = 1, 2, 3
	c := th.connectFan(t, fan, newLens(fan, nil, []int64{muted}), muted, friend)

	th.post(muted)
	th.repost(muted, th.tl.add(friend, "by a friend"))
	th.repost(friend, th.tl.add(muted, "by the muted one"))
	fansPost := th.tl.add(fan, "mine")
	th.notify(fan, 100, store.NotifyLike, muted, &fansPost)
	th.notify(fan, 101, store.NotifyFollow, muted, nil)
	th.comment(fan, 200, store.Author{ID: muted}, "a reply")
	c.expect(
		th.notify(fan, 102, store.NotifyLike, friend, &fansPost),
		th.comment(fan, 201, store.Author{ID: friend}, "a reply"),
		wantPost(th.post(friend)),
	)
}

// TestLiveWithholdsFilteredWords: a filtered word hides posts, reposts and
// notifications that carry it, in any letter case and any script.
func TestLiveWithholdsFilteredWords(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan = 1, 2
	c := th.connectFan(t, fan, newLens(fan, nil, nil, "天气", "RUST"), star)

	th.postText(star, "今天天气好")
	th.postText(star, "learning rust")
	th.repost(star, th.tl.add(3, "Rust 1.80 is out"))
	// A reader's own posts are never filtered (its like notifications
	// stay); a mention in someone else's post with the word is.
	withWord := th.tl.add(star, "天气预报 for @fan")
	th.notify(fan, 100, store.NotifyMention, star, &withWord)
	th.comment(fan, 200, store.Author{ID: star}, "RUST!")
	c.expect(wantPost(th.postText(star, "今天很好")))
}

// TestLensChangedTakesEffect: after lens_changed the reader's new lens is in
// force (a block withholds, an unblock lets posts flow again), and the
// event itself never reaches a client.
func TestLensChangedTakesEffect(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, friend, fan = 1, 2, 3
	c := th.connectFan(t, fan, nil, star, friend)
	c.expect(wantPost(th.post(star)))

	th.tl.setLens(fan, newLens(fan, []int64{star}, nil)) // a block
	th.lensChanged(fan)
	th.post(star)
	c.expect(wantPost(th.post(friend)))

	th.tl.setLens(fan, newLens(fan, nil, nil)) // the unblock
	th.lensChanged(fan)
	c.expect(wantPost(th.post(star)))
}

// TestEventsWaitForChangedLens: the events that follow lens_changed wait
// until the lens it asked for is read, and then go through it, in order:
// a post of the user just blocked does not slip through the old lens.
func TestEventsWaitForChangedLens(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, friend, fan = 1, 2, 3
	c := th.connectFan(t, fan, nil, star, friend)
	th.tl.setLens(fan, newLens(fan, []int64{star}, nil))
	g := th.tl.hold("Lens", fan)
	th.broker.publish(store.NotifyTopic(fan), store.EventLensChanged, struct{}{})
	<-g.entered
	th.post(star)
	first, second := th.post(friend), th.post(friend)
	g.open()
	c.expect(wantPost(first), wantPost(second))
}

// TestEventsWaitForNewestLens: events held after two lens_changed events
// wait for the read that the second one asked for, not the first.
func TestEventsWaitForNewestLens(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, friend, fan = 1, 2, 3
	c := th.connectFan(t, fan, nil, star, friend)
	g := th.tl.holdAnswer("Lens", fan)
	th.broker.publish(store.NotifyTopic(fan), store.EventLensChanged, struct{}{})
	<-g.entered // read: nothing hidden
	th.tl.setLens(fan, newLens(fan, []int64{star}, nil))
	th.broker.publish(store.NotifyTopic(fan), store.EventLensChanged, struct{}{})
	th.post(star)
	fromFriend := th.post(friend)
	g.open()
	hub.FlushControl(th.Hub)
	c.expect(wantPost(fromFriend))
}

// TestTooManyEventsWaitForLens: when more events wait for a lens than a
// connection's queue takes, the connection is asked to reconnect.
func TestTooManyEventsWaitForLens(t *testing.T) {
	th := newTestHub(t, hub.Options{SendQueue: 4})
	const friend, fan = 1, 2
	c := th.connectFan(t, fan, nil, friend)
	g := th.tl.hold("Lens", fan)
	th.broker.publish(store.NotifyTopic(fan), store.EventLensChanged, struct{}{})
	<-g.entered
	for range 5 {
		th.post(friend)
	}
	c.expectClose(hub.CloseResume)
	g.open()
}

// TestLensChangedDuringLoadWins: a lens read after a lens_changed event
// heard while a new user's lens was being read wins over that older read,
// even when it answers first.
func TestLensChangedDuringLoadWins(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, friend, fan = 1, 2, 3
	th.tl.follow(fan, star)
	th.tl.follow(fan, friend)
	g := th.tl.holdAnswer("Lens", fan)
	c := th.dial(t, fan, "")
	<-g.entered // read: nothing hidden; fan's notify topic is in force
	th.tl.setLens(fan, newLens(fan, []int64{star}, nil))
	th.lensChanged(fan)
	g.open()
	c.expect(wantReady(0))
	th.post(star)
	c.expect(wantPost(th.post(friend)))
}

// TestHeldEventsMeetTheLens: an event that arrives while the connection
// opens, before its user's lens is read, is held and then withheld if the
// lens hides it.
func TestHeldEventsMeetTheLens(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const muted, friend, fan = 1, 2, 3
	th.tl.setLens(fan, newLens(fan, nil, []int64{muted}))
	g := th.tl.hold("Lens", fan)
	c := th.dial(t, fan, "")
	<-g.entered // fan's notify topic is in force, its lens not read
	th.notify(fan, 100, store.NotifyFollow, muted, nil)
	fromFriend := th.notify(fan, 101, store.NotifyFollow, friend, nil)
	g.open()
	c.expect(wantReady(0), fromFriend)
}

// TestGapRereadsLens: a lens_changed event lost while the broker was down
// is made up for by the catch-up, which reads the lens again.
func TestGapRereadsLens(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, friend, fan = 1, 2, 3
	c := th.connectFan(t, fan, nil, star, friend)
	th.broker.interrupt()
	th.tl.setLens(fan, newLens(fan, []int64{star}, nil))
	th.lensChanged(fan) // lost in the gap
	lost := th.post(friend)
	th.broker.resubscribe()
	c.expect(wantPost(lost)) // the catch-up is done with fan
	th.post(star)
	c.expect(wantPost(th.post(friend)))
}

// TestLensReadFailureOnLoad: a user whose lens cannot be read fails to load
// as one whose stars cannot be read: its connection is closed with 1012,
// and the next one loads it afresh.
func TestLensReadFailureOnLoad(t *testing.T) {
	for _, method := range []string{"Stars", "Lens"} {
		t.Run(method, func(t *testing.T) {
			th := newTestHub(t, hub.Options{})
			const user = 1
			th.tl.fail(method, user, errors.New("redis unreachable"))
			th.dial(t, user, "").expectClose(hub.CloseResume)
			waitFor(t, "the refused connection to leave", func() bool { return th.Connections() == 0 })
			th.dial(t, user, "").expect(wantReady(0))
		})
	}
}

// TestLensReadFailureAfterChange: when the lens cannot be read after a
// lens_changed event, the user's connections are asked to reconnect rather
// than go on with a lens that may let through what was just blocked.
func TestLensReadFailureAfterChange(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, fan = 1, 2
	c := th.connectFan(t, fan, nil, star)
	th.tl.setLens(fan, newLens(fan, []int64{star}, nil))
	th.tl.fail("Lens", fan, errors.New("redis unreachable"))
	th.lensChanged(fan)
	c.expectClose(hub.CloseResume)
	waitFor(t, "the closed connection to leave", func() bool { return th.Connections() == 0 })
	c = th.dial(t, fan, "")
	c.expect(wantReady(0))
	th.post(star)
	c.expect(wantPost(th.post(fan)))
}

// TestLiveProtectedAuthors: a protected author's post reaches its fans over
// its topic and the author itself; a repost of it does not, nor does a
// protected stranger's comment; a protected star's comment and a
// notification about the reader's own protected post do.
func TestLiveProtectedAuthors(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const protected, third, stranger, fan = 1, 2, 3, 4
	c := th.connectFan(t, fan, nil, protected, third)
	author := th.connectFan(t, protected, nil)

	p := th.publishPost(store.Post{Author: store.Author{ID: protected, Protected: true}, Content: "for my fans"})
	c.expect(wantPost(p.ID))
	author.expect(wantPost(p.ID))
	th.repost(third, p)
	th.comment(fan, 200, store.Author{ID: stranger, Protected: true}, "from a stranger")
	own := store.Post{ID: 300, Author: store.Author{ID: fan, Protected: true}, Content: "mine"}
	c.expect(
		th.comment(fan, 201, store.Author{ID: protected, Protected: true}, "from my star"),
		th.notify(fan, 100, store.NotifyLike, third, &own),
		wantPost(th.post(third)),
	)
}
