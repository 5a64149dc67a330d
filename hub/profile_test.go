package hub_test

// Profiles of the hub with many connections, for finding where a live
// connection's memory and a delivery's time go. They run only when asked:
//
//	HUB_PROFILE=/tmp/hubprof HUB_PROFILE_CONNS=9000 go test -run TestProfile -v ./hub
//
// and write heap.pprof, goroutine.txt and (for the fan-out) cpu.pprof into
// HUB_PROFILE; read them with `go tool pprof -sample_index=inuse_space
// -top hub.test heap.pprof`. The clients share the process (and its heap
// and CPU) with the hub: the profiles tell them apart by stack, the
// figures printed count the whole process.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/store"
)

// profileHub is a hub on the fakes served like the server serves /ws, over
// a plain net/http server.
type profileHub struct {
	h      *hub.Hub
	broker *fakeBroker
	tl     *fakeTimeline
	url    string
}

func newProfileHub(t testing.TB, opt hub.Options) *profileHub {
	b, tl := newFakeBroker(), newFakeTimeline()
	opt.Logger = slog.New(slog.DiscardHandler)
	h := hub.New(b, tl, opt)
	b.h = h
	up := hub.NewUpgrader()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uid, _ := strconv.ParseInt(r.URL.Query().Get("uid"), 10, 64)
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		h.Start(ws, hub.Client{UserID: uid}, nil)
	})}
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		srv.Close()
	})
	return &profileHub{h: h, broker: b, tl: tl, url: "ws://" + l.Addr().String() + "/?uid="}
}

// profileDir is where the profiles go; the test is skipped without it.
func profileDir(t *testing.T) (dir string, conns int) {
	dir = os.Getenv("HUB_PROFILE")
	if dir == "" {
		t.Skip("HUB_PROFILE=<folder> runs the profiles")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	conns = 9000
	if s := os.Getenv("HUB_PROFILE_CONNS"); s != "" {
		conns, _ = strconv.Atoi(s)
	}
	// HUB_PROFILE_RATE=1 records every allocation, for exact bytes per
	// connection by call site (slower).
	if s := os.Getenv("HUB_PROFILE_RATE"); s != "" {
		runtime.MemProfileRate, _ = strconv.Atoi(s)
	}
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < uint64(2*conns+100) {
		t.Skipf("open-file limit %d is too low for %d connections and their clients", l.Cur, conns)
	}
	return dir, conns
}

// dialAll connects n fans (uids 1000…), each following star 1, and waits
// for each one's ready. Each fan gets a reader goroutine when read is set,
// counting the frames it gets in got.
func (ph *profileHub) dialAll(t testing.TB, n int, read bool, got *atomic.Int64) []*websocket.Conn {
	d := &websocket.Dialer{ReadBufferSize: 256, WriteBufferSize: 256}
	conns := make([]*websocket.Conn, n)
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, 1)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				uid := int64(1000 + i)
				ph.tl.follow(uid, 1)
				ws, _, err := d.Dial(ph.url+strconv.FormatInt(uid, 10), nil)
				if err == nil {
					_, _, err = ws.ReadMessage() // ready
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
				conns[i] = ws
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	t.Cleanup(func() {
		for _, ws := range conns {
			ws.Close()
		}
	})
	if read {
		for _, ws := range conns {
			go func() {
				for {
					if _, _, err := ws.ReadMessage(); err != nil {
						return
					}
					got.Add(1)
				}
			}()
		}
	}
	return conns
}

// memNow is the process's memory after a full collection.
type memNow struct{ heap, stack, rss uint64 }

func readMem() memNow {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := memNow{heap: ms.HeapInuse, stack: ms.StackInuse}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		var size, res uint64
		fmt.Sscan(string(b), &size, &res)
		m.rss = res * uint64(os.Getpagesize())
	}
	return m
}

// TestProfileIdle opens idle connections (clients without reader goroutines)
// and writes the heap and goroutine profiles with them open.
func TestProfileIdle(t *testing.T) {
	dir, n := profileDir(t)
	ph := newProfileHub(t, hub.Options{})
	before := readMem()
	g0 := runtime.NumGoroutine()
	ph.dialAll(t, n, false, nil)
	time.Sleep(time.Second)
	after := readMem()
	per := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(n) / 1024 }
	t.Logf("%d idle connections, hub and clients together: heap %.1f KiB, stacks %.1f KiB, resident %.1f KiB per connection; %.2f goroutines per connection",
		n, per(after.heap, before.heap), per(after.stack, before.stack), per(after.rss, before.rss),
		float64(runtime.NumGoroutine()-g0)/float64(n))
	writeProfile(t, filepath.Join(dir, "heap.pprof"), "heap", 0)
	writeProfile(t, filepath.Join(dir, "goroutine.txt"), "goroutine", 1)
}

// TestProfileFanOut delivers 20 posts of one star to every connection while
// the CPU profile runs.
func TestProfileFanOut(t *testing.T) {
	dir, n := profileDir(t)
	ph := newProfileHub(t, hub.Options{})
	var got atomic.Int64
	ph.dialAll(t, n, true, &got)
	f, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const posts = 20
	pprof.StartCPUProfile(f)
	start := time.Now()
	for range posts {
		p := ph.tl.add(1, "hello")
		ph.broker.publish(store.AuthorTopic(1), store.EventPost, p)
		time.Sleep(50 * time.Millisecond)
	}
	for got.Load() < int64(posts*n) && time.Since(start) < 30*time.Second {
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	pprof.StopCPUProfile()
	if got.Load() != int64(posts*n) {
		t.Fatalf("delivered %d of %d", got.Load(), posts*n)
	}
	t.Logf("%d posts to %d connections in %s", posts, n, took)
}

func writeProfile(t *testing.T, path, name string, debug int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, debug); err != nil {
		t.Fatal(err)
	}
}
