package hub

import (
	"context"
	"errors"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// WebSocket limits; the timings are in Options (DefaultWriteWait, DefaultPongWait).
const (
	// maxMessageSize is the largest frame a client may send: it sends nothing
	// but control frames, so anything big is a misbehaving client.
	maxMessageSize = 4096
	// closeGrace is how long a closing connection waits for the peer's
	// close frame before it drops the TCP connection.
	closeGrace = time.Second
)

// Close codes sent to clients.
const (
	// CloseTooSlow closes a connection that cannot keep up with its events.
	CloseTooSlow = 4008
	// CloseLoggedOut closes the connections of a session that logged out.
	CloseLoggedOut = 4001
	// CloseResume asks the client to reconnect with ?after=<last id>: the
	// server lost its live stream for longer than it could replay.
	CloseResume    = websocket.CloseServiceRestart
	closeGoingAway = websocket.CloseGoingAway
	closeInternal  = websocket.CloseInternalServerErr
)

// Client says who a connection is for and where its replay starts.
type Client struct {
	UserID    int64
	TokenHash string // sha256 hex of the session token, for closing on logout
	After     int64  // replay home-timeline posts newer than this id…
	HasAfter  bool   // …when the client asked for it with ?after=
}

// event is one frame to fan out, encoded once for every connection.
type event struct {
	postID int64 // the post's id for post events (to drop duplicates), else 0
	msg    *websocket.PreparedMessage
}

// Conn is one WebSocket client. Its write pump is the only goroutine that
// writes data frames to ws (gorilla/websocket allows one writer; close and
// ping frames go through WriteControl, which may be called concurrently).
// Everyone else hands frames to the write pump through send.
type Conn struct {
	h         *Hub
	ws        *websocket.Conn
	uid       int64
	tokenHash string
	after     int64
	hasAfter  bool
	user      *user // set by Hub.join under Hub.mu

	ctx    context.Context // ends when the connection starts closing
	cancel context.CancelFunc

	// send is the bounded queue of frames for the write pump. Only deliver
	// and catch-up put into it (under mu, never blocking); a full queue
	// closes the connection with CloseTooSlow.
	send chan *websocket.PreparedMessage

	closeOnce sync.Once
	done      chan struct{} // closed when the connection starts closing
	closeCode int           // written once before done is closed; 0 sends no close frame
	closeText string

	mu        sync.Mutex // guards the fields below
	live      bool       // the replay is queued; events go to send, not pending
	pending   []event    // events that arrived while the replay was being read
	seen      idWindow   // recent post ids sent, to drop duplicates
	high      int64      // highest post id sent or known to the client
	gapMarked bool       // the subscriber connection broke and c has not caught up yet
	gapFrom   int64      // high when it broke: the catch-up starts there
}

// Serve runs a connection until it ends. ws must be freshly upgraded; Serve
// owns it from then on and closes it.
func (h *Hub) Serve(ws *websocket.Conn, cl Client) {
	c := &Conn{
		h:         h,
		ws:        ws,
		uid:       cl.UserID,
		tokenHash: cl.TokenHash,
		after:     cl.After,
		hasAfter:  cl.HasAfter,
		send:      make(chan *websocket.PreparedMessage, h.opt.SendQueue),
		done:      make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(h.ctx)
	defer c.cancel()
	if tc, ok := ws.NetConn().(*net.TCPConn); ok && h.opt.SocketBuffer > 0 {
		tc.SetWriteBuffer(h.opt.SocketBuffer)
	}
	if !h.register(c) {
		c.closeWith(closeGoingAway, "server shutting down")
		c.writeClose()
		ws.Close()
		return
	}
	defer h.wg.Done()
	defer h.leave(c)

	// The read pump runs from the start, so that a peer that goes away
	// while the connection opens cancels the opening.
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		c.readPump()
	}()
	if frames, err := c.open(); err != nil {
		c.closeForError(err)
	} else {
		c.writePump(frames)
	}
	// Give the peer a moment to answer our close frame, then drop the TCP
	// connection, which also ends the read pump.
	select {
	case <-readDone:
	case <-time.After(closeGrace):
	}
	ws.Close()
	<-readDone
}

// closeWith starts closing the connection with code (0: no close frame, the
// peer is gone). The first call wins; it never blocks.
func (c *Conn) closeWith(code int, text string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeText = code, text
		close(c.done)
		c.cancel()
		switch code {
		case CloseTooSlow:
			c.h.m.slowClosed.Inc()
		case CloseLoggedOut:
			c.h.m.revoked.Inc()
		}
	})
}

// readPump reads (and discards) what the client sends, so that pongs and
// close frames are processed, until the connection fails or closes.
func (c *Conn) readPump() {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("read pump", r)
		}
		c.closeWith(0, "")
	}()
	c.ws.SetReadLimit(maxMessageSize)
	c.ws.SetReadDeadline(time.Now().Add(c.h.opt.PongWait))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(c.h.opt.PongWait))
	})
	for {
		if _, _, err := c.ws.ReadMessage(); err != nil {
			return
		}
	}
}

// writePump sends the frames open returned, then queued frames and pings,
// until the connection closes.
func (c *Conn) writePump(frames []*websocket.PreparedMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("write pump", r)
			c.closeForError(errPanic)
		}
	}()
	for _, f := range frames {
		if !c.write(f) {
			return
		}
	}
	ping := time.NewTicker(c.h.opt.PingPeriod)
	defer ping.Stop()
	for {
		// A decided close goes out before anything still queued.
		select {
		case <-c.done:
			c.writeClose()
			return
		default:
		}
		select {
		case <-c.done:
			c.writeClose()
			return
		case f := <-c.send:
			if !c.write(f) {
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.h.opt.WriteWait)); err != nil {
				c.closeWith(0, "")
				return
			}
		}
	}
}

// write sends one frame; false means the connection is finished.
func (c *Conn) write(f *websocket.PreparedMessage) bool {
	c.ws.SetWriteDeadline(time.Now().Add(c.h.opt.WriteWait))
	if err := c.ws.WritePreparedMessage(f); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// Too slow to take even one frame within WriteWait.
			c.closeWith(CloseTooSlow, "too slow")
		} else {
			c.closeWith(0, "")
		}
		c.writeClose()
		return false
	}
	c.h.m.delivered.Inc()
	return true
}

// writeClose sends the close frame decided by closeWith, if any.
func (c *Conn) writeClose() {
	if c.closeCode == 0 {
		return
	}
	msg := websocket.FormatCloseMessage(c.closeCode, c.closeText)
	c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(c.h.opt.WriteWait))
}

// logPanic logs a panic of one of c's goroutines, which the caller
// recovered so that one bad connection cannot take the process down.
func (c *Conn) logPanic(where string, r any) {
	c.h.log.Error("live: "+where+" panic", "panic", r, "stack", string(debug.Stack()))
}
