package storetest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Ports for the test servers. A redis-server that a test kills and starts
// again comes back on the same port, and while it is down any process may
// take that port: a port the kernel hands out for a listener on port 0 (an
// HTTP test server, mariadbd, slapd, another test's pick), after which the
// test's clients reconnect to a stranger, or the restart cannot bind. Tests
// that kill Redis running side by side, in one package or several, met it.
//
// So the servers' ports come from below the kernel's range for port 0
// (ip_local_port_range), where the kernel never picks, and each is reserved
// for the whole test by a lock on a file (flock), which every test process
// on the machine honours and which the kernel drops when a process dies.

// portsDir holds the lock files, one per reserved port.
var portsDir = filepath.Join(os.TempDir(), "microblog-test-ports")

// reservedRange is where reserved ports are picked: the 10,000 ports below
// the kernel's range for port 0, or none when that range starts too low.
func reservedRange() (lo, hi int) {
	hi = 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				hi = n
			}
		}
	}
	return max(1024, hi-10000), hi
}

// reservePort returns a free port reserved for this process until release
// is called (or the process ends). Where no range is left below the
// kernel's, it falls back to a port the kernel picks, unreserved.
func reservePort() (port int, release func(), err error) {
	lo, hi := reservedRange()
	if hi-lo < 1000 {
		port, err = pickPort()
		return port, func() {}, err
	}
	if err := os.MkdirAll(portsDir, 0o777); err != nil {
		return 0, nil, fmt.Errorf("reserve a port: %w", err)
	}
	for range 100 {
		port := lo + rand.IntN(hi-lo)
		f, err := os.OpenFile(filepath.Join(portsDir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return 0, nil, fmt.Errorf("reserve a port: %w", err)
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			f.Close() // another test holds it
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			f.Close() // something else listens there
			continue
		}
		l.Close()
		return port, func() { f.Close() }, nil
	}
	return 0, nil, fmt.Errorf("reserve a port: none free in %d–%d", lo, hi)
}

// Port reserves a loopback port for a server that t starts on an address
// it must know beforehand (a redirect URI names it, or the server stops and
// comes back on it), and holds it until t ends.
func Port(t testing.TB) int {
	t.Helper()
	port, release, err := reservePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return port
}
