// Package spawn starts the processes a benchmark measures, on this machine
// and over loopback only: a throwaway redis-server and server builds, each
// on a free port and dying with the benchmark; it reads the CPU time they
// use from /proc, and calls the server's API as its users do. The live
// feed's load test (live) and the seeds' own benchmark (seed) share it.
// It also holds what the harnesses' flags have in common (flags.go): the
// command line that repeats a run, the check that counts are positive,
// -env and -timeout.
package spawn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is a process the benchmark started: redis-server or a server.
type Proc struct {
	Name string
	URL  string // a server's base URL, http://127.0.0.1:port
	cmd  *exec.Cmd
	logs *tailBuffer
	done chan struct{} // closed when the process has exited
}

// StartRedis starts a throwaway redis-server on a free loopback port, with
// nothing saved, and returns it and its URL.
func StartRedis(bin, dir string) (*Proc, string, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, "", err
	}
	_, port, _ := net.SplitHostPort(addr)
	p, err := Start("redis-server", exec.Command(bin, "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"))
	if err != nil {
		return nil, "", err
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) { // against a hang only
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
			p.Stop()
			return nil, "", fmt.Errorf("redis-server did not answer on %s:\n%s", addr, p.Logs())
		}
	}
}

// ServerEnv is the environment of a server under test: loopback only,
// rate limits and connection caps off (the load comes from one address),
// fast password hashing for the sign-ups, no archive (the live feed is
// measured, not the SQL archive), warnings only.
func ServerEnv(redisURL, addr, dir string) []string {
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

// StartServer starts the server binary bin on a free loopback port with
// ServerEnv, and waits until it is ready. Each of env, "NAME=value",
// replaces ServerEnv's setting of that name (os/exec keeps the last).
func StartServer(name, bin, redisURL, dir string, env ...string) (*Proc, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(ServerEnv(redisURL, addr, dir), env...)
	return StartHTTP(name, cmd, addr)
}

// StartHTTP starts cmd, which serves HTTP on addr, and waits until its
// /readyz answers 200.
func StartHTTP(name string, cmd *exec.Cmd, addr string) (*Proc, error) {
	p, err := Start(name, cmd)
	if err != nil {
		return nil, err
	}
	p.URL = "http://" + addr
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) { // against a hang only
		if resp, err := client.Get(p.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited at start:\n%s", name, p.Logs())
		default:
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("%s not ready on %s:\n%s", name, addr, p.Logs())
		}
	}
}

// Start starts cmd, keeping the tail of its output for error messages, and
// makes it die with the benchmark. Output also goes to cmd.Stdout if set
// (a log file kept whole).
func Start(name string, cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{Name: name, cmd: cmd, logs: &tailBuffer{max: 8 << 10}, done: make(chan struct{})}
	var out io.Writer = p.logs
	if cmd.Stdout != nil {
		out = io.MultiWriter(p.logs, cmd.Stdout)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = OrphanKill()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Stop asks the process to end (SIGINT: the server closes its sockets
// cleanly) and kills it if it has not after 15 s.
func (p *Proc) Stop() {
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

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// Logs is the last 8 KiB the process wrote to stdout and stderr.
func (p *Proc) Logs() string { return p.logs.String() }

// CPU is the CPU time the process has used so far.
func (p *Proc) CPU() time.Duration { return ProcCPU(strconv.Itoa(p.Pid())) }

// ProcCPU reads the user and system time of a process ("self" for this one)
// from /proc; 0 if it cannot.
func ProcCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	ticks, err := ParseStatTicks(b)
	if err != nil {
		return 0
	}
	return TicksToDuration(ticks)
}

// ParseStatTicks reads utime+stime, in clock ticks, from the text of
// /proc/<pid>/stat.
func ParseStatTicks(stat []byte) (int64, error) {
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name in /proc stat %q", stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat %q", stat)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("utime and stime of /proc stat %q", stat)
	}
	return ut + st, nil
}

// TicksToDuration turns clock ticks of /proc into time.
func TicksToDuration(ticks int64) time.Duration {
	return time.Duration(ticks) * time.Second / time.Duration(ClockTicks())
}

// ClockTicks is USER_HZ, the unit of /proc's CPU times, as getconf CLK_TCK
// says; 100, what every Linux the benchmarks run on uses, if it cannot.
var ClockTicks = sync.OnceValue(func() int64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && perr == nil && n > 0 {
		return n
	}
	return 100
})

// LoadAvg is the machine's load average over 1, 5 and 15 minutes, as
// /proc/loadavg has it ("?" where it cannot be read).
func LoadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// MachineCPU is the busy and total CPU time of the whole machine, from
// /proc/stat, to tell how much of the machine other processes took.
func MachineCPU() (busy, total time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	for i, s := range f[1:] {
		v, _ := strconv.ParseInt(s, 10, 64)
		d := TicksToDuration(v)
		if i < 8 { // user nice system idle iowait irq softirq steal
			total += d
			if i != 3 && i != 4 {
				busy += d
			}
		}
	}
	return busy, total
}

// ServerBinary is the server build a smoke test runs: the one that
// $BENCH_SERVER names (make test-bench passes make build's bin/microblog),
// or else one built from the repository at root into dir.
func ServerBinary(root, dir string) (string, error) {
	if bin := os.Getenv("BENCH_SERVER"); bin != "" {
		return filepath.Abs(bin)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "microblog")
	cmd := exec.Command(gobin, "build", "-o", bin, "./server")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the server: %w\n%s", err, out)
	}
	return bin, nil
}

// Call makes one request of the server's JSON API at base, as its users
// do (token, if set, is their session's), and decodes the answer into
// out, unless it is nil; any status but want is an error.
func Call(client *http.Client, base, method, path, token string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// FreeAddr is a loopback address, 127.0.0.1:port, with a port nothing
// listens on now.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
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

// OrphanKill makes a child process die with the benchmark, however the
// benchmark ends (a timeout, Ctrl-C, a crash).
func OrphanKill() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// Build is a server binary under a label, one of those a benchmark
// compares side by side.
type Build struct{ Label, Path string }

// ParseBuilds reads a -server flag: a path (labelled def), or label=path
// pairs separated by commas. Paths are made absolute.
func ParseBuilds(s, def string) ([]Build, error) {
	var bs []Build
	for _, f := range strings.Split(s, ",") {
		label, path, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			label, path = def, label
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("-server: %w", err)
		}
		bs = append(bs, Build{label, abs})
	}
	return bs, nil
}
