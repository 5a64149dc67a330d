package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"microblog/store/storetest"
)

// TestLoadTestSmallRun runs the load tool itself, small, against a real
// server binary and Redis: the figures the README quotes come from code
// that is known to count right.
func TestLoadTestSmallRun(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "microblog")
	if out, err := exec.Command(gobin, "build", "-o", bin, "microblog/server").CombinedOutput(); err != nil {
		t.Fatalf("build the server: %v\n%s", err, out)
	}
	r := storetest.Start(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin)
	srv.Env = append(os.Environ(), "REDIS_URL="+r.URL(), "MICROBLOG_ADDR="+addr,
		"MICROBLOG_RATE_LIMITS=off", "MICROBLOG_BCRYPT_COST=4", "MICROBLOG_LOG_LEVEL=warn", "MICROBLOG_MEDIA_DIR="+t.TempDir())
	var logs strings.Builder
	srv.Stderr = &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
	}

	lt := &loadTest{base: base, client: &http.Client{Timeout: 10 * time.Second}}
	sum, err := lt.run(30, 3, 20, time.Second, 8)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FailedPosts != 0 || sum.Expected != 20*10 || sum.Delivered != sum.Expected || sum.Duplicates != 0 {
		t.Fatalf("summary = %+v, want 200 events delivered once each", sum)
	}
}
