package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"microblog/server/bench/spawn"
)

// Idle connections are held by worker processes, one per server: a process
// may open no more files than its hard limit (20,000 on the development
// machine, which only CAP_SYS_RESOURCE may raise), so 50,000 connections
// take several servers and several clients. The bench starts its own
// executable as a worker with workerEnv set, and talks to it in lines of
// JSON over stdin and stdout.
const workerEnv = "LOADTEST_WORKER"

// workerOrder asks a worker to connect more fans to a server.
type workerOrder struct {
	URL    string    `json:"url"`
	Source string    `json:"source"` // loopback address to connect from
	Fans   []account `json:"fans"`
}

// workerReply says how it went.
type workerReply struct {
	Connected int    `json:"connected"` // the worker's open connections
	Err       string `json:"error,omitempty"`
}

// workerMain is a worker's life: connect the fans of each order, keep
// reading their sockets (so that pings are answered), and close them all
// when stdin ends.
func workerMain() error {
	if _, err := raiseFileLimit(); err != nil {
		return err
	}
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	lt := newLoadTest(32, os.Stderr, 0) // stdout is the bench's
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var o workerOrder
		if err := json.Unmarshal(in.Bytes(), &o); err != nil {
			return err
		}
		more, err := lt.connect(o.URL, o.Source, kindNative, o.Fans, func(c *websocket.Conn) {
			go func() {
				for {
					if _, _, err := c.NextReader(); err != nil {
						return
					}
				}
			}()
		})
		rep := workerReply{}
		if err != nil {
			rep.Err = err.Error()
		}
		conns = append(conns, more...)
		rep.Connected = len(conns)
		if err := out.Encode(rep); err != nil {
			return err
		}
	}
	return in.Err()
}

// worker is the bench's end of a worker process.
type worker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

func startWorker() (*worker, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = spawn.OrphanKill()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	return &worker{cmd: cmd, in: in, out: json.NewDecoder(out)}, nil
}

// connect has the worker connect fans to the server at url and waits for it.
func (w *worker) connect(url, source string, fans []account) error {
	if err := json.NewEncoder(w.in).Encode(workerOrder{URL: url, Source: source, Fans: fans}); err != nil {
		return err
	}
	var rep workerReply
	if err := w.out.Decode(&rep); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if rep.Err != "" {
		return errors.New(rep.Err)
	}
	return nil
}

// stop closes the worker's connections and waits for it to exit.
func (w *worker) stop() {
	w.in.Close()
	done := make(chan struct{})
	go func() { w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		w.cmd.Process.Kill()
		<-done
	}
}

// idleStep is the servers' memory with n idle connections.
type idleStep struct {
	Conns   int     `json:"connections"`
	Servers int     `json:"server_processes"`
	Seconds float64 `json:"connect_seconds"` // to open this step's new connections
	// Total is what the servers' memory grew by since they started, per
	// connection in PerConn (bytes).
	Total   memory `json:"total_bytes"`
	PerConn memory `json:"per_connection_bytes"`
}

// idleResult is the memory curve of one server build.
type idleResult struct {
	Label string     `json:"label"`
	Steps []idleStep `json:"steps"`
}

// idleCurve connects fans (who follow an author each and have nothing
// posted to them) in steps, to steps[i] connections in all, filling one
// fresh server process after another with at most perProc each, and reads
// the servers' memory once each step has settled.
func idleCurve(label, bin, redisURL, dir string, fans []account, steps []int, perProc int, sources *sourceAddrs, lt *loadTest) (idleResult, error) {
	res := idleResult{Label: label}
	type slot struct {
		srv  *spawn.Proc
		w    *worker
		base memory
		n    int
		src  string
	}
	var slots []*slot
	defer func() {
		var wg sync.WaitGroup
		for _, s := range slots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.w != nil {
					s.w.stop()
				}
				s.srv.Stop()
			}()
		}
		wg.Wait()
	}()
	next := 0 // fans[next] is the next to connect
	for _, target := range steps {
		if target > len(fans) {
			return res, fmt.Errorf("%d idle connections need as many fans; there are %d", target, len(fans))
		}
		start := time.Now()
		for next < target {
			if len(slots) == 0 || slots[len(slots)-1].n == perProc {
				srv, err := spawn.StartServer(fmt.Sprintf("%s server %d", label, len(slots)+1), bin, redisURL, dir)
				if err != nil {
					return res, err
				}
				s := &slot{srv: srv, src: sources.next()}
				slots = append(slots, s)
				// A server just started still gives memory back for a
				// moment; the baseline is taken once it has settled.
				time.Sleep(2 * lt.settle)
				if s.base, err = lt.settledMemory(srv.URL); err != nil {
					return res, err
				}
				if s.w, err = startWorker(); err != nil {
					return res, err
				}
			}
			s := slots[len(slots)-1]
			k := min(target-next, perProc-s.n)
			if err := s.w.connect(s.srv.URL, s.src, fans[next:next+k]); err != nil {
				return res, fmt.Errorf("%s: %w", s.srv.Name, err)
			}
			s.n += k
			next += k
		}
		step := idleStep{Conns: target, Servers: len(slots), Seconds: time.Since(start).Seconds()}
		for _, s := range slots {
			m, err := lt.settledMemory(s.srv.URL)
			if err != nil {
				return res, err
			}
			step.Total = step.Total.plus(m.minus(s.base))
		}
		n := float64(target)
		step.PerConn = memory{step.Total.RSS / n, step.Total.Heap / n, step.Total.Stack / n}
		fmt.Fprintf(lt.out, "  %6d idle connections on %d server process(es): %5.1f KiB resident per connection (Go heap %.1f KiB, stacks %.1f KiB), connected in %.1f s\n",
			target, len(slots), step.PerConn.RSS/1024, step.PerConn.Heap/1024, step.PerConn.Stack/1024, step.Seconds)
		res.Steps = append(res.Steps, step)
	}
	return res, nil
}

// sourceAddrs hands out loopback addresses to connect from, one per group
// of connections, so that each group has its own ephemeral ports (about
// 28,000 per address and server).
type sourceAddrs struct {
	mu sync.Mutex
	n  int
}

func (s *sourceAddrs) next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return fmt.Sprintf("127.0.0.%d", 1+s.n)
}

// raiseFileLimit lifts RLIMIT_NOFILE to its hard limit: every fan is a
// socket. The hard limit itself takes CAP_SYS_RESOURCE to raise, which
// the bench does not assume: it spreads connections over processes.
func raiseFileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	l.Cur = l.Max
	return l.Cur, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}
