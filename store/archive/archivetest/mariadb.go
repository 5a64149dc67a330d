package archivetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// notInstalled is the failure when no MariaDB server can be found.
const notInstalled = "MariaDB is not installed (no mariadbd or mysqld with mariadb-install-db or mysql_install_db): " +
	"run make test, which installs it, or apt-get install mariadb-server"

// Server options: small buffers, since a test database holds little, and
// no binary log, since nothing replicates from it. Durability stays the
// default (a commit is flushed), so that benchmarks measure what a real
// server would do.
var serverOptions = []string{
	"--innodb-buffer-pool-size=64M",
	"--innodb-log-file-size=32M",
	"--skip-log-bin",
	"--skip-name-resolve",
	"--max-connections=1000",
	// Mroonga, for the search index (migrations/mysql/005_search.sql).
	"--plugin-load-add=ha_mroonga",
}

// Server is one mariadbd started for tests, its data in Dir.
type Server struct {
	Port int
	Dir  string

	cmd     *exec.Cmd
	exited  chan struct{} // closed once the server process is gone
	waitErr error         // how it ended, once exited is closed
	admin   *sql.DB       // root, no database, for CREATE DATABASE

	mu sync.Mutex
	n  int // databases created, to name the next one
}

// StartMariaDB starts a server for t alone and stops it when t ends, for
// tests that must stop or kill it, and benchmarks that need more of it
// (options are added to the server's, such as a larger buffer pool). It
// fails the test (never skips it) when MariaDB is not installed.
func StartMariaDB(t testing.TB, options ...string) *Server {
	t.Helper()
	s, err := start(options...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// start installs a data folder and starts a server on it, as root with
// --skip-grant-tables: any user may do anything, which is all a throwaway
// server needs. It tries three times, since another process may take the
// free port it picked before the server binds it.
func start(options ...string) (*Server, error) {
	server, ok1 := lookPath("mariadbd", "mysqld")
	install, ok2 := lookPath("mariadb-install-db", "mysql_install_db")
	if !ok1 || !ok2 {
		return nil, errors.New(notInstalled)
	}
	var errs []error
	for range 3 {
		// A short folder: a Unix socket's path may not exceed about 100 bytes.
		dir, err := os.MkdirTemp("", "mariadb-")
		if err != nil {
			return nil, err
		}
		s := &Server{Dir: dir, exited: make(chan struct{})}
		err = s.run(install, server, append(slices.Clone(serverOptions), options...))
		if err == nil {
			return s, nil
		}
		s.Stop()
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func (s *Server) run(install, server string, options []string) error {
	data := filepath.Join(s.Dir, "data")
	var user []string
	if os.Geteuid() == 0 {
		user = []string{"--user=root"} // mariadbd refuses to run as root without it
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal",
		"--skip-test-db"}, user...)
	if out, err := exec.Command(install, append(args, options...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", install, err, out)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	s.Port = port
	args = append([]string{"--no-defaults", "--datadir=" + data,
		"--socket=" + filepath.Join(s.Dir, "sock"), "--pid-file=" + filepath.Join(s.Dir, "pid"),
		"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--skip-grant-tables",
		"--tmpdir=" + s.Dir, "--log-error=" + filepath.Join(s.Dir, "error.log")}, user...)
	s.cmd = exec.Command(server, append(args, options...)...)
	if err := s.startCmd(); err != nil {
		return fmt.Errorf("start %s: %w", server, err)
	}

	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Timeout = "tcp", s.Addr(), "root", time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return err
	}
	s.admin = sql.OpenDB(conn)
	return s.waitReady(server)
}

// waitReady waits until the server answers, or fails with its log.
func (s *Server) waitReady(server string) error {
	deadline := time.Now().Add(time.Minute) // against a hang: a busy machine starts several at once
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := s.admin.PingContext(ctx)
		cancel()
		if !s.Running() {
			return fmt.Errorf("%s exited at start (%v):\n%s", server, s.waitErr, s.logTail())
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer on %s: %v\n%s", server, s.Addr(), err, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startCmd starts s.cmd and waits for it in the background. The kernel kills
// the server when the thread that started it ends (killWithParent), so that
// thread stays locked to the goroutine that waits as long as the server runs.
func (s *Server) startCmd() error {
	killWithParent(s.cmd)
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := s.cmd.Start()
		started <- err
		if err == nil {
			s.waitErr = s.cmd.Wait()
		}
		close(s.exited)
	}()
	return <-started
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// NewDatabase creates an empty database for t, dropped when t ends if the
// server still runs, and returns its DSN. Its default character set is the
// server's, latin1, so that tests show the archive does not rely on it.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("t%d_%s", s.n, unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "_"))
	s.mu.Unlock()
	name = name[:min(len(name), 64)]
	if !s.Running() {
		t.Fatalf("the MariaDB server on %s is gone (%v):\n%s", s.Addr(), s.waitErr, s.logTail())
	}
	if _, err := s.admin.Exec("CREATE DATABASE `" + name + "`"); err != nil {
		t.Fatalf("create database %s on %s: %v\n%s", name, s.Addr(), err, s.logTail())
	}
	t.Cleanup(func() {
		if s.Running() {
			s.admin.Exec("DROP DATABASE IF EXISTS `" + name + "`")
		}
	})
	return fmt.Sprintf("mysql://root@%s/%s", s.Addr(), name)
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// logTail is the end of the server's error log, for failure messages.
func (s *Server) logTail() string {
	log, _ := os.ReadFile(filepath.Join(s.Dir, "error.log"))
	return string(log[max(0, len(log)-4000):])
}

// Running tells whether the server process is still there.
func (s *Server) Running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return s.cmd != nil
	}
}

// Restart starts a killed server again, on the same port and data, as an
// operator bringing the database back would.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	s.cmd = exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
	s.exited, s.waitErr = make(chan struct{}), nil
	if err := s.startCmd(); err != nil {
		t.Fatalf("restart %s: %v", s.cmd.Path, err)
	}
	if err := s.waitReady(s.cmd.Path); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the server at once, as a crash would; its data stays in Dir.
func (s *Server) Kill() {
	if s.Running() {
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// Freeze stops the server with SIGSTOP, as a hung machine or a stalled
// disk would: it keeps its connections and port but answers nothing, so
// that clients wait for their timeouts rather than fail at once. Thaw
// resumes it; a frozen server left at the end is killed by Stop.
func (s *Server) Freeze(t testing.TB) {
	t.Helper()
	if err := pause(s.cmd.Process, true); err != nil {
		t.Fatal(err)
	}
}

// Thaw resumes a frozen server.
func (s *Server) Thaw(t testing.TB) {
	t.Helper()
	if err := pause(s.cmd.Process, false); err != nil {
		t.Fatal(err)
	}
}

// Stop kills the server and removes its data.
func (s *Server) Stop() {
	s.Kill()
	if s.admin != nil {
		s.admin.Close()
	}
	os.RemoveAll(s.Dir)
}

// lookPath finds the first of names on PATH or in the sbin folders, which a
// user's PATH may lack.
func lookPath(names ...string) (string, bool) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, true
		}
		for _, dir := range []string{"/usr/sbin", "/usr/local/sbin"} {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
				return p, true
			}
		}
	}
	return "", false
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
