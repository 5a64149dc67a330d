//go:build !linux

package hub

import (
	"net"
	"time"

	"github.com/gorilla/websocket"
)

// Elsewhere than on Linux, a WebSocket's reader is a goroutine of its own,
// reading through gorilla/websocket (wsWire.read).

// readBufferSize fits any control frame a client sends (a pong or a close:
// at most 125 bytes and a 6-byte header) in one read; a larger frame is
// read in pieces. Every connection holds its read buffer for as long as
// it is open.
const readBufferSize = 256

// polled is Linux's (poll_linux.go); there is none here.
type polled struct{}

func newPolled(net.Conn, *websocket.Conn) *polled { return nil }

func (p *polled) start(*Conn) bool { return false }

func (p *polled) shut() {}

func (p *polled) pongDeadline() time.Duration { return 0 }
