// Package storetest starts throwaway redis-server processes for tests: each on
// a free loopback port, in a temporary directory, stopped when the test ends.
// Tests never touch a Redis that may hold real data.
package storetest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is one redis-server started for a test.
type Redis struct {
	t    testing.TB
	Port int
	// BusPort is a cluster node's cluster bus port, 0 for a plain server.
	BusPort int
	Dir     string
	// Password is the requirepass of the server, empty for none.
	Password string
	args     []string
	tls      *tls.Config // set by StartTLS
	cmd      *exec.Cmd
	proc     *redisProc // cmd's process, while it runs
	// release gives back the ports reserved for the server (ports.go),
	// once the test is over: they stay reserved while it is down.
	release []func()
}

// Start starts a redis-server for t and stops it when t ends. It fails the
// test (never skips it) when redis-server is not installed.
func Start(t testing.TB) *Redis { return StartWith(t) }

// StartWith is Start with extra redis-server arguments, such as
// "--requirepass", "secret" (which also sets Password). They come after
// launch's own, so they override them: a test that wants Redis out of
// memory passes "--maxmemory" itself, and says so.
func StartWith(t testing.TB, args ...string) *Redis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed (apt-get install redis-server, or run make test, which installs it): %v", err)
	}
	r := &Redis{t: t, Dir: t.TempDir(), args: args}
	for i, a := range args {
		if a == "--requirepass" && i+1 < len(args) {
			r.Password = args[i+1]
		}
	}
	t.Cleanup(r.releasePorts) // after Stop
	if err := r.launchOnFreePorts(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// releasePorts gives back the ports reserved for the server.
func (r *Redis) releasePorts() {
	for _, f := range r.release {
		f()
	}
	r.release = nil
}

// reserve picks a port for the server and keeps it for the test.
func (r *Redis) reserve() (int, error) {
	port, release, err := reservePort()
	if err == nil {
		r.release = append(r.release, release)
	}
	return port, err
}

// launchOnFreePorts launches the server on ports that were free a moment
// ago: its own and, for a cluster node, its cluster bus port, which is
// chosen too rather than left at port+10000, where anything may be. Another
// process can take a port between the choice and the bind (on a busy
// machine running many tests at once, it happens): then it tries new ports,
// a few times.
func (r *Redis) launchOnFreePorts() error {
	var err error
	for range 5 {
		r.releasePorts()
		if r.Port, err = r.reserve(); err != nil {
			return err
		}
		if slices.Contains(r.args, "--cluster-enabled") {
			if r.BusPort, err = r.reserve(); err != nil {
				return err
			}
		}
		if err = r.launch(); err == nil || !errors.Is(err, errPortTaken) {
			return err
		}
	}
	return err
}

// errPortTaken is launch's error when redis-server could not bind its ports.
var errPortTaken = errors.New("a port was taken")

func pickPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Addr is host:port of the server.
func (r *Redis) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// URL is the redis:// URL of the server's database 0, with the password if any.
func (r *Redis) URL() string {
	if r.Password != "" {
		u := url.URL{Scheme: "redis", User: url.UserPassword("", r.Password), Host: r.Addr(), Path: "/0"}
		return u.String()
	}
	return "redis://" + r.Addr() + "/0"
}

// Client returns a new client of the server, closed when the test ends.
func (r *Redis) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), Password: r.Password, TLSConfig: r.tls})
	r.t.Cleanup(func() { c.Close() })
	return c
}

func (r *Redis) start() {
	r.t.Helper()
	if err := r.launch(); err != nil {
		r.t.Fatal(err)
	}
}

// launch starts the server process and waits until it answers. The server
// has no memory limit (maxmemory 0, said outright rather than left to the
// build's default), so that no test meets "OOM command not allowed" unless
// it asked for it with StartWith. Its append-only file is written at every
// turn of its loop and never fsynced (appendfsync no): a test's SIGKILL
// loses nothing the kernel has, where everysec, with a slow background
// fsync on a busy disk, holds writes back for up to 2 s, and a restart then
// lost a session written just before the kill (TestRedisDownAnswers503).
func (r *Redis) launch() error {
	port := []string{"--port", strconv.Itoa(r.Port)}
	if r.tls != nil {
		port = nil // StartTLS's arguments name the TLS port
	}
	if r.BusPort != 0 {
		port = append(port, "--cluster-port", strconv.Itoa(r.BusPort))
	}
	r.cmd = exec.Command("redis-server", append(port, "--bind", "127.0.0.1",
		"--dir", r.Dir, "--save", "", "--appendonly", "yes", "--appendfsync", "no",
		"--maxclients", "20000", "--maxmemory", "0", "--loglevel", "warning",
		"--logfile", filepath.Join(r.Dir, "redis.log"))...)
	r.cmd.Args = append(r.cmd.Args, r.args...)
	if err := r.cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	r.proc = watch(r.cmd, r.Addr(), filepath.Join(r.Dir, "redis.log"))
	// The deadline only guards against a hang: a server that cannot start
	// says so in its log and exits, which ends the wait at once.
	deadline := time.Now().Add(60 * time.Second)
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), Password: r.Password, TLSConfig: r.tls, MaxRetries: -1})
	defer c.Close()
	logFile := filepath.Join(r.Dir, "redis.log")
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		log, _ := os.ReadFile(logFile)
		if bytes.Contains(log, []byte("Address already in use")) {
			r.Stop()
			os.Remove(logFile)
			return fmt.Errorf("redis-server on %s: %w\n%s", r.Addr(), errPortTaken, log)
		}
		if bytes.Contains(log, []byte("aborting")) || time.Now().After(deadline) {
			return fmt.Errorf("redis-server did not answer on %s: %v\n%s", r.Addr(), err, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop kills the server; data written with appendonly stays in Dir.
func (r *Redis) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.proc.stopping.Store(true)
	r.cmd.Process.Kill()
	<-r.proc.exited
	r.cmd, r.proc = nil, nil
}

// Pause freezes the server (SIGSTOP), as a machine that stalls: it takes
// connections but answers nothing, and as a replica it takes no more of
// its master's writes, until Resume. Stop still kills it.
func (r *Redis) Pause() {
	r.t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		r.t.Fatalf("pause %s: %v", r, err)
	}
}

// Resume lets a paused server go on (SIGCONT).
func (r *Redis) Resume() {
	r.t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		r.t.Fatalf("resume %s: %v", r, err)
	}
}

// redisProc is a running redis-server, waited for as soon as it starts, so
// that one that exits without Stop (a crash, a kill from elsewhere) says so
// on the test's output with the end of its log, rather than leaving a test
// to find its port refused with no reason given.
type redisProc struct {
	exited   chan struct{}
	stopping atomic.Bool
}

func watch(cmd *exec.Cmd, addr, logFile string) *redisProc {
	p := &redisProc{exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		if !p.stopping.Load() {
			log, _ := os.ReadFile(logFile)
			fmt.Fprintf(os.Stderr, "storetest: redis-server on %s (pid %d) exited by itself: %v; its log ends:\n%s\n",
				addr, cmd.Process.Pid, err, log[max(0, len(log)-2000):])
		}
		close(p.exited)
	}()
	return p
}

// Restart stops the server and starts it again on the same port and data,
// as an operator restarting Redis would.
func (r *Redis) Restart() { r.RestartAfter(0) }

// RestartAfter is Restart with the server down for d in between, long enough
// for clients that back off between reconnections to back off further.
func (r *Redis) RestartAfter(d time.Duration) {
	r.t.Helper()
	r.Stop()
	time.Sleep(d)
	r.start()
}

// String describes the server for logs.
func (r *Redis) String() string { return fmt.Sprintf("redis-server at %s (dir %s)", r.Addr(), r.Dir) }
