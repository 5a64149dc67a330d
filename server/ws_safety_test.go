package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"microblog/store"
)

// TestWSSafety: the live feed and its replay hold back what the reader's
// home would: a blocked author's post passed on by a third user's repost, a
// muted user's posts and notifications, posts with a filtered word. A
// change of the lens reaches open connections at once. Each check posts
// something the reader may see after what it may not, on the same channel,
// so that the next frame proves the first was held back.
func TestWSSafety(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")
	ben, _ := ts.register(t, "ben")
	cat, _ := ts.register(t, "cat")
	dan, _ := ts.register(t, "dan")
	ts.follow(t, amy, "cat", true)
	ts.follow(t, amy, "dan", true)
	amyPost := ts.newPost(t, amy, "amy's own")
	benPost := ts.newPost(t, ben, "ben's post")
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/block", amy, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/dan/mute", amy, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/me/filters", amy, map[string]any{"words": []string{"天气"}}, 200, "")

	ws := ts.dialWS(t, amy, "")
	ws.ready(t)
	ts.repost(t, cat, benPost) // ben's post, passed on by cat
	ts.newPost(t, cat, "今天天气好")
	seen := ts.newPost(t, cat, "cat, plainly")
	ws.expect(t, "post", seen)

	ts.newPost(t, dan, "dan, muted")
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", amyPost), dan, nil, 204, "")
	danSeen := ts.newPost(t, cat, "after dan")
	f := ws.Next(t, hangWait)
	for f.Event == store.EventCounts { // the like's new count on amy's own post
		f = ws.Next(t, hangWait)
	}
	if f.Event != store.EventPost || f.ID() != danSeen {
		t.Fatalf("got %s, want cat's post %d (nothing of dan's)", f, danSeen)
	}

	// The replay holds back the same.
	replay := ts.dialWS(t, amy, fmt.Sprintf("after=%d", amyPost))
	replay.expect(t, "post", seen)
	replay.expect(t, "post", danSeen)
	replay.ready(t)

	// Unmuting reaches the open connection.
	ts.wantStatus(t, "DELETE", "/api/v1/users/dan/mute", amy, nil, 204, "")
	ws.expectSoon(t, func() int64 { return ts.newPost(t, dan, "dan, heard again") })
}

// expectSoon calls write (which writes a post and returns its id) until the
// connection receives one of the posts written, within hangWait: for a
// change that reaches open connections asynchronously.
func (c *wsClient) expectSoon(t testing.TB, write func() int64) {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	var ids []int64
	for time.Now().Before(deadline) {
		ids = append(ids, write())
		frames, _ := c.Drain(200 * time.Millisecond)
		for _, f := range frames {
			if f.Event == store.EventPost && slices.Contains(ids, f.ID()) {
				return
			}
		}
	}
	t.Fatalf("none of posts %v reached the connection within %v", ids, hangWait)
}
