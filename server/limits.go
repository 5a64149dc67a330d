package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"microblog/store"
)

// maxHeaderWait bounds the time to send a request's headers (slowloris); the
// read timeout bounds the whole request.
const maxHeaderWait = 10 * time.Second

// newHTTPServer is run's http.Server, with the edges' timeouts, and ln
// wrapped so that one client address holds at most MaxConnsPerIP
// connections at a time.
//
// The timeouts do not reach the live feed: net/http clears the read deadline
// of a connection it hands over (hijacks), and the hub sets its own read
// deadline (the pong wait) and a write deadline before every frame.
func newHTTPServer(ed edges, h http.Handler, ln net.Listener, logger *slog.Logger, reg prometheus.Registerer) (*http.Server, net.Listener) {
	hs := &http.Server{
		Handler:           growStack(h),
		ReadHeaderTimeout: min(maxHeaderWait, ed.ReadTimeout),
		ReadTimeout:       ed.ReadTimeout,
		WriteTimeout:      ed.WriteTimeout,
		IdleTimeout:       ed.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if ed.MaxConnsPerIP == 0 {
		return hs, ln
	}
	cl := &connLimiter{
		Listener: ln, max: ed.MaxConnsPerIP, exempt: ed,
		open: map[string]int{}, addrOf: map[net.Conn]string{},
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "microblog_http_connections_refused_total",
			Help: "Connections closed at once because their client address had MICROBLOG_MAX_CONNS_PER_IP open.",
		}),
	}
	reg.MustRegister(cl.refused)
	hs.ConnState = cl.connState
	return hs, cl
}

// connLimiter is a listener that closes at once a connection from a client
// address that already has max open, before net/http spends anything on it.
// Trusted proxies are exempt: every client behind them shares their address.
// A connection leaves the count when it closes or is handed over to the live
// feed, which has its own caps (socketCaps).
type connLimiter struct {
	net.Listener
	max     int
	exempt  edges
	refused prometheus.Counter

	mu     sync.Mutex
	open   map[string]int      // open connections by client address
	addrOf map[net.Conn]string // the address each counted connection is counted under
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(c) {
			return c, nil
		}
		c.Close()
		l.refused.Inc()
	}
}

// admit counts c, unless its address is at the cap.
func (l *connLimiter) admit(c net.Conn) bool {
	peer := peerAddr(c.RemoteAddr().String())
	if !peer.IsValid() || l.exempt.trusts(peer) {
		return true
	}
	addr := peer.String()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[addr] >= l.max {
		return false
	}
	l.open[addr]++
	l.addrOf[c] = addr
	return true
}

// connState is the server's ConnState hook: a closed or hijacked connection
// leaves the count. Both states are final, so each connection leaves once.
func (l *connLimiter) connState(c net.Conn, s http.ConnState) {
	if s != http.StateClosed && s != http.StateHijacked {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	addr, ok := l.addrOf[c]
	if !ok {
		return
	}
	delete(l.addrOf, c)
	if l.open[addr]--; l.open[addr] <= 0 {
		delete(l.open, addr)
	}
}

// codeTooManyConns refuses a live socket over a cap. It lives here rather
// than in store/errors.go with the other codes because only this file
// answers it.
const codeTooManyConns store.Code = "too_many_connections"

// socketRetryAfter is the Retry-After of a refused socket: a client over its
// share waits a while rather than dialling again at once.
const socketRetryAfter = 30 * time.Second

// socketCaps caps the live WebSockets of one process per user and per client
// address. A socket is counted from before its upgrade until the hub lets it go.
type socketCaps struct {
	perUser, perAddr int
	refused          *prometheus.CounterVec

	mu     sync.Mutex
	byUser map[int64]int
	byAddr map[string]int
}

func newSocketCaps(ed edges, reg prometheus.Registerer) *socketCaps {
	s := &socketCaps{
		perUser: ed.WSMaxPerUser, perAddr: ed.WSMaxPerIP,
		byUser: map[int64]int{}, byAddr: map[string]int{},
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "microblog_live_connections_refused_total",
			Help: "WebSocket upgrades answered 429 because the user or the client address had its most open.",
		}, []string{"cap"}),
	}
	reg.MustRegister(s.refused)
	return s
}

// acquire counts a socket of uid from addr, or says 429 when either is at
// its cap; release gives the place back.
func (s *socketCaps) acquire(uid int64, addr string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.perUser > 0 && uid != 0 && s.byUser[uid] >= s.perUser: // 0: apps' tokens, no one user's
		s.refused.WithLabelValues("per_user").Inc()
		return nil, tooManyConns("you have too many live connections open; close one (another tab or device) and try again")
	case s.perAddr > 0 && s.byAddr[addr] >= s.perAddr:
		s.refused.WithLabelValues("per_address").Inc()
		return nil, tooManyConns("too many live connections from your address; try again later")
	}
	s.byUser[uid]++
	s.byAddr[addr]++
	var once sync.Once
	return func() { once.Do(func() { s.release(uid, addr) }) }, nil
}

func (s *socketCaps) release(uid int64, addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byUser[uid]--; s.byUser[uid] <= 0 {
		delete(s.byUser, uid)
	}
	if s.byAddr[addr]--; s.byAddr[addr] <= 0 {
		delete(s.byAddr, addr)
	}
}

// tooManyConns is a 429 too_many_connections with a Retry-After: the error
// handler takes the code from the *store.Error and the wait from the
// *store.RateLimitError.
func tooManyConns(msg string) error {
	return errors.Join(store.NewError(store.ErrRateLimited, codeTooManyConns, msg),
		&store.RateLimitError{RetryAfter: socketRetryAfter})
}
