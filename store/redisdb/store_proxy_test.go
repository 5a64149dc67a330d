package redisdb

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lossyProxy stands between a client and Redis. Told to, it lets one
// request through to Redis but loses Redis's reply and cuts the connection,
// as a network fault or a stall the client times out on would: Redis has
// done what was asked, and the client does not know it.
type lossyProxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	mu     sync.Mutex
	match  func(req []byte) bool // the request whose reply to lose, once
	lost   atomic.Int32
}

// newLossyProxy forwards connections to the Redis at target until the test ends.
func newLossyProxy(t *testing.T, target string) *lossyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{t: t, ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

// Addr is host:port of the proxy.
func (p *lossyProxy) Addr() string { return p.ln.Addr().String() }

// loseReplyTo loses the reply to the next request whose bytes match.
func (p *lossyProxy) loseReplyTo(match func(req []byte) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.match = match
}

// containing matches a request holding s (a key, a command name).
func containing(s string) func([]byte) bool {
	return func(req []byte) bool { return bytes.Contains(req, []byte(s)) }
}

func (p *lossyProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		go p.pipe(client, server)
	}
}

func (p *lossyProxy) pipe(client, server net.Conn) {
	defer client.Close()
	defer server.Close()
	var dropping atomic.Bool
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 && !dropping.Load() {
				client.Write(buf[:n])
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			lose := p.match != nil && p.match(buf[:n])
			if lose {
				p.match = nil
			}
			p.mu.Unlock()
			if lose {
				dropping.Store(true)
			}
			server.Write(buf[:n])
			if lose {
				time.Sleep(100 * time.Millisecond) // Redis does it; the reply goes nowhere
				p.lost.Add(1)
				return
			}
		}
		if err != nil {
			return
		}
	}
}
