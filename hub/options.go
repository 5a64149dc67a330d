package hub

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The live feed's defaults, in one place: a zero field of Options takes
// them, and the server's configuration starts from them.
const (
	// DefaultSendQueue is how many frames may wait for a connection before
	// it is closed with CloseTooSlow.
	DefaultSendQueue = 256
	// DefaultReplayMax is the most posts replayed to one connection.
	DefaultReplayMax = 200
	// DefaultLinger is how long a topic stays subscribed after its last
	// local listener left.
	DefaultLinger = 5 * time.Second
	// DefaultPongWait is how long a client may stay silent (no pong) before
	// it is dropped; it is pinged every nine tenths of that.
	DefaultPongWait = 60 * time.Second
	// DefaultWriteWait is the time allowed to write one frame; a client that
	// does not take it sooner is closed with CloseTooSlow.
	DefaultWriteWait = 10 * time.Second
	// DefaultSocketBuffer caps the kernel's send buffer of each socket.
	DefaultSocketBuffer = 64 << 10
)

// Options tune a Hub. The zero value gives the defaults above.
type Options struct {
	// SendQueue is how many frames may wait for a slow connection before it
	// is closed with CloseTooSlow (DefaultSendQueue).
	SendQueue int
	// ReplayMax is the most posts replayed to a connection that comes with
	// ?after= or that lost events to a Redis outage (DefaultReplayMax).
	ReplayMax int
	// Linger is how long a topic stays subscribed after its last local
	// listener left, so that reconnect storms do not churn (DefaultLinger).
	Linger time.Duration
	// SocketBuffer caps the kernel's send buffer of each connection's socket
	// (DefaultSocketBuffer), so that a client that stops reading is noticed
	// after that much, not after the megabytes Linux would otherwise buffer
	// for it. Negative leaves the kernel's default.
	SocketBuffer int
	// WriteWait and PongWait override DefaultWriteWait and DefaultPongWait;
	// PingPeriod, nine tenths of PongWait unless set shorter, is for tests.
	WriteWait, PongWait, PingPeriod time.Duration
	// Registerer receives the hub's metrics; nil registers none.
	Registerer prometheus.Registerer
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o *Options) setDefaults() {
	if o.SendQueue <= 0 {
		o.SendQueue = DefaultSendQueue
	}
	if o.SocketBuffer == 0 {
		o.SocketBuffer = DefaultSocketBuffer
	}
	if o.ReplayMax <= 0 {
		o.ReplayMax = DefaultReplayMax
	}
	if o.Linger <= 0 {
		o.Linger = DefaultLinger
	}
	if o.WriteWait <= 0 {
		o.WriteWait = DefaultWriteWait
	}
	if o.PongWait <= 0 {
		o.PongWait = DefaultPongWait
	}
	if o.PingPeriod <= 0 || o.PingPeriod >= o.PongWait {
		o.PingPeriod = o.PongWait * 9 / 10
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}
