package hub_test

import (
	"errors"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/store"
)

// TestIdleConnectionsKeepOnlyTheirReader: an open connection that has
// nothing to write keeps one goroutine, its reader; a writer runs while
// there is something to send and goes away after.
func TestIdleConnectionsKeepOnlyTheirReader(t *testing.T) {
	ph := newProfileHub(t, hub.Options{})
	const n = 50
	base := runtime.NumGoroutine()
	var got atomic.Int64
	ph.dialAll(t, n, true, &got) // n client readers, n hub readers
	perConn := func() float64 {
		var g int
		for deadline := time.Now().Add(hangWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if g = runtime.NumGoroutine() - base - n; g <= n {
				break
			}
		}
		return float64(g) / n
	}
	if g := perConn(); g > 1 {
		t.Fatalf("%.2f goroutines per idle connection, want 1", g)
	}
	for range 3 {
		p := ph.tl.add(1, "hello")
		ph.broker.publish(store.AuthorTopic(1), store.EventPost, p)
	}
	for deadline := time.Now().Add(hangWait); got.Load() < 3*n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("delivered %d of %d", got.Load(), 3*n)
		}
	}
	if g := perConn(); g > 1 {
		t.Fatalf("%.2f goroutines per connection after delivering, want 1", g)
	}
}

// TestIdlePings: without a writer of its own, an idle connection is still
// pinged every PingPeriod; a client that answers stays, one that does not
// is dropped after PongWait. A PongWait of a second, not less, so that a
// busy machine's pause cannot make the answering client late.
func TestIdlePings(t *testing.T) {
	ph := newProfileHub(t, hub.Options{PongWait: time.Second, PingPeriod: 50 * time.Millisecond})
	d := websocket.Dialer{}
	answering, _, err := d.Dial(ph.url+"1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer answering.Close()
	silent, _, err := d.Dial(ph.url+"2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var pings atomic.Int64
	answering.SetPingHandler(func(data string) error {
		pings.Add(1)
		return answering.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(hangWait))
	})
	readErr := make(chan error, 1)
	go func() {
		for {
			if _, _, err := answering.ReadMessage(); err != nil {
				readErr <- err
				return
			}
		}
	}()
	time.Sleep(3 * time.Second) // three PongWaits
	select {
	case err := <-readErr:
		t.Fatalf("the answering client was dropped: %v", err)
	default:
	}
	if n := pings.Load(); n < 10 {
		t.Fatalf("%d pings in three seconds, want about 60", n)
	}
	// The silent client read nothing, so it answered no ping: the hub has
	// dropped it. It finds ready and pings, then the end of the connection.
	silent.SetReadDeadline(time.Now().Add(hangWait))
	for {
		if _, _, err := silent.ReadMessage(); err != nil {
			if websocket.IsCloseError(err, websocket.CloseNormalClosure) || isTimeout(err) {
				t.Fatalf("silent client: %v, want the connection dropped", err)
			}
			break
		}
	}
	for deadline := time.Now().Add(hangWait); ph.h.Connections() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want 1", ph.h.Connections())
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
