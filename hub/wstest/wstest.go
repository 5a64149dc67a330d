// Package wstest is the live feed's WebSocket client for tests: the hub's
// tests and the server's end-to-end tests dial, read frames and wait for
// the close through it, so that a change of how a client reads is made once.
package wstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/store"
)

// Frame is one frame of the live feed as a client reads it.
type Frame store.Frame

// ID is the id in the frame's data: the post of a post, comment or delete
// frame (0 for a frame without one).
func (f Frame) ID() int64 {
	var d struct{ ID int64 }
	json.Unmarshal(f.Data, &d)
	return d.ID
}

// Held is the post of a post frame as a resuming client holds it
// (store.ResumePoint): its id and created_at.
func (f Frame) Held() store.Held {
	var d struct {
		ID        int64
		CreatedAt store.Time `json:"created_at"`
	}
	json.Unmarshal(f.Data, &d)
	return store.Held{ID: d.ID, At: d.CreatedAt}
}

// String is the frame as a failing test shows it.
func (f Frame) String() string { return f.Event + " " + string(f.Data) }

// eagerQueue is how many frames a Client reads ahead of the test: enough
// that the server never finds a test client slow while the test is busy
// elsewhere.
const eagerQueue = 10000

// Client is one connection to the live feed. A goroutine reads its frames
// into a queue from the moment it is dialed; the connection closes when the
// test ends.
type Client struct {
	Conn   *websocket.Conn
	frames chan Frame
	err    error         // why the connection ended; set before frames is closed
	done   chan struct{} // closed when the test ends, to release the reader
}

// Dial connects to the live feed at url with header (which may be nil) and
// fails t if the server does not upgrade.
func Dial(t testing.TB, url string, header http.Header) *Client {
	t.Helper()
	c, resp, body := TryDial(t, url, header)
	if c == nil {
		t.Fatalf("dial %s: %d %s", url, resp.StatusCode, body)
	}
	return c
}

// TryDial is Dial for a connection the server may refuse: then it returns
// no client but the refusal's response and body. It fails t only when no
// HTTP answer comes at all.
func TryDial(t testing.TB, url string, header http.Header) (*Client, *http.Response, []byte) {
	t.Helper()
	return tryDial(t, websocket.DefaultDialer, eagerQueue, url, header)
}

// DialSlow connects like Dial with small socket buffers, and reads a frame
// only when the test asks for one (holding at most one more), so that the
// server finds it slow after a few frames.
func DialSlow(t testing.TB, url string, header http.Header) *Client {
	t.Helper()
	c, resp, body := tryDial(t, slowDialer, 0, url, header)
	if c == nil {
		t.Fatalf("dial %s: %d %s", url, resp.StatusCode, body)
	}
	return c
}

// slowDialer dials with a small receive buffer, so that a client that stops
// reading fills up quickly (not below one segment, or the kernel would
// delay window updates by seconds).
var slowDialer = &websocket.Dialer{
	NetDial: func(network, addr string) (net.Conn, error) {
		c, err := net.Dial(network, addr)
		if err == nil {
			c.(*net.TCPConn).SetReadBuffer(32 << 10)
		}
		return c, err
	},
	ReadBufferSize: 1024,
	// A guard against a hang, as Dial's (websocket.DefaultDialer's), not a
	// measure of speed: a busy machine may take seconds to upgrade.
	HandshakeTimeout: websocket.DefaultDialer.HandshakeTimeout,
}

func tryDial(t testing.TB, d *websocket.Dialer, queue int, url string, header http.Header) (*Client, *http.Response, []byte) {
	t.Helper()
	conn, resp, err := d.Dial(url, header)
	if err == nil {
		return read(t, conn, queue), resp, nil
	}
	if resp == nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return nil, resp, body
}

// read starts reading conn's frames into a queue of size queue.
func read(t testing.TB, conn *websocket.Conn, queue int) *Client {
	c := &Client{Conn: conn, frames: make(chan Frame, queue), done: make(chan struct{})}
	t.Cleanup(func() { close(c.done); conn.Close() })
	go func() {
		defer close(c.frames)
		for {
			_, b, err := conn.ReadMessage()
			if err != nil {
				c.err = err
				return
			}
			var f Frame
			if err := json.Unmarshal(b, &f); err != nil {
				c.err = fmt.Errorf("bad frame %s: %w", b, err)
				return
			}
			select {
			case c.frames <- f:
			case <-c.done:
				return
			}
		}
	}()
	return c
}

// Frames is the queue of frames read, closed when the connection ends (Err
// says why).
func (c *Client) Frames() <-chan Frame { return c.frames }

// Err is the read error that ended the connection, once Frames is closed.
func (c *Client) Err() error { return c.err }

// Next returns the next frame, failing t if none comes within d.
func (c *Client) Next(t testing.TB, d time.Duration) Frame {
	t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			t.Fatalf("live feed closed: %v", c.err)
		}
		return f
	case <-time.After(d):
		t.Fatalf("no frame within %s", d)
	}
	return Frame{}
}

// Drain reads until the connection ends or d passes. It returns the frames
// read on the way and the close code the server sent: 0 when the
// connection did not end within d or ended without a close frame.
func (c *Client) Drain(d time.Duration) (frames []Frame, code int) {
	frames, _, code = c.drain(d)
	return frames, code
}

func (c *Client) drain(d time.Duration) (frames []Frame, ended bool, code int) {
	deadline := time.After(d)
	for {
		select {
		case f, ok := <-c.frames:
			if ok {
				frames = append(frames, f)
				continue
			}
			var ce *websocket.CloseError
			if errors.As(c.err, &ce) {
				return frames, true, ce.Code
			}
			return frames, true, 0
		case <-deadline:
			return frames, false, 0
		}
	}
}

// CloseCode waits for the connection to end, passing over any frames, and
// returns its close code; it fails t unless a close frame comes within d.
func (c *Client) CloseCode(t testing.TB, d time.Duration) int {
	t.Helper()
	_, ended, code := c.drain(d)
	switch {
	case !ended:
		t.Fatalf("connection not closed within %s", d)
	case code == 0:
		t.Fatalf("connection ended without a close frame: %v", c.err)
	}
	return code
}
