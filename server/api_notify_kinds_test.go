package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"microblog/store"
)

// TestFollowRequestAccepted: approving a follow request tells the
// requester, in its list and live (a follow_request_accepted notification
// whose actor it now follows); Mastodon, which has no such type, leaves it
// out.
func TestFollowRequestAccepted(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	pia, _ := ts.register(t, "pia")
	fan, mfan, _ := ts.bothTokens(t, "fan")
	ts.patchMe(t, pia, map[string]any{"protected": true})
	ts.call(t, "PUT", "/api/v1/users/pia/follow", fan, nil)
	ws := ts.dialWS(t, fan, "")
	ws.ready(t)
	ts.wantStatus(t, "PUT", "/api/v1/me/follow_requests/fan", pia, nil, 204, "")

	f := ws.expect(t, store.EventNotification, 0)
	var live store.Notification
	mustDecode(t, f.Data, &live)
	if live.Kind != store.NotifyFollowAccepted || live.Actor.Username != "pia" || live.Actor.Following == nil || !*live.Actor.Following || live.Post != nil {
		t.Fatalf("live: %s, want follow_request_accepted by pia, followed", f.Data)
	}
	if n := ts.notifications(t, fan); len(n) != 1 || n[0].ID != live.ID || n[0].Kind != store.NotifyFollowAccepted {
		t.Fatalf("fan's notifications: %+v", n)
	}
	if ms, _ := ts.mastodonNotifications(t, mfan, ""); len(ms) != 0 {
		t.Errorf("Mastodon lists %+v, want nothing (no such type)", ms)
	}
	ts.mastodonError(t, "GET", fmt.Sprintf("/api/v1/notifications/%d", live.ID), mfan, nil, 404)

	// Rejected: nothing is said.
	nosy, _ := ts.register(t, "nosy")
	ts.call(t, "PUT", "/api/v1/users/pia/follow", nosy, nil)
	ts.wantStatus(t, "DELETE", "/api/v1/me/follow_requests/nosy", pia, nil, 204, "")
	if n := ts.notifications(t, nosy); len(n) != 0 {
		t.Errorf("a rejected requester is told %+v", n)
	}
}

// TestNotificationTypesFilter: ?types= lists only those kinds, in full
// pages however far the others push them down; an unknown kind is 400.
func TestNotificationTypesFilter(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.register(t, "amy")
	bob, _ := ts.register(t, "bob")
	mid := ts.newPost(t, amy, "hello")
	for i := range 3 {
		ts.comment(t, bob, mid, fmt.Sprintf("comment %d", i))
	}
	ts.call(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", mid), bob, nil)
	for i := range 5 {
		ts.newPost(t, bob, fmt.Sprintf("@amy look %d", i))
	}
	page := func(query string) store.Page[store.Notification] {
		var pg store.Page[store.Notification]
		status, body := ts.call(t, "GET", "/api/v1/notifications"+query, amy, nil)
		if status != 200 {
			t.Fatalf("%s: %d %s", query, status, body)
		}
		if err := json.Unmarshal(body, &pg); err != nil {
			t.Fatal(err)
		}
		return pg
	}
	kinds := func(pg store.Page[store.Notification]) (out []string) {
		for _, n := range pg.Items {
			out = append(out, n.Kind)
		}
		return out
	}
	if k := kinds(page("")); len(k) != 9 {
		t.Fatalf("all: %v, want 9", k)
	}
	// Comments sit below five mentions: a page of two is still full.
	p1 := page("?types=comment,reply&limit=2")
	if k := kinds(p1); len(k) != 2 || k[0] != "comment" || k[1] != "comment" || p1.NextCursor == nil {
		t.Fatalf("comments page 1: %v next %v", k, p1.NextCursor)
	}
	p2 := page("?types=comment&types=reply&limit=2&cursor=" + *p1.NextCursor)
	if k := kinds(p2); len(k) != 1 || p2.Items[0].ID >= p1.Items[1].ID || p2.NextCursor != nil {
		t.Fatalf("comments page 2: %v next %v", k, p2.NextCursor)
	}
	if k := kinds(page("?types=like")); len(k) != 1 || k[0] != "like" {
		t.Errorf("likes: %v", k)
	}
	if k := kinds(page("?types=mention")); len(k) != 5 {
		t.Errorf("mentions: %v", k)
	}
	ts.wantStatus(t, "GET", "/api/v1/notifications?types=likes", amy, nil, 400, "invalid_query")
}
