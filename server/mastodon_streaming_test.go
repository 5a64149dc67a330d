package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/server/mastodon"
)

// streamMsg is one message of Mastodon's streaming API.
type streamMsg struct {
	Stream  []string `json:"stream"`
	Event   string   `json:"event"`
	Payload string   `json:"payload"`
	Error   string   `json:"error"`
}

// streamClient is a client of /api/v1/streaming, reading on its own
// goroutine.
type streamClient struct {
	ws    *websocket.Conn
	msgs  chan streamMsg
	pongs chan struct{}
}

// dialStream opens /api/v1/streaming?query with header, and checks the
// upgrade.
func (ts *testServer) dialStream(t *testing.T, query string, header http.Header) (*streamClient, *http.Response) {
	t.Helper()
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/api/v1/streaming"
	if query != "" {
		u += "?" + query
	}
	d := websocket.Dialer{HandshakeTimeout: hangWait}
	if p := header.Get("Sec-WebSocket-Protocol"); p != "" {
		d.Subprotocols = []string{p}
		header = header.Clone()
		header.Del("Sec-WebSocket-Protocol")
	}
	ws, resp, err := d.Dial(u, header)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	c := &streamClient{ws: ws, msgs: make(chan streamMsg, 100), pongs: make(chan struct{}, 1)}
	ws.SetPongHandler(func(string) error { c.pongs <- struct{}{}; return nil })
	go func() {
		defer close(c.msgs)
		for {
			_, b, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var m streamMsg
			if err := json.Unmarshal(b, &m); err != nil {
				t.Errorf("undecodable message %s", b)
				return
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() { ws.Close() })
	return c, resp
}

// send writes a client message and waits until the server has acted on
// it: the server reads a client's frames in order, and answers the ping
// after it only once the subscription is in force.
func (c *streamClient) send(t *testing.T, typ, stream, tag string) {
	t.Helper()
	if typ != "" {
		if err := c.ws.WriteJSON(map[string]string{"type": typ, "stream": stream, "tag": tag}); err != nil {
			t.Fatalf("%s %s: %v", typ, stream, err)
		}
	}
	if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(hangWait)); err != nil {
		t.Fatalf("ping: %v", err)
	}
	select {
	case <-c.pongs:
	case <-time.After(hangWait):
		t.Fatalf("%s %s: no pong", typ, stream)
	}
}

// next is the next message that is not a notification (unless asked
// for), failing the test after hangWait.
func (c *streamClient) next(t *testing.T, event string) streamMsg {
	t.Helper()
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				t.Fatalf("stream closed while waiting for %s", event)
			}
			if m.Event == "notification" && event != "notification" {
				continue // a like or follow on the side
			}
			return m
		case <-time.After(hangWait):
			t.Fatalf("no %s within %s", event, hangWait)
		}
	}
}

// expect reads the next message, checks its stream and event, and
// decodes its payload into out (unless nil).
func (c *streamClient) expect(t *testing.T, stream []string, event string, out any) streamMsg {
	t.Helper()
	m := c.next(t, event)
	if !slices.Equal(m.Stream, stream) || m.Event != event {
		t.Fatalf("got %v %s %s, want %v %s", m.Stream, m.Event, m.Payload, stream, event)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(m.Payload), out); err != nil {
			t.Fatalf("%s payload %q: %v", event, m.Payload, err)
		}
	}
	return m
}

// expectStatus is expect of an update or status.update of status id.
func (c *streamClient) expectStatus(t *testing.T, stream []string, event string, id int64) mastodon.Status {
	t.Helper()
	var s mastodon.Status
	c.expect(t, stream, event, &s)
	if s.ID != strconv.FormatInt(id, 10) {
		t.Fatalf("%v %s of status %s, want %d", stream, event, s.ID, id)
	}
	return s
}

// TestMastodonStreamingUser: the user stream, with the token as the
// WebSocket protocol (echoed back, as masto.js needs), gets a followed
// user's post made through the native API, its edit and its delete, and
// a notification of a like.
func TestMastodonStreamingUser(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amyNative, _ := ts.register(t, "amy")
	amy := ts.mastodonToken(t, "amy", amyNative, "")
	bob, _ := ts.register(t, "bob")
	ts.follow(t, amyNative, "bob", true)

	c, resp := ts.dialStream(t, "stream=user", http.Header{"Sec-WebSocket-Protocol": {amy}})
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != amy {
		t.Fatalf("protocol echoed %q, want the token", got)
	}
	c.send(t, "", "", "")
	user := []string{"user"}

	pid := ts.newPost(t, bob, "tea with #friends")
	s := c.expectStatus(t, user, "update", pid)
	if s.Account.Username != "bob" || !strings.Contains(s.Content, "tea with") || s.Visibility != "public" {
		t.Fatalf("streamed status %+v", s)
	}
	ts.editPost(t, bob, pid, "coffee instead")
	if s := c.expectStatus(t, user, "status.update", pid); !strings.Contains(s.Content, "coffee instead") || s.EditedAt == nil {
		t.Fatalf("edited status %+v", s)
	}
	ts.wantStatus(t, "DELETE", postPath(pid), bob, nil, http.StatusNoContent, "")
	if m := c.expect(t, user, "delete", nil); m.Payload != strconv.FormatInt(pid, 10) {
		t.Fatalf("delete payload %q, want %d", m.Payload, pid)
	}

	own := ts.newPost(t, amyNative, "my own")
	c.expectStatus(t, user, "update", own)
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", own), bob, nil, http.StatusNoContent, "")
	var n mastodon.Notification
	c.expect(t, user, "notification", &n)
	if n.Type != "favourite" || n.Account.Username != "bob" || n.Status == nil || n.Status.ID != strconv.FormatInt(own, 10) {
		t.Fatalf("notification %+v", n)
	}
}

// TestMastodonStreamingPublic: public and hashtag streams, with the token
// in the Authorization header, get public posts and never a protected
// author's or a blocked one's; unsubscribing stops a stream.
func TestMastodonStreamingPublic(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	carolNative, _ := ts.register(t, "carol")
	carol := ts.mastodonToken(t, "carol", carolNative, "")
	dave, _ := ts.register(t, "dave")
	erin, _ := ts.register(t, "erin")
	frank, _ := ts.register(t, "frank")
	ts.wantStatus(t, "PATCH", "/api/v1/me", erin, map[string]any{"protected": true}, http.StatusOK, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/frank/block", carolNative, nil, http.StatusNoContent, "")

	c, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + carol}})
	c.send(t, "subscribe", "public", "")
	c.send(t, "subscribe", "hashtag", "Tea")
	public, tea := []string{"public"}, []string{"hashtag", "Tea"}

	pid := ts.newPost(t, dave, "#tea time")
	c.expectStatus(t, public, "update", pid)
	c.expectStatus(t, tea, "update", pid)

	ts.newPost(t, erin, "#tea for my fans only")
	ts.newPost(t, frank, "#tea from someone blocked")
	plain := ts.newPost(t, dave, "no tags here")
	// The public topic keeps its order: had either come, it would be here.
	c.expectStatus(t, public, "update", plain)

	c.send(t, "unsubscribe", "public", "")
	again := ts.newPost(t, dave, "more #tea")
	c.expectStatus(t, tea, "update", again)
	ts.wantStatus(t, "DELETE", postPath(again), dave, nil, http.StatusNoContent, "")
	if m := c.expect(t, tea, "delete", nil); m.Payload != strconv.FormatInt(again, 10) {
		t.Fatalf("delete payload %q, want %d", m.Payload, again)
	}
	c.send(t, "unsubscribe", "hashtag", "Tea")
	ts.newPost(t, dave, "#tea nobody hears")
	c.send(t, "", "", "")
	select {
	case m := <-c.msgs:
		t.Fatalf("after unsubscribing: %v %s", m.Stream, m.Event)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestMastodonStreamingDirect: a private message is a conversation event
// on the direct stream of both users, the token as ?access_token=.
func TestMastodonStreamingDirect(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	gina, _ := ts.mastodonUser(t, "gina", "")
	hank, hankID := ts.register(t, "hank")

	c, _ := ts.dialStream(t, "access_token="+gina, nil)
	c.send(t, "subscribe", "direct", "")
	msg := ts.sendDM(t, hank, "gina", "psst")
	var conv mastodon.Conversation
	c.expect(t, []string{"direct"}, "conversation", &conv)
	if conv.ID != strconv.FormatInt(hankID, 10) || !conv.Unread || len(conv.Accounts) != 1 ||
		conv.Accounts[0].Username != "hank" || conv.LastStatus == nil ||
		conv.LastStatus.ID != strconv.FormatInt(mastodon.DirectIDBase+msg.ID, 10) || conv.LastStatus.Visibility != "direct" ||
		!strings.Contains(conv.LastStatus.Content, "psst") {
		t.Fatalf("conversation %+v", conv)
	}
}

// TestMastodonStreamingRefusals: the health check, and what is refused:
// no token, an unknown stream, a user stream without a user.
func TestMastodonStreamingRefusals(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	resp := ts.do(t, "GET", "/api/v1/streaming/health", "", nil, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "OK" {
		t.Fatalf("health: %d %q", resp.StatusCode, body)
	}
	if status, _ := ts.call(t, "GET", "/api/v1/streaming?stream=public", "", nil); status != http.StatusUnauthorized {
		t.Fatalf("no token: %d, want 401", status)
	}
	tok, _ := ts.mastodonUser(t, "ivy", "")
	if status, _ := ts.call(t, "GET", "/api/v1/streaming?stream=nonsense", tok, nil); status != http.StatusUnprocessableEntity {
		t.Fatalf("unknown stream: %d, want 422", status)
	}
	c, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + tok}})
	c.send(t, "subscribe", "nonsense", "")
	if m := c.next(t, "error"); m.Error == "" {
		t.Fatalf("unknown stream answered %+v", m)
	}
}

// TestMastodonStreamingUserFromConnect: a client of the user stream counts
// on everything posted after its WebSocket (or event stream) is connected,
// as megalodon's and Mastodon.py's listeners do, with no ping to learn
// when the server has subscribed: a followed account posts the moment
// the connection is up, round after round, and every post arrives once.
func TestMastodonStreamingUserFromConnect(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amyNative, _ := ts.register(t, "amy")
	amy := ts.mastodonToken(t, "amy", amyNative, "")
	bob, _ := ts.register(t, "bob")
	ts.follow(t, amyNative, "bob", true)
	user := []string{"user"}
	for round := range 8 {
		c, _ := ts.dialStream(t, "stream=user", http.Header{"Authorization": {"Bearer " + amy}})
		pid := ts.newPost(t, bob, fmt.Sprint("the moment you connected, round ", round))
		c.expectStatus(t, user, "update", pid)
		c.ws.Close()

		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/v1/streaming/user", nil)
		req.Header.Set("Authorization", "Bearer "+amy)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			cancel()
			t.Fatalf("GET /api/v1/streaming/user: %v %v", resp, err)
		}
		pid = ts.newPost(t, bob, fmt.Sprint("the moment the events began, round ", round))
		found := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "data: {") && strings.Contains(sc.Text(), fmt.Sprintf(`"id":"%d"`, pid)) {
					found <- true
					return
				}
			}
			found <- false
		}()
		select {
		case ok := <-found:
			if !ok {
				t.Fatalf("round %d: the event stream ended without post %d", round, pid)
			}
		case <-time.After(hangWait):
			t.Fatalf("round %d: post %d, written once the event stream had begun, never came", round, pid)
		}
		cancel()
		resp.Body.Close()
	}
}
