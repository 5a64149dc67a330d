package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"microblog/hub/wstest"
	"microblog/store"
)

// wsClient is a live-feed client with the server tests' expectations of
// the frames it reads.
type wsClient struct{ *wstest.Client }

// wsURL is the ws:// address of /ws with query (may be empty).
func (ts *testServer) wsURL(query string) string {
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"
	if query != "" {
		u += "?" + query
	}
	return u
}

// dialWS opens the live feed as token's user and starts reading.
func (ts *testServer) dialWS(t testing.TB, token, query string) *wsClient {
	t.Helper()
	return &wsClient{wstest.Dial(t, ts.wsURL(query), bearer(token))}
}

// asides are the events that may come between any two others (a counter
// changed, a notification): expect passes over them unless asked for one.
var asides = []string{store.EventCounts, store.EventNotification, store.EventNotificationRemoved}

// expect returns the next frame and checks it is event (and for ids, id),
// waiting for it up to hangWait.
func (c *wsClient) expect(t testing.TB, event string, id int64) wstest.Frame {
	t.Helper()
	f := c.Next(t, hangWait)
	for slices.Contains(asides, f.Event) && !slices.Contains(asides, event) {
		f = c.Next(t, hangWait)
	}
	if f.Event != event || (id != 0 && f.ID() != id) {
		t.Fatalf("got frame %s, want %s %d", f, event, id)
	}
	return f
}

// ready reads the ready frame and returns its last_id.
func (c *wsClient) ready(t testing.TB) int64 {
	t.Helper()
	f := c.expect(t, "ready", 0)
	var d struct {
		UserID int64 `json:"user_id"`
		LastID int64 `json:"last_id"`
	}
	if err := json.Unmarshal(f.Data, &d); err != nil || d.UserID == 0 {
		t.Fatalf("bad ready frame %s", f)
	}
	return d.LastID
}

// newPost creates a post as token's user and returns its id.
func (ts *testServer) newPost(t testing.TB, token, content string) int64 {
	t.Helper()
	status, body := ts.call(t, "POST", "/api/v1/posts", token, map[string]string{"content": content})
	if status != http.StatusCreated {
		t.Fatalf("post: %d %s", status, body)
	}
	var p struct{ ID int64 }
	mustDecode(t, body, &p)
	return p.ID
}

// follow makes token's user follow (or unfollow) name.
func (ts *testServer) follow(t testing.TB, token, name string, on bool) {
	t.Helper()
	method := "PUT"
	if !on {
		method = "DELETE"
	}
	if status, body := ts.call(t, method, "/api/v1/users/"+name+"/follow", token, nil); status != http.StatusNoContent {
		t.Fatalf("%s follow %s: %d %s", method, name, status, body)
	}
}
