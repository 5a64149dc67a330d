package hub

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/sys/unix"
)

// A WebSocket's reader on Linux has no goroutine of its own while the
// client sends nothing: the socket waits in one epoll shared by every
// connection of the process, and when it has something to read a
// short-lived goroutine reads the frames that are there (frames.go) and
// hands the socket back to the epoll (EPOLLONESHOT: at most one reader per
// socket at a time). An idle connection thus holds no goroutine stack;
// gorilla/websocket still upgrades and writes.
//
// The epoll knows a socket by its descriptor number and a generation, and
// a socket leaves it (EPOLL_CTL_DEL, under the socket's lock) before it is
// closed, on every path: a number that a new socket reuses is never taken
// for the old one, and an old socket is never handed back to the epoll
// after it was closed.

// readBufferSize is what the upgrader gives gorilla to read with. Gorilla
// reads nothing of a polled connection (the hub reads its frames itself),
// so it takes its smallest buffer (a control frame's 125 bytes).
const readBufferSize = 1

// pollState is where a polled connection is in its life.
type pollState uint8

const (
	pollIdle    pollState = iota // not handed to the epoll (yet)
	pollWaiting                  // in the epoll: a reader runs when it is readable
	pollDone                     // out of the epoll and closed
)

// polled is a connection read through the shared epoll: a WebSocket, or
// an event stream (ws nil), whose client sends nothing the hub reads.
type polled struct {
	c    *Conn
	conn net.Conn
	ws   *websocket.Conn // nil for an event stream
	rc   syscall.RawConn
	// pongBy is when the connection is dropped unless a pong comes first
	// (nanoseconds on monotonicNow's clock), PongWait after the last pong.
	pongBy atomic.Int64

	mu    sync.Mutex // guards what follows, and every epoll call for the socket
	state pollState
	fd    int32  // the socket's descriptor, valid while state is pollWaiting
	gen   uint32 // tells this socket from another that reuses fd
}

// newPolled prepares conn, the connection of ws (nil for an event stream),
// to be read through the epoll, or returns nil when it has no descriptor
// to poll (the reader then runs in a goroutine).
func newPolled(conn net.Conn, ws *websocket.Conn) *polled {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &polled{conn: conn, ws: ws, rc: rc}
}

// start hands the connection to the epoll; false means it could not, and
// the caller runs a reader goroutine instead.
func (p *polled) start(c *Conn) bool {
	pl := thePoller()
	if pl == nil {
		return false
	}
	p.c = c
	fd := -1
	if err := p.rc.Control(func(s uintptr) { fd = int(s) }); err != nil || fd < 0 {
		return false
	}
	if p.ws != nil { // an event stream's client answers no pings
		p.pongBy.Store(int64(monotonicNow() + c.h.opt.PongWait))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != pollIdle {
		return false
	}
	p.fd, p.gen = int32(fd), pl.gen.Add(1)
	pl.put(p)
	p.state = pollWaiting
	if err := pl.ctl(unix.EPOLL_CTL_ADD, p); err != nil {
		p.state = pollIdle
		pl.remove(p)
		p.pongBy.Store(0) // gorilla's reader keeps the deadline
		return false
	}
	return true
}

// dispatch starts a reader for a socket that the epoll found readable.
func (p *polled) dispatch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != pollWaiting {
		return
	}
	// The connection's place in h.wg (its reader's) is held until shut, so
	// this Add cannot race Shutdown's Wait from zero.
	p.c.h.wg.Add(1)
	go p.read()
}

// read reads the frames that are there, then hands the socket back to the
// epoll, or drops the connection if it failed or closed.
func (p *polled) read() {
	c := p.c
	defer c.h.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("reader", r)
			p.shut()
		}
	}()
	var err error
	if p.ws == nil {
		err = p.drain()
	} else {
		fr := frameReaders.Get().(*frameReader)
		fr.p = p
		err = fr.readFrames()
		fr.reset()
		frameReaders.Put(fr)
	}
	if err != errIdle {
		p.shut()
		return
	}
	p.mu.Lock()
	rearmed := p.state != pollWaiting || thePoller().ctl(unix.EPOLL_CTL_MOD, p) == nil
	p.mu.Unlock()
	if !rearmed {
		p.shut()
	}
}

// shut takes the socket out of the epoll and closes it; the first time a
// polled connection is shut, its reader's part is over, and the connection
// is dropped.
func (p *polled) shut() {
	p.mu.Lock()
	state := p.state
	p.state = pollDone
	if state == pollWaiting {
		pl := thePoller()
		pl.ctl(unix.EPOLL_CTL_DEL, p)
		pl.remove(p)
	}
	if state != pollDone {
		// Under mu: a reader cannot hand the socket back to the epoll
		// between its removal and its close.
		p.conn.Close()
	}
	p.mu.Unlock()
	if state == pollWaiting {
		p.c.drop()
		p.c.h.wg.Done() // the reader's place, which register counted
	}
}

// pongDeadline is when the connection is dropped for want of a pong; 0
// while it is not polled (a reader goroutine keeps its own deadline).
func (p *polled) pongDeadline() time.Duration {
	return time.Duration(p.pongBy.Load())
}

// readNow reads what the socket holds, without waiting: 0 bytes and no
// error means nothing is there; io.EOF, that the peer is gone.
func (p *polled) readNow(b []byte) (n int, err error) {
	var errno error
	rerr := p.rc.Read(func(fd uintptr) bool {
		for {
			n, errno = unix.Read(int(fd), b)
			if errno != unix.EINTR {
				return true
			}
		}
	})
	switch {
	case rerr != nil:
		return 0, rerr
	case errno == unix.EAGAIN:
		return 0, nil
	case errno != nil:
		return 0, errno
	case n == 0:
		return 0, errPeerGone
	}
	return n, nil
}

// readWait reads what the socket holds, waiting for something until the
// pong deadline: the rest of a frame whose start was read.
func (p *polled) readWait(b []byte) (int, error) {
	conn := p.conn
	conn.SetReadDeadline(monotonicTime(p.pongDeadline()))
	n, err := conn.Read(b)
	conn.SetReadDeadline(time.Time{})
	if n > 0 {
		return n, nil
	}
	if err == nil {
		err = errPeerGone
	}
	return 0, err
}

// drain reads and drops what an event stream's client sends, until it
// holds nothing more (errIdle) or the client is gone.
func (p *polled) drain() error {
	var buf [64]byte
	for {
		n, err := p.readNow(buf[:])
		if err != nil {
			return err
		}
		if n == 0 {
			return errIdle
		}
	}
}

// errPeerGone is the end of what the client sends: it closed the socket.
var errPeerGone = errors.New("hub: peer closed the connection")

// poller is the process's epoll, with the sockets it waits for by
// descriptor.
type poller struct {
	epfd int
	gen  atomic.Uint32

	mu     sync.Mutex
	bySock []*polled // indexed by descriptor
}

var (
	pollerOnce sync.Once
	thePoll    *poller
)

// thePoller is the process's poller, started the first time it is asked
// for; nil if Linux refused an epoll (the hub then reads with goroutines).
func thePoller() *poller {
	pollerOnce.Do(func() {
		fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return
		}
		thePoll = &poller{epfd: fd}
		go thePoll.wait()
	})
	return thePoll
}

// ctl adds, re-arms or removes p's socket; the caller holds p.mu.
func (pl *poller) ctl(op int, p *polled) error {
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT,
		Fd:     p.fd,
		Pad:    int32(p.gen),
	}
	return unix.EpollCtl(pl.epfd, op, int(p.fd), &ev)
}

func (pl *poller) put(p *polled) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if int(p.fd) >= len(pl.bySock) {
		grown := make([]*polled, max(int(p.fd)+1, 2*len(pl.bySock), 1024))
		copy(grown, pl.bySock)
		pl.bySock = grown
	}
	pl.bySock[p.fd] = p
}

func (pl *poller) remove(p *polled) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if int(p.fd) < len(pl.bySock) && pl.bySock[p.fd] == p {
		pl.bySock[p.fd] = nil
	}
}

// get is the socket an event is for, if it is still the one that the
// event's descriptor and generation name.
func (pl *poller) get(fd int32, gen uint32) *polled {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if fd < 0 || int(fd) >= len(pl.bySock) {
		return nil
	}
	if p := pl.bySock[fd]; p != nil && p.gen == gen {
		return p
	}
	return nil
}

// wait is the poller's goroutine: it waits for readable sockets (in the
// kernel, on a thread of its own) and starts a reader for each.
func (pl *poller) wait() {
	events := make([]unix.EpollEvent, 256)
	for {
		n, err := unix.EpollWait(pl.epfd, events, -1)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			// Nothing else is expected of a valid epoll; retry after a
			// pause rather than spin.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		for _, ev := range events[:n] {
			if p := pl.get(ev.Fd, uint32(ev.Pad)); p != nil {
				p.dispatch()
			}
		}
	}
}
