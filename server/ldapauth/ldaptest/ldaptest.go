// Package ldaptest starts Debian's slapd for tests: a throwaway OpenLDAP
// server on a free loopback port, its configuration and mdb database in a
// temporary folder, loaded from an LDIF with a few people. Tests fail
// (never skip) when slapd is not installed; make test installs it.
package ldaptest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// notInstalled is the failure when slapd cannot be found.
const notInstalled = "slapd is not installed (no /usr/sbin/slapd, slapadd and slappasswd): " +
	"run make test, which installs it, or apt-get install slapd ldap-utils"

// The directory the server holds.
const (
	Suffix = "dc=example,dc=edu"
	People = "ou=people," + Suffix
	// ReaderDN and ReaderPassword are the service account that may search.
	ReaderDN       = "cn=reader," + Suffix
	ReaderPassword = "reader-secret"
)

// Passwords are the people of ou=people, uid → password: alice's is stored
// as {SSHA} (made by slappasswd), bob's in the clear, as directories hold
// both; "carol smith" has a space in her uid.
var Passwords = map[string]string{
	"alice":       "alice-password-1",
	"bob":         "bob-password-1",
	"carol smith": "carol-password-1",
}

// Server is one slapd started for tests.
type Server struct {
	Port int
	Dir  string

	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a server for t and stops it when t ends. With
// anonymousBinds, the server also takes a bind with a name and an empty
// password as an anonymous one (slapd's "allow bind_anon_dn"), as many
// directories do, so that tests can show the client never sends one.
func Start(t testing.TB, anonymousBinds bool) *Server {
	t.Helper()
	for _, tool := range []string{slapd, slapadd, slappasswd} {
		if _, err := os.Stat(tool); err != nil {
			t.Fatal(notInstalled)
		}
	}
	var errs []error
	for range 3 { // another process may take the free port before slapd binds it
		s, err := start(anonymousBinds)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		errs = append(errs, err)
	}
	t.Fatal(errors.Join(errs...))
	return nil
}

const (
	slapd      = "/usr/sbin/slapd"
	slapadd    = "/usr/sbin/slapadd"
	slappasswd = "/usr/sbin/slappasswd"
)

func start(anonymousBinds bool) (*Server, error) {
	dir, err := os.MkdirTemp("", "slapd-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, exited: make(chan struct{})}
	if err := s.run(anonymousBinds); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) run(anonymousBinds bool) error {
	conf := filepath.Join(s.Dir, "slapd.conf")
	if err := os.Mkdir(filepath.Join(s.Dir, "data"), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(conf, []byte(config(s.Dir, anonymousBinds)), 0o600); err != nil {
		return err
	}
	ssha, err := exec.Command(slappasswd, "-s", Passwords["alice"]).Output()
	if err != nil {
		return fmt.Errorf("slappasswd: %w", err)
	}
	ldif := filepath.Join(s.Dir, "people.ldif")
	if err := os.WriteFile(ldif, []byte(people(strings.TrimSpace(string(ssha)))), 0o600); err != nil {
		return err
	}
	if out, err := exec.Command(slapadd, "-q", "-f", conf, "-l", ldif).CombinedOutput(); err != nil {
		return fmt.Errorf("slapadd: %v\n%s", err, out)
	}
	if s.Port, err = freePort(); err != nil {
		return err
	}
	s.cmd = exec.Command(slapd, "-f", conf, "-h", s.URL()+"/", "-d", "0")
	log, err := os.Create(filepath.Join(s.Dir, "slapd.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.startCmd(); err != nil {
		return fmt.Errorf("start slapd: %w", err)
	}
	return s.waitReady()
}

// config is the slapd.conf of a server in dir: the schemas inetOrgPerson
// needs, one mdb database, and access rules as a directory holds them
// (passwords used for binds only, never read).
func config(dir string, anonymousBinds bool) string {
	allow := ""
	if anonymousBinds {
		allow = "allow bind_anon_dn\n"
	}
	return `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile ` + filepath.Join(dir, "slapd.pid") + `
argsfile ` + filepath.Join(dir, "slapd.args") + `
` + allow + `
database mdb
maxsize 16777216
suffix "` + Suffix + `"
rootdn "cn=admin,` + Suffix + `"
directory ` + filepath.Join(dir, "data") + `
access to attrs=userPassword by anonymous auth by * none
access to * by * read
`
}

// people is the LDIF of the directory, alice's password hash given.
func people(aliceHash string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: Example University\ndc: example\n\n", Suffix)
	fmt.Fprintf(&b, "dn: %s\nobjectClass: organizationalUnit\nou: people\n\n", People)
	fmt.Fprintf(&b, "dn: %s\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: %s\n\n", ReaderDN, ReaderPassword)
	for _, uid := range []string{"alice", "bob", "carol smith"} {
		pw := Passwords[uid]
		if uid == "alice" {
			pw = aliceHash
		}
		first, _, _ := strings.Cut(uid, " ")
		fmt.Fprintf(&b, "dn: uid=%s,%s\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s\nsn: %s\nmail: %s@example.edu\nuserPassword: %s\n\n",
			uid, People, uid, uid, uid, first, pw)
	}
	return b.String()
}

// startCmd starts s.cmd and waits for it in the background. The kernel
// kills slapd when the thread that started it ends (killWithParent), so
// that thread stays locked to the goroutine that waits as long as it runs.
func (s *Server) startCmd() error {
	killWithParent(s.cmd)
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := s.cmd.Start()
		started <- err
		if err == nil {
			s.cmd.Wait()
		}
		close(s.exited)
	}()
	return <-started
}

// waitReady waits until slapd accepts connections, or fails with its log.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(time.Minute) // against a hang: a busy machine starts several at once
	for {
		c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if !s.Running() {
			return fmt.Errorf("slapd exited at start:\n%s", s.logTail())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slapd did not answer on %s: %v\n%s", s.Addr(), err, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logTail is the end of slapd's log, for failure messages.
func (s *Server) logTail() string {
	log, _ := os.ReadFile(filepath.Join(s.Dir, "slapd.log"))
	return string(log[max(0, len(log)-4000):])
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// URL is the server's ldap:// URL.
func (s *Server) URL() string { return "ldap://" + s.Addr() }

// Running tells whether slapd is still there.
func (s *Server) Running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return s.cmd != nil
	}
}

// Kill kills slapd at once, as a crash would: the directory is down.
func (s *Server) Kill() {
	if s.Running() {
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// Stop kills slapd and removes its folder.
func (s *Server) Stop() {
	s.Kill()
	os.RemoveAll(s.Dir)
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
