// Package smtptest starts a real SMTP server for tests: Debian's
// python3-aiosmtpd on a free loopback port (folder.py), plain or with
// STARTTLS and AUTH required, writing each message it takes into a
// temporary folder, where tests read it. Tests fail (never skip) when aiosmtpd is not installed; make
// test installs it.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	_ "embed"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"microblog/store/storetest"
)

//go:embed folder.py
var folderPy []byte

// python is Debian's Python, under which its python3-aiosmtpd loads.
const python = "/usr/bin/python3"

const notInstalled = "aiosmtpd is not installed (/usr/bin/python3 -m aiosmtpd): " +
	"run make test, which installs it, or apt-get install python3-aiosmtpd"

// Server is one aiosmtpd started for a test.
type Server struct {
	Port int
	// Dir is the folder each message is written into, one file each.
	Dir string
	// CAFile is the PEM file of the CA of StartTLS's certificate.
	CAFile string

	tmp    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a plain server for t (no TLS, no AUTH) and stops it when t
// ends.
func Start(t testing.TB) *Server { return start(t, "", "") }

// StartTLS starts a server that requires STARTTLS, with a certificate for
// 127.0.0.1 of its own CA (in the file CAFile), and then AUTH as user with
// password.
func StartTLS(t testing.TB, user, password string) *Server { return start(t, user, password) }

func start(t testing.TB, user, password string) *Server {
	t.Helper()
	if err := exec.Command(python, "-c", "import aiosmtpd").Run(); err != nil {
		t.Fatal(notInstalled)
	}
	tmp := t.TempDir()
	s := &Server{Port: storetest.Port(t), Dir: filepath.Join(tmp, "mail"), tmp: tmp, exited: make(chan struct{})}
	if err := os.Mkdir(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(tmp, "folder.py")
	if err := os.WriteFile(script, folderPy, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{script, "127.0.0.1", strconv.Itoa(s.Port), s.Dir}
	if user != "" {
		cert, key, err := s.makeCert()
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, cert, key, user, password)
	}
	s.cmd = exec.Command(python, args...)
	log, err := os.Create(filepath.Join(tmp, "aiosmtpd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error)
	go func() {
		// The kernel kills aiosmtpd when the thread that started it ends
		// (Pdeathsig), so that thread waits for it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := s.cmd.Start()
		started <- err
		if err == nil {
			s.cmd.Wait()
		}
		close(s.exited)
	}()
	if err := <-started; err != nil {
		t.Fatalf("start aiosmtpd: %v", err)
	}
	t.Cleanup(s.Stop)
	if err := s.waitReady(); err != nil {
		t.Fatal(err)
	}
	return s
}

// makeCert writes a CA (CAFile) and a certificate it signed for 127.0.0.1,
// and returns the certificate's and its key's files.
func (s *Server) makeCert() (cert, key string, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smtptest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return "", "", err
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		return "", "", err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(leafKey)
	if err != nil {
		return "", "", err
	}
	s.CAFile = filepath.Join(s.tmp, "ca.pem")
	cert, key = filepath.Join(s.tmp, "cert.pem"), filepath.Join(s.tmp, "key.pem")
	for path, block := range map[string]*pem.Block{
		s.CAFile: {Type: "CERTIFICATE", Bytes: caDER},
		cert:     {Type: "CERTIFICATE", Bytes: leafDER},
		key:      {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return "", "", err
		}
	}
	return cert, key, nil
}

// waitReady waits until the server greets, or fails with its log.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(time.Minute) // against a hang on a busy machine
	for {
		c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b := make([]byte, 3)
			_, err = io.ReadFull(c, b)
			c.Close()
			if err == nil && string(b) == "220" {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("aiosmtpd exited at start:\n%s", s.log())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("aiosmtpd did not answer on %s: %v\n%s", s.Addr(), err, s.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.tmp, "aiosmtpd.log"))
	return string(b[max(0, len(b)-4000):])
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// URL is the server's smtp:// URL.
func (s *Server) URL() string { return "smtp://" + s.Addr() }

// Stop kills the server, as a crash would.
func (s *Server) Stop() {
	select {
	case <-s.exited:
	default:
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// Message is one mail the server took.
type Message struct {
	File string
	To   []string // the envelope's recipients
	*mail.Message
	Body string // decoded (quoted-printable) text
}

// Messages are the mails the server has taken, oldest first.
func (s *Server) Messages(t testing.TB) []Message {
	t.Helper()
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []Message
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m, err := ReadFile(filepath.Join(s.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// WaitFor waits until a mail to address has come that the server had not
// taken before (skip: the files seen already), and returns it.
func (s *Server) WaitFor(t testing.TB, address string, skip ...string) Message {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // against a hang, not a speed check
	for {
		for _, m := range s.Messages(t) {
			if slices.Contains(m.To, address) && !slices.Contains(skip, m.File) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no mail to %s within a minute; the server log:\n%s", address, s.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReadFile reads a message the server wrote.
func ReadFile(path string) (Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return Message{}, err
	}
	defer f.Close()
	m, err := mail.ReadMessage(f)
	if err != nil {
		return Message{}, fmt.Errorf("%s: %w", path, err)
	}
	out := Message{File: filepath.Base(path), Message: m}
	for _, to := range strings.Split(m.Header.Get("X-Envelope-To"), ",") {
		out.To = append(out.To, strings.TrimSpace(to))
	}
	r := io.Reader(m.Body)
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return Message{}, errors.Join(fmt.Errorf("%s: body", path), err)
	}
	out.Body = string(b)
	return out, nil
}
