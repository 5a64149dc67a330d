package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"microblog/hub/wstest"
	"microblog/store"
)

// TestLiveFramesNameOnlyVisiblePosts (CONTRACT.md §17): a counts or
// delete frame never names a post its receiver may not see. bob, whom
// alice blocks, follows tom, who reposts alice's post: the repost is
// hidden from bob, so its counts (a like of it) and its delete do not
// reach bob's /ws, while the same frames of tom's own post do. On the
// Mastodon public stream, the delete of a blocker's post and of a
// protected account's post reach nobody who may not see them, while an
// open account's delete does.
func TestLiveFramesNameOnlyVisiblePosts(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	tom, _ := ts.register(t, "tom")
	carol, _ := ts.register(t, "carol")
	pia, _ := ts.register(t, "pia")
	bob, bobM, _ := ts.bothTokens(t, "bob")
	ts.follow(t, bob, "tom", true)
	ts.wantStatus(t, "PATCH", "/api/v1/me", pia, map[string]any{"protected": true}, http.StatusOK, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/bob/block", alice, nil, http.StatusNoContent, "")
	orig := ts.newPost(t, alice, "for everyone but bob")

	ws := ts.dialWS(t, bob, "")
	ws.ready(t)
	repost := ts.repost(t, tom, orig)
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", repost), carol, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "DELETE", postPath(repost), tom, nil, http.StatusNoContent, "")
	// tom's own post, its like and delete: these bob gets, after whatever
	// came of the repost, since one author's frames keep their order.
	own := ts.newPost(t, tom, "tom's own")
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", own), carol, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "DELETE", postPath(own), tom, nil, http.StatusNoContent, "")
	var seen []wstest.Frame
	for deleted := false; !deleted; {
		f := ws.Next(t, hangWait)
		seen = append(seen, f)
		if (f.Event == store.EventCounts || f.Event == store.EventDelete || f.Event == store.EventPost) && (f.ID() == repost || f.ID() == orig) {
			t.Errorf("bob's /ws named a post hidden from him: %s", f)
		}
		deleted = f.Event == store.EventDelete && f.ID() == own
	}
	if !hasFrame(seen, store.EventCounts, own) {
		t.Errorf("bob's /ws got no counts of tom's own post: %v", seen)
	}

	// The Mastodon public stream.
	c, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + bobM}})
	c.send(t, "subscribe", "public", "")
	hidden := []int64{ts.newPost(t, alice, "a blocker's"), ts.newPost(t, pia, "a protected one's")}
	ts.wantStatus(t, "DELETE", postPath(hidden[0]), alice, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "DELETE", postPath(hidden[1]), pia, nil, http.StatusNoContent, "")
	open := ts.newPost(t, carol, "an open one")
	ts.wantStatus(t, "DELETE", postPath(open), carol, nil, http.StatusNoContent, "")
	for {
		m := c.next(t, "delete")
		for _, h := range hidden {
			if m.Payload == strconv.FormatInt(h, 10) || containsID(m.Payload, h) {
				t.Errorf("bob's public stream named hidden post %d: %s %s", h, m.Event, m.Payload)
			}
		}
		if m.Event == "delete" && m.Payload == strconv.FormatInt(open, 10) {
			break
		}
	}
}

// hasFrame tells whether frames hold event of id.
func hasFrame(frames []wstest.Frame, event string, id int64) bool {
	for _, f := range frames {
		if f.Event == event && f.ID() == id {
			return true
		}
	}
	return false
}

// containsID tells whether a status payload is status id.
func containsID(payload string, id int64) bool {
	return strings.Contains(payload, `"id":"`+strconv.FormatInt(id, 10)+`"`)
}
