package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"microblog/store"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wsFrame is one frame of the live feed as a client reads it.
type wsFrame struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// postID is the id of a post, comment or delete frame's data.
func (f wsFrame) postID() int64 {
	var d struct{ ID int64 }
	json.Unmarshal(f.Data, &d)
	return d.ID
}

func (f wsFrame) String() string { return f.Event + " " + string(f.Data) }

// wsClient is a live-feed client that reads every frame into a channel.
type wsClient struct {
	conn   *websocket.Conn
	frames chan wsFrame
	err    chan error // the read error that ended the connection
}

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
	h := http.Header{"Authorization": {"Bearer " + token}}
	conn, resp, err := websocket.DefaultDialer.Dial(ts.wsURL(query), h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial /ws: %v (status %d)", err, status)
	}
	t.Cleanup(func() { conn.Close() })
	return readWS(conn)
}

func readWS(conn *websocket.Conn) *wsClient {
	c := &wsClient{conn: conn, frames: make(chan wsFrame, 10000), err: make(chan error, 1)}
	go func() {
		for {
			_, b, err := conn.ReadMessage()
			if err != nil {
				c.err <- err
				close(c.frames)
				return
			}
			var f wsFrame
			if err := json.Unmarshal(b, &f); err != nil {
				c.err <- fmt.Errorf("bad frame %s: %w", b, err)
				close(c.frames)
				return
			}
			c.frames <- f
		}
	}()
	return c
}

// next returns the next frame, failing the test if none comes within d.
func (c *wsClient) next(t testing.TB, d time.Duration) wsFrame {
	t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			t.Fatalf("live feed closed: %v", <-c.err)
		}
		return f
	case <-time.After(d):
		t.Fatalf("no frame within %s", d)
	}
	return wsFrame{}
}

// asides are the events that may come between any two others (a counter
// changed, a notification): expect passes over them unless asked for one.
var asides = []string{store.EventCounts, store.EventNotification, store.EventNotificationRemoved}

// expect returns the next frame and checks it is event (and for ids, id).
func (c *wsClient) expect(t testing.TB, event string, id int64) wsFrame {
	t.Helper()
	f := c.next(t, 2*time.Second)
	for slices.Contains(asides, f.Event) && !slices.Contains(asides, event) {
		f = c.next(t, 2*time.Second)
	}
	if f.Event != event || (id != 0 && f.postID() != id) {
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

// closeCode waits for the connection to end and returns its close code.
func (c *wsClient) closeCode(t testing.TB, d time.Duration) int {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case _, ok := <-c.frames:
			if ok {
				continue
			}
			err := <-c.err
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code
			}
			t.Fatalf("connection ended without a close frame: %v", err)
		case <-deadline:
			t.Fatalf("connection not closed within %s", d)
		}
	}
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

// smallBufferDialer dials with a small receive buffer (not tiny: below one segment, the kernel would delay window updates by seconds), so that a client that
// stops reading fills up quickly.
var smallBufferDialer = &websocket.Dialer{
	NetDial: func(network, addr string) (net.Conn, error) {
		c, err := net.Dial(network, addr)
		if err == nil {
			c.(*net.TCPConn).SetReadBuffer(32 << 10)
		}
		return c, err
	},
	ReadBufferSize:   1024,
	HandshakeTimeout: 5 * time.Second,
}
