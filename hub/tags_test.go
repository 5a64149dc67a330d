package hub_test

import (
	"slices"
	"testing"
	"time"

	"microblog/hub"
	"microblog/store"
)

// setTags makes keys uid's followed topics, without any event.
func (tl *fakeTimeline) setTags(uid int64, keys ...string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.tags == nil {
		tl.tags = make(map[int64][]string)
	}
	tl.tags[uid] = keys
}

// waitSubscribed waits until t is subscribed (on) or not.
func waitSubscribed(t *testing.T, b *fakeBroker, topic store.Topic, on bool) {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for slices.Contains(b.subscribed(), topic) != on {
		if time.Now().After(deadline) {
			t.Fatalf("%v subscribed is not %v", topic, on)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFollowedTags: a user listens to the topic of each tag it follows from
// its first connection; a post heard there comes once though also heard
// on its author's topic, a protected author's never; a tags_changed event
// makes it listen to the topics it follows now, and its last connection
// leaving takes it off them.
func TestFollowedTags(t *testing.T) {
	th := newTestHub(t, hub.Options{Linger: time.Millisecond})
	const star, fan, stranger = 1, 2, 3
	th.tl.follow(fan, star)
	th.tl.setTags(fan, "go")
	c := th.dial(t, fan, "")
	c.expect(wantReady(0))
	goTopic, rustTopic := store.TagTopic("go"), store.TagTopic("rust")
	waitSubscribed(t, th.broker, goTopic, true)

	p := th.tl.add(stranger, "about #go")
	th.broker.publish(goTopic, store.EventPost, p)
	c.expect(wantPost(p.ID))
	both := th.tl.add(star, "the star on #go")
	th.broker.publish(store.AuthorTopic(star), store.EventPost, both)
	th.broker.publish(goTopic, store.EventPost, both)
	shy := th.tl.addPost(store.Post{Author: store.Author{ID: stranger, Protected: true}, Content: "protected #go"})
	th.broker.publish(goTopic, store.EventPost, shy)
	c.expect(wantPost(both.ID), wantPost(th.post(star)))

	th.tl.setTags(fan, "rust")
	th.broker.publish(store.NotifyTopic(fan), store.EventTagsChanged, struct{}{})
	waitSubscribed(t, th.broker, rustTopic, true)
	waitSubscribed(t, th.broker, goTopic, false)
	r := th.tl.add(stranger, "about #rust")
	th.broker.publish(rustTopic, store.EventPost, r)
	c.expect(wantPost(r.ID))

	c.Conn.Close()
	waitSubscribed(t, th.broker, rustTopic, false)
}
