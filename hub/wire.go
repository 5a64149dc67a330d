package hub

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// wire is how a connection's frames reach its client: a WebSocket, or a
// stream of server-sent events (an HTTP response that stays open). The
// connection's reader, writer and close go through it alone.
type wire interface {
	// read reads what the client sends until the connection fails or is
	// closed, handing each text message to c's Format once c is open.
	read(c *Conn)
	// writeFrame writes f within deadline.
	writeFrame(f frame, deadline time.Time) error
	// ping asks the client (or the proxies on the way) to show it is there;
	// pingPeriod is how often, given the hub's PingPeriod.
	ping(deadline time.Time) error
	pingPeriod(hub time.Duration) time.Duration
	// writeClose says why the connection ends, if the protocol can.
	writeClose(code int, text string, deadline time.Time)
	// close drops the connection; nothing is written after it.
	close()
	// greeting is what the connection sends first once it is open (its
	// topics subscribed), if anything: it tells the client that what is
	// published from then on reaches it.
	greeting() []byte
}

// wsWire is a WebSocket (gorilla/websocket).
type wsWire struct{ ws *websocket.Conn }

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

func (w wsWire) close() { w.ws.Close() }

func (w wsWire) pingPeriod(hub time.Duration) time.Duration { return hub }

// greeting: a WebSocket's feed says it is open in its own protocol (the
// native feed's ready frame; a Format's client pings).
func (w wsWire) greeting() []byte { return nil }

// sseWire is a stream of server-sent events: the response to a GET that
// stays open, each frame an event and a ping a comment line. The client
// sends nothing; it is gone when its request's context ends.
type sseWire struct {
	rw   http.ResponseWriter
	rc   *http.ResponseController
	gone <-chan struct{} // the request's context's Done
	done chan struct{}   // closed by close: the stream ends
	mu   sync.Mutex      // guards ended, and serialises writes with close
	// ended: close has run, and the handler may return at any moment.
	ended bool
}

// errEnded is a write to a stream that has ended.
var errEnded = errors.New("hub: the event stream has ended")

// sseHeartbeat is the comment line a ping writes, and sseHeartbeatPeriod
// the longest time between two, as Mastodon's streaming server has them
// (a comment line alone, with no blank line after it: some clients take a
// blank line for the end of an event, even an empty one):
// clients that read a stream in a blocking loop (Mastodon.py) notice that
// they were asked to stop only when a line comes.
var sseHeartbeat = []byte(":thump\n")

const sseHeartbeatPeriod = 15 * time.Second

func (w *sseWire) read(c *Conn) {
	select {
	case <-w.gone:
	case <-w.done:
	}
}

func (w *sseWire) write(b []byte, deadline time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return errEnded
	}
	w.rc.SetWriteDeadline(deadline)
	if _, err := w.rw.Write(b); err != nil {
		return err
	}
	return w.rc.Flush()
}

// writeFrame writes a frame's bytes; a frame framed only as a WebSocket
// message (a Format's for WebSockets) has none and is left out.
func (w *sseWire) writeFrame(f frame, deadline time.Time) error {
	if f.own == nil {
		return nil
	}
	return w.write(f.own, deadline)
}

func (w *sseWire) ping(deadline time.Time) error { return w.write(sseHeartbeat, deadline) }

func (w *sseWire) pingPeriod(hub time.Duration) time.Duration { return min(hub, sseHeartbeatPeriod) }

// sseGreeting is the comment an event stream starts with, as Mastodon's
// streaming server sends it; here it comes once the stream is live.
var sseGreeting = []byte(":)\n")

func (w *sseWire) greeting() []byte { return sseGreeting }

// writeClose ends the stream: server-sent events have no close message,
// and a client that should come back (CloseResume) reconnects on its own.
func (w *sseWire) writeClose(int, string, time.Time) { w.close() }

func (w *sseWire) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.ended = true
		close(w.done)
	}
}

// ServeEvents runs a connection of cl as a stream of server-sent events,
// the response to r, until the client goes away or the hub ends it, and
// returns then: the response is the connection, so the handler holds it
// open. cl.Format makes the events (NewDataFrame). onClose, if not nil, is
// called once when the connection is gone, before ServeEvents returns.
func (h *Hub) ServeEvents(rw http.ResponseWriter, r *http.Request, cl Client, onClose func()) {
	rc := http.NewResponseController(rw)
	rc.SetReadDeadline(time.Time{}) // the request is read: the stream outlasts the server's read timeout
	hd := rw.Header()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // a proxy must not hold the events back
	rw.WriteHeader(http.StatusOK)
	rc.Flush() // the client has its answer's headers; the first line comes once the stream is live (greeting)
	w := &sseWire{rw: rw, rc: rc, gone: r.Context().Done(), done: make(chan struct{})}
	c := h.newConn(w, cl, onClose)
	if h.run(c) {
		c.read() // until the stream ends; the connection is dropped then
	}
}

// EndEventStreams ends every event stream (ServeEvents) as a shutdown
// does, and keeps the WebSockets: an HTTP server that shuts down waits for
// its handlers, and an event stream's handler lasts as long as its stream,
// while a WebSocket was handed over by its handler (hijacked) long before.
func (h *Hub) EndEventStreams() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		if _, ok := c.w.(*sseWire); ok {
			c.closeWith(closeGoingAway, "server shutting down")
		}
	}
}
