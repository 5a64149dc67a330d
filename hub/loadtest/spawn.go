package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a process the bench started: redis-server or a server.
type proc struct {
	name string
	cmd  *exec.Cmd
	url  string // a server's base URL, http://127.0.0.1:port
	logs *tailBuffer
	done chan struct{} // closed when the process has exited
}

// startRedis starts a throwaway redis-server on a free loopback port, with
// nothing saved, and returns it and its URL.
func startRedis(bin, dir string) (*proc, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	p, err := startProc("redis-server", exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"))
	if err != nil {
		return nil, "", err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			fmt.Fprint(c, "PING\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return p, "redis://" + addr + "/0", nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, "", fmt.Errorf("redis-server did not answer on %s:\n%s", addr, p.logs)
		}
	}
}

// serverEnv is the environment of a server under test: loopback only,
// rate limits and connection caps off (the load comes from one address),
// fast password hashing for the sign-ups, no archive (the live feed is
// measured, not the SQL archive), warnings only.
func serverEnv(redisURL, addr, dir string) []string {
	return append(os.Environ(),
		"REDIS_URL="+redisURL,
		"MICROBLOG_ADDR="+addr,
		"MICROBLOG_RATE_LIMITS=off",
		"MICROBLOG_MAX_CONNS_PER_IP=0",
		"MICROBLOG_WS_MAX_PER_IP=0",
		"MICROBLOG_WS_MAX_PER_USER=0",
		"MICROBLOG_BCRYPT_COST=4",
		"MICROBLOG_LOG_LEVEL=warn",
		"MICROBLOG_ARCHIVE=off",
		"MICROBLOG_MEDIA_DIR="+filepath.Join(dir, "media"),
	)
}

// startServer starts the server binary bin on a free loopback port and
// waits until it is ready.
func startServer(name, bin, redisURL, dir string) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(bin)
	cmd.Env = serverEnv(redisURL, addr, dir)
	p, err := startProc(name, cmd)
	if err != nil {
		return nil, err
	}
	p.url = "http://" + addr
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(p.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited at start:\n%s", name, p.logs)
		default:
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s not ready on %s:\n%s", name, addr, p.logs)
		}
	}
}

func startProc(name string, cmd *exec.Cmd) (*proc, error) {
	p := &proc{name: name, cmd: cmd, logs: &tailBuffer{max: 8 << 10}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	cmd.SysProcAttr = orphanKill()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stop asks the process to end (SIGINT: the server closes its sockets
// cleanly) and kills it if it has not after 15 s.
func (p *proc) stop() {
	if p == nil {
		return
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// cpu is the CPU time the process has used so far.
func (p *proc) cpu() time.Duration { return procCPU(strconv.Itoa(p.cmd.Process.Pid)) }

// procCPU reads the user and system time of a process ("self" for this one)
// from /proc.
func procCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// the bench runs on.
const clockTicks = 100

// machineCPU is the busy and total CPU time of the whole machine, from
// /proc/stat, to tell how much of the machine other processes took.
func machineCPU() (busy, total time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	for i, s := range f[1:] {
		v, _ := strconv.ParseInt(s, 10, 64)
		d := time.Duration(v) * time.Second / clockTicks
		if i < 8 { // user nice system idle iowait irq softirq steal
			total += d
			if i != 3 && i != 4 {
				busy += d
			}
		}
	}
	return busy, total
}

// memory is what a server's /metrics says about its memory.
type memory struct{ RSS, Heap, Stack float64 }

func (m memory) minus(o memory) memory {
	return memory{m.RSS - o.RSS, m.Heap - o.Heap, m.Stack - o.Stack}
}

func (m memory) plus(o memory) memory {
	return memory{m.RSS + o.RSS, m.Heap + o.Heap, m.Stack + o.Stack}
}

// serverMemory reads a server's resident memory, Go heap in use and
// goroutine stacks in use from its /metrics.
func serverMemory(client *http.Client, base string) (memory, error) {
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return memory{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m memory
	for _, line := range strings.Split(string(b), "\n") {
		for prefix, v := range map[string]*float64{
			"process_resident_memory_bytes ": &m.RSS,
			"go_memstats_heap_inuse_bytes ":  &m.Heap,
			"go_memstats_stack_inuse_bytes ": &m.Stack,
		} {
			if s, ok := strings.CutPrefix(line, prefix); ok {
				*v, _ = strconv.ParseFloat(s, 64)
			}
		}
	}
	if m.RSS == 0 {
		return m, errors.New("no process_resident_memory_bytes in " + base + "/metrics")
	}
	return m, nil
}

// settledMemory waits for a server that just took connections to settle
// (its resident memory changing by less than 1% in a second, at most 10 s)
// and returns its memory then.
func settledMemory(client *http.Client, base string) (memory, error) {
	prev, err := serverMemory(client, base)
	if err != nil {
		return prev, err
	}
	for range 10 {
		time.Sleep(time.Second)
		m, err := serverMemory(client, base)
		if err != nil {
			return m, err
		}
		if d := m.RSS - prev.RSS; d < 0.01*prev.RSS && d > -0.01*prev.RSS {
			return m, nil
		}
		prev = m
	}
	return prev, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// orphanKill makes a child process die with the bench, however the bench
// ends (a timeout, Ctrl-C, a crash).
func orphanKill() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
