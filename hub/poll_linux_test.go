package hub_test

// The reader of a polled connection (poll_linux.go, frames_linux.go): the
// frames a client sends, written byte by byte as a client would, and what
// the hub answers.

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/store"
)

// clientFrame is a frame as a client sends it: masked.
func clientFrame(op ws.OpCode, fin bool, payload []byte) []byte {
	return ws.MustCompileFrame(ws.MaskFrame(ws.NewFrame(op, fin, payload)))
}

// dialRaw connects to url and reads the ready frame when ready is set.
func dialRaw(t *testing.T, url string, ready bool) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if ready {
		c.SetReadDeadline(time.Now().Add(hangWait))
		if _, msg, err := c.ReadMessage(); err != nil || !bytes.Contains(msg, []byte(`"ready"`)) {
			t.Fatalf("first frame %q, %v; want ready", msg, err)
		}
	}
	return c
}

// writeRaw writes b to c's socket as it is, in one write.
func writeRaw(t *testing.T, c *websocket.Conn, b []byte) {
	t.Helper()
	if _, err := c.NetConn().Write(b); err != nil {
		t.Fatal(err)
	}
}

// pongs reads c in a goroutine (answering nothing) and sends the payload of
// each pong it gets on the channel; the channel closes with the
// connection, after sending the error it ended with.
func pongs(c *websocket.Conn) (<-chan string, <-chan error) {
	ch, end := make(chan string, 100), make(chan error, 1)
	c.SetPongHandler(func(data string) error { ch <- data; return nil })
	go func() {
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				end <- err
				close(ch)
				return
			}
		}
	}()
	return ch, end
}

func expectPongs(t *testing.T, ch <-chan string, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got, ok := <-ch:
			if !ok {
				t.Fatalf("connection ended, want pong %q", w)
			}
			if got != w {
				t.Fatalf("pong %q, want %q", got, w)
			}
		case <-time.After(hangWait):
			t.Fatalf("no pong %q", w)
		}
	}
}

// goroutinesPerConn waits (a few seconds at most: well within PongWait,
// after which a client that reads nothing is dropped) for the goroutines
// above base to settle at or under n·limit, and returns how many there
// are per connection.
func goroutinesPerConn(base, n int, limit float64) float64 {
	var g int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if g = runtime.NumGoroutine() - base; float64(g) <= limit*float64(n) {
			break
		}
	}
	return float64(g) / float64(n)
}

// TestPolledIdleConnectionHasNoGoroutine: on Linux an open connection with
// nothing to read or write keeps no goroutine at all, and one that was
// pinged by its client goes back to none once it has answered.
func TestPolledIdleConnectionHasNoGoroutine(t *testing.T) {
	ph := newProfileHub(t, hub.Options{})
	dialRaw(t, ph.url+"1", true) // starts the process's epoll, if no test has
	const n = 100
	base := runtime.NumGoroutine()
	conns := ph.dialAll(t, n, false, nil) // clients without reader goroutines
	if g := goroutinesPerConn(base, n, 0.05); g > 0.05 {
		t.Fatalf("%.2f goroutines per idle connection, want none", g)
	}
	for i, c := range conns {
		writeRaw(t, c, clientFrame(ws.OpPing, true, []byte(strconv.Itoa(i))))
	}
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(hangWait))
		got := make(chan string, 1)
		c.SetPongHandler(func(data string) error { got <- data; return errors.New("got it") })
		if _, _, err := c.ReadMessage(); err == nil || <-got != strconv.Itoa(i) {
			t.Fatalf("connection %d: %v, want its pong", i, err)
		}
	}
	if g := goroutinesPerConn(base, n, 0.05); g > 0.05 {
		t.Fatalf("%.2f goroutines per connection after answering pings, want none", g)
	}
	if got := ph.h.Connections(); got != n+1 {
		t.Fatalf("%d connections, want %d", got, n+1)
	}
}

// TestPolledPipelinedAndSplitFrames: frames that come together in one write
// are all read, in order; a frame that comes in pieces (its header, its
// payload) is read once the rest is there; data frames on the native
// feed are dropped without losing the frames after them.
func TestPolledPipelinedAndSplitFrames(t *testing.T) {
	ph := newProfileHub(t, hub.Options{})
	c := dialRaw(t, ph.url+"1", true)
	ch, _ := pongs(c)

	var b []byte
	for _, p := range []string{"1", "2", "3"} {
		b = append(b, clientFrame(ws.OpPing, true, []byte(p))...)
	}
	b = append(b, clientFrame(ws.OpText, true, bytes.Repeat([]byte("x"), 300))...)
	b = append(b, clientFrame(ws.OpPing, true, []byte("4"))...)
	writeRaw(t, c, b)
	expectPongs(t, ch, "1", "2", "3", "4")

	// A 200-byte text frame (a 16-bit length) cut inside its header, then
	// inside its payload, then a ping cut inside its payload.
	text := clientFrame(ws.OpText, true, bytes.Repeat([]byte("y"), 200))
	ping := clientFrame(ws.OpPing, true, []byte("after the pieces"))
	whole := append(text, ping...)
	for _, cut := range [][2]int{{0, 1}, {1, 3}, {3, 50}, {50, len(text) + 8}, {len(text) + 8, len(whole)}} {
		writeRaw(t, c, whole[cut[0]:cut[1]])
		time.Sleep(20 * time.Millisecond)
	}
	expectPongs(t, ch, "after the pieces")
	if got := ph.h.Connections(); got != 1 {
		t.Fatalf("%d connections, want 1", got)
	}
}

// TestPolledFormatMessages: a Format's connection gets each text message
// the client sends: several in one write, and one in fragments with a ping
// between them.
func TestPolledFormatMessages(t *testing.T) {
	th := newTestHub(t, hub.Options{})
	c := dialRaw(t, th.url+"/?uid=3&format=1", false)
	ch, _ := pongs(c)
	var b []byte
	for _, m := range []string{"public", "quiet", "public"} {
		b = append(b, clientFrame(ws.OpText, true, []byte(m))...)
	}
	writeRaw(t, c, b)
	waitFor(t, "a listener on the public topic", func() bool { return hub.Listeners(th.Hub, store.PublicTopic()) == 1 })

	writeRaw(t, c, append(append(append(clientFrame(ws.OpText, false, []byte("qu")),
		clientFrame(ws.OpPing, true, []byte("between"))...),
		clientFrame(ws.OpContinuation, false, []byte("i"))...),
		clientFrame(ws.OpContinuation, true, []byte("et"))...))
	expectPongs(t, ch, "between")
	waitFor(t, "no listener on the public topic", func() bool { return hub.Listeners(th.Hub, store.PublicTopic()) == 0 })
}

// TestPolledCloseHandshake: a client's close is answered with its code,
// and the connection is gone.
func TestPolledCloseHandshake(t *testing.T) {
	ph := newProfileHub(t, hub.Options{})
	c := dialRaw(t, ph.url+"1", true)
	if err := c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "bye"), time.Now().Add(hangWait)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(hangWait))
	_, _, err := c.ReadMessage()
	if !websocket.IsCloseError(err, 4000) {
		t.Fatalf("%v, want the close answered with 4000", err)
	}
	waitFor(t, "no connections", func() bool { return ph.h.Connections() == 0 })
}

// TestPolledBadFrames: a frame that breaks the protocol closes the
// connection with 1002, a message over the read limit with 1009, as
// gorilla's reader does.
func TestPolledBadFrames(t *testing.T) {
	ph := newProfileHub(t, hub.Options{})
	unmasked := ws.MustCompileFrame(ws.NewTextFrame([]byte("hi")))
	reservedBits := clientFrame(ws.OpText, true, []byte("hi"))
	reservedBits[0] |= 0x40
	big := bytes.Repeat([]byte("z"), 2000)
	for _, tc := range []struct {
		name  string
		frame []byte
		code  int
	}{
		{"unmasked", unmasked, websocket.CloseProtocolError},
		{"reserved bits", reservedBits, websocket.CloseProtocolError},
		{"reserved opcode", clientFrame(ws.OpCode(3), true, []byte("hi")), websocket.CloseProtocolError},
		{"long control frame", clientFrame(ws.OpPing, true, bytes.Repeat([]byte("p"), 126)), websocket.CloseProtocolError},
		{"fragmented control frame", clientFrame(ws.OpPing, false, []byte("p")), websocket.CloseProtocolError},
		{"continuation first", clientFrame(ws.OpContinuation, true, []byte("hi")), websocket.CloseProtocolError},
		{"text inside a message", append(clientFrame(ws.OpText, false, []byte("a")), clientFrame(ws.OpText, true, []byte("b"))...), websocket.CloseProtocolError},
		{"bad close code", clientFrame(ws.OpClose, true, []byte{0x03, 0xe7}), websocket.CloseProtocolError},
		{"garbage", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, websocket.CloseProtocolError},
		{"too long", clientFrame(ws.OpText, true, bytes.Repeat(big, 3)), websocket.CloseMessageTooBig},
		{"too long in fragments", append(append(clientFrame(ws.OpText, false, big),
			clientFrame(ws.OpContinuation, false, big)...), clientFrame(ws.OpContinuation, true, big)...), websocket.CloseMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, ph.url+"1", true)
			writeRaw(t, c, tc.frame)
			c.SetReadDeadline(time.Now().Add(hangWait))
			for {
				_, _, err := c.ReadMessage()
				if err == nil {
					continue // a ping
				}
				if !websocket.IsCloseError(err, tc.code) {
					t.Fatalf("%v, want closed with %d", err, tc.code)
				}
				break
			}
			waitFor(t, "no connections", func() bool { return ph.h.Connections() == 0 })
		})
	}
}

// TestPolledDescriptorReuse: while connections come and go (a ping sent,
// then the socket dropped at once), so that their descriptors are reused
// at once by new ones, the connections that stay get a pong for each of
// their own pings and no one else's, and every one that went is gone.
func TestPolledDescriptorReuse(t *testing.T) {
	ph := newProfileHub(t, hub.Options{})
	const stay, churners, churns, rounds = 10, 4, 100, 30
	stayers := make([]*websocket.Conn, stay)
	chans := make([]<-chan string, stay)
	for i := range stayers {
		stayers[i] = dialRaw(t, ph.url+"1", true)
		chans[i], _ = pongs(stayers[i])
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := range churners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range churns {
				c, _, err := websocket.DefaultDialer.Dial(ph.url+strconv.Itoa(100+w), nil)
				if err != nil {
					failed.Store(err)
					return
				}
				c.NetConn().Write(clientFrame(ws.OpPing, true, []byte(fmt.Sprint("churn ", w, i))))
				c.Close()
			}
		}()
	}
	for r := range rounds {
		for i, c := range stayers {
			writeRaw(t, c, clientFrame(ws.OpPing, true, []byte(fmt.Sprint(i, " ", r))))
		}
		for i := range stayers {
			expectPongs(t, chans[i], fmt.Sprint(i, " ", r))
		}
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the connections that stayed alone", func() bool { return ph.h.Connections() == stay })
}
