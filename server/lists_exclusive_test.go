package main

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"microblog/server/mastodon"
	"microblog/store"
)

// TestListExclusiveLive: a post by a member of an exclusive list leaves
// its owner's home, live and read: on the native feed it comes as
// list_post (for the list's page), not post; Mastodon's user stream over
// WebSocket and server-sent events passes it by, while the list stream
// brings it; the home timelines of both APIs leave it out and the list
// timeline has it. Made not exclusive, the list lets the next post home
// at once.
func TestListExclusiveLive(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ann, _ := ts.register(t, "ann")
	bob, _ := ts.register(t, "bob")
	cat, _ := ts.register(t, "cat")
	mtok := ts.mastodonToken(t, "ann", ann, "")
	ts.follow(t, ann, "bob", true)
	ts.follow(t, ann, "cat", true)
	status, b := ts.call(t, "POST", "/api/v1/me/lists", ann, map[string]any{"title": "quiet", "exclusive": true})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, b)
	}
	var l store.List
	mustDecode(t, b, &l)
	if !l.Exclusive {
		t.Fatalf("list %+v", l)
	}
	base := fmt.Sprintf("/api/v1/me/lists/%d", l.ID)
	ts.wantStatus(t, "PUT", base+"/members/bob", ann, nil, 204, "")

	ws := ts.dialWS(t, ann, "")
	ws.ready(t)
	auth := http.Header{"Authorization": {"Bearer " + mtok}}
	user, _ := ts.dialStream(t, "stream=user", auth)
	user.send(t, "", "", "")
	list, _ := ts.dialStream(t, "stream=list&list="+idStr(l.ID), auth)
	list.send(t, "", "", "")
	sse := ts.openSSE(t, "/api/v1/streaming/user", mtok)

	bp := ts.post(t, bob, "bob, for the list", 0)
	cp := ts.post(t, cat, "cat, for home", 0)
	ws.expect(t, store.EventListPost, bp.ID)
	ws.expect(t, store.EventPost, cp.ID)
	user.expectStatus(t, []string{"user"}, "update", cp.ID)
	if ev := sse.next(t, "update"); !isStatusJSON(ev.Data, idStr(cp.ID)) {
		t.Fatalf("the user event stream's first update %s, want cat's %d", ev.Data, cp.ID)
	}
	list.expectStatus(t, []string{"list", idStr(l.ID)}, "update", bp.ID)

	// A member's post with a topic ann follows comes on two topics: the
	// list stream and the native feed take it whichever comes first.
	ts.wantStatus(t, "PUT", "/api/v1/tags/quiet/follow", ann, nil, http.StatusNoContent, "")
	tp := ts.post(t, bob, "#quiet# please", 0)
	ws.expect(t, store.EventListPost, tp.ID)
	list.expectStatus(t, []string{"list", idStr(l.ID)}, "update", tp.ID)
	cp2 := ts.post(t, cat, "cat again", 0)
	ws.expect(t, store.EventPost, cp2.ID)
	user.expectStatus(t, []string{"user"}, "update", cp2.ID)

	var home store.Page[store.Post]
	ts.getJSON(t, ann, "/api/v1/timelines/home", &home)
	if got := ids(home.Items); slices.Contains(got, bp.ID) || slices.Contains(got, tp.ID) || !slices.Contains(got, cp.ID) {
		t.Fatalf("native home %v: want cat's %d and not bob's %d", got, cp.ID, bp.ID)
	}
	var mhome []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/home", mtok, nil, &mhome)
	if got := mastodonStatusIDs(mhome); slices.Contains(got, idStr(bp.ID)) || !slices.Contains(got, idStr(cp.ID)) {
		t.Fatalf("Mastodon home %v: want cat's %d and not bob's %d", got, cp.ID, bp.ID)
	}
	var lt []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/list/"+idStr(l.ID), mtok, nil, &lt)
	if got := mastodonStatusIDs(lt); !slices.Equal(got, []string{idStr(tp.ID), idStr(bp.ID)}) {
		t.Fatalf("list timeline %v, want bob's %d and %d", got, tp.ID, bp.ID)
	}

	// Not exclusive any more: the change reaches the live feed through
	// Redis (lens_changed), and bob's next post comes home.
	ts.wantStatus(t, "PATCH", base, ann, map[string]any{"exclusive": false}, 200, "")
	for end := time.Now().Add(hangWait); ; {
		p := ts.post(t, bob, "bob, home again", 0)
		f := ws.Next(t, hangWait)
		for slices.Contains(asides, f.Event) {
			f = ws.Next(t, hangWait)
		}
		if f.ID() != p.ID {
			t.Fatalf("frame %s, want bob's %d", f, p.ID)
		}
		if f.Event == store.EventPost {
			break
		}
		if f.Event != store.EventListPost || time.Now().After(end) {
			t.Fatalf("frame %s after the list stopped being exclusive", f)
		}
	}
}
