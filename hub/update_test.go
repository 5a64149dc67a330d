package hub_test

import (
	"encoding/json"
	"testing"

	"microblog/hub"
	"microblog/store"
)

// TestLivePostUpdate: an edited post (post_update) reaches the fans as a
// post does, though its id was sent already, each time it is edited, and on
// a reposter's channel too; the safety rule holds it back as it would the
// post: an edit that brings in a filtered word, an edit of a blocked
// author's post passed on by a repost.
func TestLivePostUpdate(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	const star, blocked, reposter, fan = 1, 2, 3, 4
	c := th.connectFan(t, fan, newLens(fan, []int64{blocked}, nil, "spoiler"), star, reposter)
	p := th.tl.add(star, "first")
	th.broker.publish(store.AuthorTopic(star), store.EventPost, p)
	c.expect(wantPost(p.ID))

	update := func(topic store.Topic, p store.Post, content string) string {
		p.Content = content
		th.broker.publish(topic, store.EventPostUpdate, p)
		return content
	}
	next := func(want string) {
		t.Helper()
		f := c.Next(t, hangWait)
		var got store.Post
		json.Unmarshal(f.Data, &got)
		if f.Event != store.EventPostUpdate || got.ID != p.ID || got.Content != want {
			t.Fatalf("got %s %s, want post_update %d %q", f.Event, f.Data, p.ID, want)
		}
	}
	next(update(store.AuthorTopic(star), p, "second"))
	next(update(store.AuthorTopic(star), p, "third"))
	update(store.AuthorTopic(star), p, "a SPOILER")
	update(store.AuthorTopic(reposter), th.tl.add(blocked, "by the blocked one"), "edited")
	next(update(store.AuthorTopic(reposter), p, "fourth, through a repost"))
}
