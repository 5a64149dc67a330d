package hub

import (
	"bytes"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"microblog/store"
)

// wire is how a connection's frames reach its client: a WebSocket, or a
// stream of server-sent events (an HTTP response that stays open). The
// connection's reader, writer and close go through it alone.
type wire interface {
	// read reads what the client sends until the connection fails or is
	// closed, handing each text message to c's Format once c is open.
	read(c *Conn)
	// poll has what the client sends read without a goroutine waiting for
	// it (poll_linux.go), as read would read it; false means the wire
	// cannot, and read is to run in a goroutine.
	poll(c *Conn) bool
	// pongDeadline is when a polled wire's client is dropped for want of
	// a pong (monotonicNow's clock); 0 for a wire whose reader waits with
	// a deadline of its own.
	pongDeadline() time.Duration
	// writeFrame writes f within deadline.
	writeFrame(f frame, deadline time.Time) error
	// ping asks the client (or the proxies on the way) to show it is there;
	// pingPeriod is how often, given the hub's PingPeriod.
	ping(deadline time.Time) error
	pingPeriod(hub time.Duration) time.Duration
	// writeClose says why the connection ends, if the protocol can.
	writeClose(code int, text string, deadline time.Time)
	// close drops the connection; nothing is written after it. A polled
	// wire's reader ends there, and close drops c (Conn.drop) too.
	close()
	// greeting is what the connection sends first once it is open (its
	// topics subscribed), if anything: it tells the client that what is
	// published from then on reaches it.
	greeting() []byte
}

// wsWire is a WebSocket (gorilla/websocket), read through the epoll when
// p is not nil.
type wsWire struct {
	ws *websocket.Conn
	p  *polled
}

func (w wsWire) poll(c *Conn) bool { return w.p != nil && w.p.start(c) }

func (w wsWire) pongDeadline() time.Duration {
	if w.p == nil {
		return 0
	}
	return w.p.pongDeadline()
}

func (w wsWire) read(c *Conn) {
	ws := w.ws
	ws.SetReadLimit(maxMessageSize)
	ws.SetReadDeadline(time.Now().Add(c.h.opt.PongWait))
	ws.SetPongHandler(func(string) error {
		return ws.SetReadDeadline(time.Now().Add(c.h.opt.PongWait))
	})
	if c.format == nil {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}
	c.opening.Wait() // what Receive changes needs the user joined
	for {
		kind, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if kind == websocket.TextMessage && !c.closing() {
			c.format.Receive(c, msg)
		}
	}
}

func (w wsWire) writeFrame(f frame, deadline time.Time) error {
	w.ws.SetWriteDeadline(deadline)
	if f.shared != nil {
		return w.ws.WritePreparedMessage(f.shared)
	}
	return w.ws.WriteMessage(websocket.TextMessage, f.own)
}

func (w wsWire) ping(deadline time.Time) error {
	return w.ws.WriteControl(websocket.PingMessage, nil, deadline)
}

func (w wsWire) writeClose(code int, text string, deadline time.Time) {
	w.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), deadline)
}

func (w wsWire) close() {
	if w.p != nil {
		w.p.shut()
		return
	}
	w.ws.Close()
}

func (w wsWire) pingPeriod(hub time.Duration) time.Duration { return hub }

// greeting: a WebSocket's feed says it is open in its own protocol (the
// native feed's ready frame; a Format's client pings).
func (w wsWire) greeting() []byte { return nil }

// sseWire is a stream of server-sent events: the response to a GET, taken
// over from net/http (hijacked) once its headers are out, as a WebSocket
// is, so that an open stream holds what a WebSocket holds and no handler.
// Each frame is an event, a ping a comment line; the body lasts until the
// connection closes (Connection: close, no length). The client sends
// nothing more: the reader only waits for it to go (through the epoll when
// p is not nil).
type sseWire struct {
	conn net.Conn
	p    *polled
}

// sseHeartbeat is the comment line a ping writes, and sseHeartbeatPeriod
// the longest time between two, as Mastodon's streaming server has them
// (a comment line alone, with no blank line after it: some clients take a
// blank line for the end of an event, even an empty one). Clients that
// read a stream in a blocking loop (Mastodon.py) notice that they were
// asked to stop only when a line comes.
var sseHeartbeat = []byte(":thump\n")

const sseHeartbeatPeriod = 15 * time.Second

// sseGreeting is the comment an event stream starts with, as Mastodon's
// streaming server sends it; here it comes once the stream is live.
var sseGreeting = []byte(":)\n")

// read reads and drops what the client sends until it goes away (or the
// connection is closed).
func (w sseWire) read(*Conn) {
	var buf [64]byte
	for {
		if _, err := w.conn.Read(buf[:]); err != nil {
			return
		}
	}
}

func (w sseWire) write(b []byte, deadline time.Time) error {
	w.conn.SetWriteDeadline(deadline)
	_, err := w.conn.Write(b)
	return err
}

// writeFrame writes a frame's bytes; a frame framed only as a WebSocket
// message (a Format's for WebSockets) has none and is left out.
func (w sseWire) writeFrame(f frame, deadline time.Time) error {
	if f.own == nil {
		return nil
	}
	return w.write(f.own, deadline)
}

func (w sseWire) ping(deadline time.Time) error { return w.write(sseHeartbeat, deadline) }

func (w sseWire) pingPeriod(hub time.Duration) time.Duration { return min(hub, sseHeartbeatPeriod) }

func (w sseWire) greeting() []byte { return sseGreeting }

// writeClose ends the stream: server-sent events have no close message,
// and a client that should come back (CloseResume) reconnects on its own.
func (w sseWire) writeClose(int, string, time.Time) { w.close() }

func (w sseWire) close() {
	if w.p != nil {
		w.p.shut()
		return
	}
	w.conn.Close()
}

func (w sseWire) poll(c *Conn) bool { return w.p != nil && w.p.start(c) }

func (w sseWire) pongDeadline() time.Duration { return 0 }

// errNoHijack refuses an event stream over a connection that cannot be
// taken over (HTTP/2, which the server does not speak itself).
var errNoHijack = store.Invalid(store.CodeBadRequest, "event streams are served over HTTP/1.1 only")

// StartEvents runs a connection of cl as a stream of server-sent events on
// the response rw, and returns at once: it sends the answer's headers (those
// set on rw so far, and the stream's own), then takes the connection over
// from net/http, and the hub owns it from then on, as Start does a
// WebSocket. cl.Format makes the events (NewDataFrame). onClose, if not
// nil, is called once when the connection is gone. An error means nothing
// was sent and the connection is still the handler's.
func (h *Hub) StartEvents(rw http.ResponseWriter, cl Client, onClose func()) error {
	hd := rw.Header().Clone()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // a proxy must not hold the events back
	hd.Set("Connection", "close")     // the body ends when the connection does
	conn, _, err := http.NewResponseController(rw).Hijack()
	if err != nil {
		return errNoHijack
	}
	conn.SetDeadline(time.Time{}) // the server's deadlines were for the request
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	hd.Write(&head)
	head.WriteString("\r\n")
	w := sseWire{conn: conn}
	if err := w.write(head.Bytes(), time.Now().Add(h.opt.WriteWait)); err != nil {
		conn.Close()
		if onClose != nil {
			onClose()
		}
		return nil // the client is gone: there is no one to answer
	}
	if tc, ok := conn.(*net.TCPConn); ok && h.opt.SocketBuffer > 0 {
		tc.SetWriteBuffer(h.opt.SocketBuffer)
	}
	w.p = newPolled(conn, nil)
	c := h.newConn(w, cl, onClose)
	if h.run(c) {
		c.listen()
	}
	return nil
}
