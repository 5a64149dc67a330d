package hub

import (
	"context"
	"errors"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"microblog/store"
)

// WebSocket limits; the timings are in Options (DefaultWriteWait, DefaultPongWait).
const (
	// maxMessageSize is the largest frame a client may send: it sends nothing
	// but control frames, so anything big is a misbehaving client.
	maxMessageSize = 4096
	// writeBufferSize is the size of the pooled buffers that gorilla uses
	// for a connection's own frames (ready, replays): a connection holds one
	// only while it writes such a frame, and a longer frame goes out in the
	// same write, after the buffer.
	writeBufferSize = 1024
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

// writeBuffers is shared by every connection of every hub.
var writeBuffers sync.Pool

// NewUpgrader returns the upgrader for the hub's connections, its buffers
// sized to what the hub reads and writes. CheckOrigin is left to the caller.
func NewUpgrader() websocket.Upgrader {
	return websocket.Upgrader{
		ReadBufferSize:  readBufferSize,
		WriteBufferSize: writeBufferSize,
		WriteBufferPool: &writeBuffers,
	}
}

// Client says who a connection is for and where its replay starts.
type Client struct {
	UserID    int64
	TokenHash string // sha256 hex of the session token, for closing on logout
	After     int64  // replay home-timeline posts newer than this id…
	HasAfter  bool   // …when the client asked for it with ?after=
	// Seen lists posts above After that the client holds already
	// (?seen=, at most store.MaxSeen): the replay leaves them out (store/resume.go).
	Seen []int64
	// DMsAfter: replay the user's private messages newer than this
	// id, when HasDMsAfter (?messages_after=).
	DMsAfter    int64
	HasDMsAfter bool
	// Format, when set, speaks another protocol over the connection
	// (format.go): no ready then, replayed posts go through it as if heard
	// on their authors' topics, and UserID may be 0 for a client that is
	// no user (it gets the public topic alone).
	Format Format
	// Public: listen to store.PublicTopic from the start (ListenPublic).
	Public bool
}

// frame is one frame to write: an event fanned out to many connections,
// framed once for all of them, or a connection's own (ready, a replay),
// written from its bytes through a pooled buffer, without the framing
// cache that a PreparedMessage would build for one use.
type frame struct {
	shared *websocket.PreparedMessage
	own    []byte
}

// event is one frame to queue, with the post it carries.
type event struct {
	postID int64 // the post's id for post events (to drop duplicates), else 0
	// postAt is the post's created_at, for the floor of a catch-up
	// (resume.go); 0 when unknown.
	postAt store.Time
	// messageID is the private message's id for message events (to drop
	// duplicates: their ids are a sequence of their own), else 0.
	messageID int64
	// late: a message heard on its topic after a newer one (dm.go).
	late bool
	f    frame
	// src is the event as a Format sees it (nil for a connection's own
	// frames).
	src *Event
	// about is what the safety rule looks at (nil: nothing). It travels
	// with the event, which is asked again when it goes out after being
	// held (while its connection opened, or its user's lens was read
	// again): the lens may have changed meanwhile.
	about *subject
	// offHome: the post is by a member of one of the user's exclusive
	// lists (userLens.offHome), set per user as it is handed over: not for
	// the home feed, for the lists alone.
	offHome bool
}

// Conn is one WebSocket client. An idle connection has no goroutine of its
// own on Linux: its socket waits in the process's epoll, and a reader runs
// only while there is something to read (poll_linux.go); elsewhere, and
// for event streams, its one goroutine is its reader. A writer goroutine
// runs only while there is something to write (the frames of the opening,
// queued frames, a ping, the close frame) and exits when the queue is
// empty, so that an idle connection holds no writer's stack. At most one
// writer runs at a time, and it alone writes to ws (gorilla/websocket
// allows one writer; the reader may answer the peer's ping or close frame
// through WriteControl, which may be called concurrently). Everyone else
// hands frames to the writer through queue.
type Conn struct {
	h         *Hub
	w         wire  // the WebSocket or the event stream (wire.go)
	user      *user // set by Hub.join under Hub.mu
	uid       int64
	after     int64
	tokenHash string
	hasAfter  bool
	// clientSeen is Client.Seen until the connection opens; openFloor is
	// where the client held everything then: ?after=, or the newest id
	// at the start (resume.go).
	clientSeen []int64
	openFloor  int64
	onClose    func() // called once the connection is gone
	// dmsAfter and hasDMsAfter are Client's DMsAfter and
	// HasDMsAfter.
	dmsAfter    int64
	hasDMsAfter bool
	// notifyWarm: the user's notify topic was subscribed before c
	// registered (set by Hub.join under Hub.mu; dm.go).
	notifyWarm bool
	// format is Client.Format, publicAtStart Client.Public; public says c
	// listens to the public topic (guarded by Hub.mu; format.go).
	format        Format
	publicAtStart bool
	public        bool

	// cancelOpen cancels the opening's context while the connection opens:
	// a connection that starts closing meanwhile stops waiting for Redis.
	// An open connection keeps no context.
	cancelOpen atomic.Pointer[context.CancelFunc]
	// opening is done once open has returned. The reader leaves the user
	// only then: a user still loading for c must not be left half-made
	// (topics subscribed for a user that is gone).
	opening sync.WaitGroup

	closeOnce sync.Once
	closed    atomic.Bool // set when the connection starts closing
	closeCode int         // written once before closed is set; 0 sends no close frame
	closeText string

	// writing is true while a writer runs. kick starts one when it is
	// false; a writer that has sent the connection's close keeps it true,
	// so that no writer starts after it.
	writing atomic.Bool

	mu     sync.Mutex  // guards the fields below
	pinger *time.Timer // marks a ping due every PingPeriod
	// nextPing is when the next ping is due (monotonicNow's clock); the
	// pinger fires sooner when the wire's pong deadline comes first.
	nextPing time.Duration
	// queue holds the frames waiting for the writer, oldest first, at most
	// SendQueue; it is nil while empty, so that an idle connection holds no
	// queue. Only deliver and catch-up put into it (under mu, never
	// blocking); a full queue closes the connection with CloseTooSlow.
	queue      []frame
	writingOne bool     // the writer took a frame from queue and is writing it
	pingDue    bool     // the writer sends a ping next
	gone       bool     // the reader has finished: no more pings
	live       bool     // the replay is queued; events go to queue, not pending
	pending    []event  // events that arrived while the replay was being read
	seen       idWindow // recent post ids sent, to drop duplicates
	high       int64    // highest post id sent or known to the client
	gapMarked  bool     // the subscriber connection broke and c has not caught up yet
	gapFrom    int64    // where the catch-up starts: resumeFloorLocked when it broke
	// gapHeld holds the live events that arrive while c is marked, after
	// the broker came back and before c's catch-up (gap.go).
	gapHeld []event
	// The same for private messages, whose ids are a sequence of their
	// own (dm.go).
	msgSeen      idWindow
	msgHigh      int64
	msgGapMarked bool
	msgGapFrom   int64
	// scratch is reused for the frames c's format makes of one event.
	scratch []frame
}

// Start runs a connection until it ends and returns at once. ws must be
// freshly upgraded; the hub owns it from then on and closes it. onClose,
// if not nil, is called once when the connection is gone.
//
// Start keeps no goroutine of the caller: an HTTP handler that returns
// after it lets net/http drop the request and its buffers, which an open
// connection would otherwise hold for as long as it lives.
func (h *Hub) Start(ws *websocket.Conn, cl Client, onClose func()) {
	if tc, ok := ws.NetConn().(*net.TCPConn); ok && h.opt.SocketBuffer > 0 {
		tc.SetWriteBuffer(h.opt.SocketBuffer)
	}
	c := h.newConn(wsWire{ws, newPolled(ws.NetConn(), ws)}, cl, onClose)
	if h.run(c) {
		c.listen()
	}
}

// listen starts reading what the client sends: through the epoll where
// the wire can, else with a reader goroutine.
func (c *Conn) listen() {
	if !c.w.poll(c) {
		go c.read()
	}
}

// newConn is a connection of cl over w, not yet registered.
func (h *Hub) newConn(w wire, cl Client, onClose func()) *Conn {
	c := &Conn{
		h:         h,
		w:         w,
		uid:       cl.UserID,
		tokenHash: cl.TokenHash,
		after:     cl.After,
		hasAfter:  cl.HasAfter,

		clientSeen: cl.Seen,
		onClose:    onClose,

		dmsAfter:      cl.DMsAfter,
		hasDMsAfter:   cl.HasDMsAfter,
		format:        cl.Format,
		publicAtStart: cl.Public,
	}
	// The writer's place is taken from the start by the one that opens
	// the connection.
	c.writing.Store(true)
	return c
}

// run registers c and starts its opening writer; its reader is the
// caller's to start. False means the hub is shutting down, and c is gone.
func (h *Hub) run(c *Conn) bool {
	if !h.register(c) {
		c.closeWith(closeGoingAway, "server shutting down")
		c.writeClose()
		c.w.close()
		if c.onClose != nil {
			c.onClose()
		}
		return false
	}
	c.mu.Lock()
	period := c.w.pingPeriod(h.opt.PingPeriod)
	c.nextPing = monotonicNow() + period
	c.pinger = time.AfterFunc(period, c.pingTick)
	c.mu.Unlock()
	// register counted the reader in h.wg; the opening writer counts itself.
	h.wg.Add(1)
	c.opening.Add(1)
	go c.openAndWrite()
	return true
}

// Serve is Start that returns when the connection is gone.
func (h *Hub) Serve(ws *websocket.Conn, cl Client) {
	gone := make(chan struct{})
	h.Start(ws, cl, func() { close(gone) })
	<-gone
}

// closeWith starts closing the connection with code (0: no close frame, the
// peer is gone). The first call wins; it never blocks and takes no lock.
func (c *Conn) closeWith(code int, text string) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeText = code, text
		c.closed.Store(true)
		if cancel := c.cancelOpen.Load(); cancel != nil {
			(*cancel)()
		}
		switch code {
		case CloseTooSlow:
			c.h.m.slowClosed.Inc()
		case CloseLoggedOut:
			c.h.m.revoked.Inc()
		}
		c.kick() // the writer sends the close frame
	})
}

// closing reports whether the connection has started closing.
func (c *Conn) closing() bool { return c.closed.Load() }

// read is the connection's one lasting goroutine where it is not polled: it reads (and discards,
// unless a Format takes it) what the client sends, so that pongs and close frames are processed,
// until the connection fails or closes; then it drops the connection.
func (c *Conn) read() {
	defer c.h.wg.Done()
	defer c.drop()
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("reader", r)
		}
	}()
	c.w.read(c)
}

// drop ends a connection whose reader has finished: the peer answered the
// close frame, went away, or was cut off after closeGrace. It leaves the
// user only once the opening is over, so that a user loading for c is
// never left half-made.
func (c *Conn) drop() {
	c.closeWith(0, "")
	c.mu.Lock()
	c.gone = true
	c.pinger.Stop()
	c.mu.Unlock()
	c.w.close()
	c.opening.Wait() // cancelled by closeWith, open returns soon
	c.h.leave(c)
	if c.onClose != nil {
		c.onClose()
	}
}

// pingTick marks a ping due and starts a writer to send it. A wire that
// reads without a reader waiting (a polled WebSocket) has no read deadline
// to drop a client that stopped answering: pingTick drops it once its
// pong deadline is past, and fires at that deadline when it comes before
// the next ping.
func (c *Conn) pingTick() {
	now := monotonicNow()
	if by := c.w.pongDeadline(); by != 0 && now >= by {
		c.w.close() // no pong within PongWait: the client is gone
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return
	}
	if now >= c.nextPing {
		c.pingDue = true
		c.nextPing = now + c.w.pingPeriod(c.h.opt.PingPeriod)
		c.kick()
	}
	next := c.nextPing
	if by := c.w.pongDeadline(); by != 0 && by < next {
		next = by
	}
	c.pinger.Reset(next - now)
}

// epoch starts the clock of monotonicNow.
var epoch = time.Now()

// monotonicNow is the time since the process started, on the monotonic
// clock: a deadline that fits in 8 bytes.
func monotonicNow() time.Duration { return time.Since(epoch) }

// monotonicTime is the time at d on monotonicNow's clock.
func monotonicTime(d time.Duration) time.Time { return epoch.Add(d) }

// kick starts a writer unless one is running. It never blocks. The caller
// makes sure the connection is still counted in h.wg (its reader has not
// finished, or the caller is itself counted there).
func (c *Conn) kick() {
	if c.writing.CompareAndSwap(false, true) {
		c.h.wg.Add(1)
		go c.write()
	}
}

// openAndWrite opens the connection and writes what opening returned,
// then goes on as its writer.
func (c *Conn) openAndWrite() {
	defer c.h.wg.Done()
	defer c.recoverWriter()
	ctx, cancel := context.WithCancel(c.h.ctx)
	c.cancelOpen.Store(&cancel)
	if c.closing() { // closed before cancelOpen was there to be called
		cancel()
	}
	frames, err := c.open(ctx)
	c.cancelOpen.Store(nil)
	cancel()
	c.opening.Done()
	if err != nil {
		c.closeForError(err)
		c.finish()
		return
	}
	if g := c.w.greeting(); g != nil {
		frames = append([]frame{{own: g}}, frames...)
	}
	for _, f := range frames {
		if !c.writeFrame(f) {
			c.finish()
			return
		}
	}
	c.writeQueued()
}

// write is a writer started by kick.
func (c *Conn) write() {
	defer c.h.wg.Done()
	defer c.recoverWriter()
	c.writeQueued()
}

// recoverWriter closes a connection whose writer panicked, so that one bad
// connection cannot take the process down.
func (c *Conn) recoverWriter() {
	if r := recover(); r != nil {
		c.logPanic("writer", r)
		c.closeWith(closeInternal, "internal error")
		c.finish()
	}
}

// writeQueued writes queued frames and pings until there are none, then
// lets the writer go; once the connection is closing, it sends the close
// frame instead and keeps the writer's place for good.
func (c *Conn) writeQueued() {
	for {
		if c.closing() {
			c.finish()
			return
		}
		c.mu.Lock()
		var f frame
		ping := false
		c.writingOne = false
		switch {
		case len(c.queue) > 0:
			f = c.queue[0]
			c.queue[0] = frame{}
			c.queue = c.queue[1:]
			if len(c.queue) == 0 {
				c.queue = nil
			}
			c.writingOne = true
		case c.pingDue:
			ping, c.pingDue = true, false
		default:
			c.writing.Store(false)
			c.mu.Unlock()
			// A close decided since the check above found the writer's
			// place taken and left the close frame to this writer.
			if c.closing() && c.writing.CompareAndSwap(false, true) {
				continue
			}
			return
		}
		c.mu.Unlock()
		if ping {
			if err := c.w.ping(time.Now().Add(c.h.opt.WriteWait)); err != nil {
				c.closeWith(0, "")
				c.finish()
				return
			}
		} else if !c.writeFrame(f) {
			c.finish()
			return
		}
	}
}

// writeFrame sends one frame; false means the connection is finished.
func (c *Conn) writeFrame(f frame) bool {
	if err := c.w.writeFrame(f, time.Now().Add(c.h.opt.WriteWait)); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// Too slow to take even one frame within WriteWait.
			c.closeWith(CloseTooSlow, "too slow")
		} else {
			c.closeWith(0, "")
		}
		return false
	}
	c.h.m.delivered.Inc()
	return true
}

// finish is the last thing a writer does for a closing connection: it
// sends the close frame decided by closeWith, if any, and drops the TCP
// connection after closeGrace unless the peer has answered by then (the
// reader then drops it at once).
func (c *Conn) finish() {
	c.writeClose()
	time.AfterFunc(closeGrace, c.w.close)
}

// writeClose sends the close frame decided by closeWith, if any.
func (c *Conn) writeClose() {
	if c.closeCode == 0 {
		return
	}
	c.w.writeClose(c.closeCode, c.closeText, time.Now().Add(c.h.opt.WriteWait))
}

// logPanic logs a panic of one of c's goroutines, which the caller
// recovered so that one bad connection cannot take the process down.
func (c *Conn) logPanic(where string, r any) {
	c.h.log.Error("live: "+where+" panic", "panic", r, "stack", string(debug.Stack()))
}
