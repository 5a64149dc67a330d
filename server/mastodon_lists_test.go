package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	gomastodon "github.com/mattn/go-mastodon"

	"microblog/server/mastodon"
)

// mastodonStatus posts content as tok's user through the Mastodon API.
func (ts *testServer) mastodonStatus(t testing.TB, tok, content string) mastodon.Status {
	t.Helper()
	var s mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", tok, map[string]any{"status": content}, &s)
	return s
}

// mastodonStatusIDs are the ids of a list of statuses, in order.
func mastodonStatusIDs(list []mastodon.Status) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

// TestMastodonLists: /api/v1/lists as Mastodon's: create, read, update,
// delete; accounts added by account_ids[] (only followed ones: Record not
// found otherwise, and nothing written), listed, and the lists holding an
// account; the list timeline paged by max_id with Link headers, under the
// home timeline's safety rules; other users' lists not found; scopes.
func TestMastodonLists(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	reader, _ := ts.mastodonUser(t, "reader", "")
	ann, annID := ts.mastodonUser(t, "ann", "")
	bob, bobID := ts.mastodonUser(t, "bob", "")
	cat, catID := ts.mastodonUser(t, "cat", "")
	other, _ := ts.mastodonUser(t, "other", "")
	readOnly, _ := ts.mastodonUser(t, "peeker", "read")
	for _, id := range []int64{annID, bobID} {
		ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+idStr(id)+"/follow", reader, nil, nil)
	}

	var l mastodon.List
	ts.mastodonJSON(t, "POST", "/api/v1/lists", reader, map[string]any{"title": "朋友"}, &l)
	if l.ID == "" || l.Title != "朋友" || l.RepliesPolicy != "list" || l.Exclusive {
		t.Fatalf("new list %+v", l)
	}
	base := "/api/v1/lists/" + l.ID
	if e := ts.mastodonError(t, "POST", "/api/v1/lists", reader, map[string]any{}, 422); e == "" {
		t.Fatal("no error for a list without a title")
	}
	ts.mastodonError(t, "POST", "/api/v1/lists", reader, map[string]any{"title": "x", "replies_policy": "all"}, 422)
	ts.mastodonError(t, "POST", "/api/v1/lists", readOnly, map[string]any{"title": "x"}, 403)
	ts.mastodonError(t, "GET", base, other, nil, 404)
	ts.mastodonError(t, "GET", "/api/v1/timelines/list/"+l.ID, other, nil, 404)
	ts.mastodonError(t, "GET", "/api/v1/lists/nope", reader, nil, 404)
	ts.mastodonError(t, "POST", base+"/accounts", other, map[string]any{"account_ids": []string{idStr(annID)}}, 404)
	ts.mastodonError(t, "GET", "/api/v1/lists", "", nil, 401)

	var upd mastodon.List
	ts.mastodonJSON(t, "PUT", base, reader, map[string]any{"title": "Friends", "replies_policy": "followed", "exclusive": true}, &upd)
	if upd.Title != "Friends" || upd.RepliesPolicy != "followed" || !upd.Exclusive {
		t.Fatalf("updated %+v", upd)
	}
	ts.mastodonError(t, "PUT", base, reader, map[string]any{"title": " "}, 422)

	// cat is not followed: the whole request is refused.
	ts.mastodonError(t, "POST", base+"/accounts", reader, map[string]any{"account_ids": []string{idStr(annID), idStr(catID)}}, 404)
	ts.mastodonError(t, "POST", base+"/accounts", reader, map[string]any{}, 422)
	many := make([]string, 101)
	for i := range many {
		many[i] = idStr(annID)
	}
	many[100] = idStr(bobID) // 101 accounts, but only 2 distinct: accepted
	ts.mastodonJSON(t, "POST", base+"/accounts", reader, map[string]any{"account_ids": many}, nil)
	ts.mastodonJSON(t, "DELETE", base+"/accounts", reader, map[string]any{"account_ids": []string{idStr(annID), idStr(bobID)}}, nil)
	for i := range many {
		many[i] = idStr(int64(100000 + i))
	}
	ts.mastodonError(t, "POST", base+"/accounts", reader, map[string]any{"account_ids": many}, 422) // over 100 in one request
	var accts []mastodon.Account
	ts.mastodonJSON(t, "GET", base+"/accounts", reader, nil, &accts)
	if len(accts) != 0 {
		t.Fatalf("a refused add wrote %+v", accts)
	}
	ts.mastodonJSON(t, "POST", base+"/accounts", reader, map[string]any{"account_ids": []string{idStr(annID), idStr(bobID)}}, nil)
	ts.mastodonJSON(t, "GET", base+"/accounts?limit=0", reader, nil, &accts)
	if len(accts) != 2 {
		t.Fatalf("accounts %+v", accts)
	}
	var lists []mastodon.List
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/"+idStr(annID)+"/lists", reader, nil, &lists)
	if len(lists) != 1 || lists[0].ID != l.ID {
		t.Fatalf("lists with ann %+v", lists)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/lists", reader, nil, &lists)
	if len(lists) != 1 || lists[0].Title != "Friends" {
		t.Fatalf("lists %+v", lists)
	}

	var want []string
	for i := range 2 {
		want = append([]string{ts.mastodonStatus(t, ann, "ann "+strconv.Itoa(i)).ID}, want...)
		want = append([]string{ts.mastodonStatus(t, bob, "bob "+strconv.Itoa(i)).ID}, want...)
		ts.mastodonStatus(t, cat, "cat is not in the list")
	}
	got := ts.mastodonPages(t, "/api/v1/timelines/list/"+l.ID+"?limit=1", reader)
	if !slices.Equal(got, want) {
		t.Fatalf("list timeline pages %v, want %v", got, want)
	}
	var page []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/list/"+l.ID+"?since_id="+want[2], reader, nil, &page)
	if !slices.Equal(mastodonStatusIDs(page), want[:2]) {
		t.Fatalf("since_id %v", mastodonStatusIDs(page))
	}

	// Privacy: a muted member's posts go, a protected member's stay.
	ts.wantStatus(t, "PATCH", "/api/v1/me", nativeOf(bob), map[string]any{"protected": true}, 200, "")
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+idStr(annID)+"/mute", reader, nil, nil)
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/list/"+l.ID, reader, nil, &page)
	if !slices.Equal(mastodonStatusIDs(page), []string{want[0], want[2]}) {
		t.Fatalf("with ann muted and bob protected %v, want bob's %v", mastodonStatusIDs(page), []string{want[0], want[2]})
	}

	ts.mastodonJSON(t, "DELETE", base+"/accounts?account_ids[]="+idStr(bobID), reader, nil, nil)
	ts.mastodonJSON(t, "GET", base+"/accounts", reader, nil, &accts)
	if len(accts) != 1 || accts[0].ID != idStr(annID) {
		t.Fatalf("accounts after removing bob %+v", accts)
	}
	var empty map[string]any
	ts.mastodonJSON(t, "DELETE", base, reader, nil, &empty)
	if empty == nil || len(empty) != 0 {
		t.Fatalf("DELETE list answered %v, want {}", empty)
	}
	ts.mastodonError(t, "GET", base, reader, nil, 404)
}

// TestMastodonListStream: the list stream, over the WebSocket (by ?stream=
// and by a subscribe message) and as server-sent events: a member's post
// comes, a followed non-member's does not, a member added or taken out
// counts at once, a member's deletion comes; a list of another user's
// cannot be streamed.
func TestMastodonListStream(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	reader, _ := ts.mastodonUser(t, "reader", "")
	ann, annID := ts.mastodonUser(t, "ann", "")
	bob, bobID := ts.mastodonUser(t, "bob", "")
	other, _ := ts.mastodonUser(t, "other", "")
	for _, id := range []int64{annID, bobID} {
		ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+idStr(id)+"/follow", reader, nil, nil)
	}
	var l mastodon.List
	ts.mastodonJSON(t, "POST", "/api/v1/lists", reader, map[string]any{"title": "ann"}, &l)
	ts.mastodonJSON(t, "POST", "/api/v1/lists/"+l.ID+"/accounts", reader, map[string]any{"account_ids": []string{idStr(annID)}}, nil)
	auth := http.Header{"Authorization": {"Bearer " + reader}}

	byQuery, _ := ts.dialStream(t, "stream=list&list="+l.ID, auth)
	byQuery.send(t, "", "", "")
	bySub, _ := ts.dialStream(t, "", auth)
	if err := bySub.ws.WriteJSON(map[string]string{"type": "subscribe", "stream": "list", "list": l.ID}); err != nil {
		t.Fatal(err)
	}
	bySub.send(t, "", "", "")
	sse := ts.openSSE(t, "/api/v1/streaming/list?list="+l.ID, reader)
	stream := []string{"list", l.ID}

	ts.mastodonStatus(t, bob, "bob is not in the list")
	a := ts.mastodonStatus(t, ann, "ann is")
	for _, c := range []*streamClient{byQuery, bySub} {
		var s mastodon.Status
		c.expect(t, stream, "update", &s)
		if s.ID != a.ID {
			t.Fatalf("the list stream's first update is %s, want ann's %s", s.ID, a.ID)
		}
	}
	if ev := sse.next(t, "update"); !json.Valid([]byte(ev.Data)) || !isStatusJSON(ev.Data, a.ID) {
		t.Fatalf("the list event stream's update %s, want ann's %s", ev.Data, a.ID)
	}

	// bob joins, ann leaves: live.
	ts.mastodonJSON(t, "POST", "/api/v1/lists/"+l.ID+"/accounts", reader, map[string]any{"account_ids": []string{idStr(bobID)}}, nil)
	ts.mastodonJSON(t, "DELETE", "/api/v1/lists/"+l.ID+"/accounts", reader, map[string]any{"account_ids": []string{idStr(annID)}}, nil)
	var b mastodon.Status
	for end := time.Now().Add(hangWait); ; { // the change reaches the stream through Redis
		ts.mastodonStatus(t, ann, "ann left")
		b = ts.mastodonStatus(t, bob, "bob joined")
		var s mastodon.Status
		byQuery.expect(t, stream, "update", &s)
		if s.ID == b.ID {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("bob's posts never came on the list stream")
		}
		byQuery.expect(t, stream, "update", &s) // bob's, after ann's
	}
	ts.mastodonJSON(t, "DELETE", "/api/v1/statuses/"+b.ID, bob, nil, nil)
	for {
		m := byQuery.next(t, "delete")
		if m.Event == "delete" {
			if m.Payload != b.ID || !slices.Equal(m.Stream, stream) {
				t.Fatalf("delete %v %s, want %s", m.Stream, m.Payload, b.ID)
			}
			break
		}
		if m.Event == "update" {
			var s mastodon.Status
			json.Unmarshal([]byte(m.Payload), &s)
			if s.Account.ID == idStr(annID) {
				t.Fatalf("ann's post %s came after she left the list", s.ID)
			}
		}
	}

	// Another user's list: 404 at the upgrade, an error frame on subscribing.
	resp := ts.do(t, "GET", "/api/v1/streaming?stream=list&list="+l.ID, other, nil, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another's list stream: %d, want 404", resp.StatusCode)
	}
	if c := ts.openSSE(t, "/api/v1/streaming/list?list="+l.ID, other); c.resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another's list event stream: %d, want 404", c.resp.StatusCode)
	}
	otherWS, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + other}})
	otherWS.ws.WriteJSON(map[string]string{"type": "subscribe", "stream": "list", "list": l.ID})
	if m := otherWS.next(t, "error"); m.Error == "" {
		t.Fatalf("subscribing another's list: %+v, want an error", m)
	}
}

// isStatusJSON tells whether the JSON status data has id as its id.
func isStatusJSON(data, id string) bool {
	var s mastodon.Status
	return json.Unmarshal([]byte(data), &s) == nil && s.ID == id
}

// TestMastodonGoClientLists drives lists with go-mastodon: CreateList,
// GetLists, AddToList, GetListAccounts, GetAccountLists, RenameList,
// GetTimelineList, StreamingWSList and StreamingList (server-sent
// events), RemoveFromList and DeleteList.
func TestMastodonGoClientLists(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reader, _ := ts.goMastodonClient(t, ctx, "reader")
	ann, annID := ts.goMastodonClient(t, ctx, "ann")
	if _, err := reader.AccountFollow(ctx, goID(annID)); err != nil {
		t.Fatalf("AccountFollow: %v", err)
	}
	l, err := reader.CreateList(ctx, "friends")
	if err != nil || l.Title != "friends" {
		t.Fatalf("CreateList: %+v %v", l, err)
	}
	if err := reader.AddToList(ctx, l.ID, goID(annID)); err != nil {
		t.Fatalf("AddToList: %v", err)
	}
	lists, err := reader.GetLists(ctx)
	if err != nil || len(lists) != 1 || lists[0].ID != l.ID {
		t.Fatalf("GetLists: %+v %v", lists, err)
	}
	accts, err := reader.GetListAccounts(ctx, l.ID)
	if err != nil || len(accts) != 1 || accts[0].ID != goID(annID) {
		t.Fatalf("GetListAccounts: %+v %v", accts, err)
	}
	if with, err := reader.GetAccountLists(ctx, goID(annID)); err != nil || len(with) != 1 {
		t.Fatalf("GetAccountLists: %+v %v", with, err)
	}
	if r, err := reader.RenameList(ctx, l.ID, "分组"); err != nil || r.Title != "分组" {
		t.Fatalf("RenameList: %+v %v", r, err)
	}
	s, err := ann.PostStatus(ctx, &gomastodon.Toot{Status: "for the list"})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := reader.GetTimelineList(ctx, l.ID, &gomastodon.Pagination{Limit: 5})
	if err != nil || len(tl) != 1 || tl[0].ID != s.ID {
		t.Fatalf("GetTimelineList: %v %v", goStatusIDs(tl), err)
	}

	ws, err := reader.NewWSClient().StreamingWSList(ctx, l.ID)
	if err != nil {
		t.Fatalf("StreamingWSList: %v", err)
	}
	sse, err := reader.StreamingList(ctx, l.ID)
	if err != nil {
		t.Fatalf("StreamingList: %v", err)
	}
	for name, events := range map[string]chan gomastodon.Event{"StreamingWSList": ws, "StreamingList": sse} {
		goStreamGetsPost(t, ctx, name, events, ann)
	}

	if err := reader.RemoveFromList(ctx, l.ID, goID(annID)); err != nil {
		t.Fatalf("RemoveFromList: %v", err)
	}
	if accts, _ := reader.GetListAccounts(ctx, l.ID); len(accts) != 0 {
		t.Fatalf("after RemoveFromList: %+v", accts)
	}
	if err := reader.DeleteList(ctx, l.ID); err != nil {
		t.Fatalf("DeleteList: %v", err)
	}
	if _, err := reader.GetList(ctx, l.ID); err == nil {
		t.Fatal("GetList of a deleted list: no error")
	}
}

// goStreamGetsPost has author post each second until one of its statuses
// comes on events (go-mastodon subscribes in the background as it connects).
func goStreamGetsPost(t *testing.T, ctx context.Context, name string, events chan gomastodon.Event, author *gomastodon.Client) {
	t.Helper()
	posted := map[gomastodon.ID]bool{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		s, err := author.PostStatus(ctx, &gomastodon.Toot{Status: "live " + strconv.Itoa(len(posted))})
		if err != nil {
			t.Fatalf("PostStatus: %v", err)
		}
		posted[s.ID] = true
	wait:
		for {
			select {
			case ev := <-events:
				switch e := ev.(type) {
				case *gomastodon.ErrorEvent:
					t.Fatalf("%s: %v", name, e.Err)
				case *gomastodon.UpdateEvent:
					if posted[e.Status.ID] {
						return
					}
				}
			case <-tick.C:
				break wait
			case <-ctx.Done():
				t.Fatalf("%s: no status within the test's 30 s", name)
			}
		}
	}
}
