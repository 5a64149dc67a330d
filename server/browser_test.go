package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"microblog/server/federation/fedifytest"
	"microblog/server/ldapauth/ldaptest"
	"microblog/server/mail/smtptest"
	"microblog/server/oidcauth/oidctest"
	"microblog/store/storetest"
)

// appOrigin is where the browser tests pretend the packaged mobile app runs
// from (Cordova serves it from its own origin, like https://localhost): the
// tests serve the mobile/ files there themselves, and the server allows it.
const appOrigin = "http://localhost:5999"

// browserAdmin is the operator (MICROBLOG_ADMINS) of the browser tests'
// server: safety.test.mjs registers it and uses the admin page.
const browserAdmin = "root_admin"

// browserFileDeadline bounds one test file's node run. It is a deadline
// against hangs, not a performance check: a file takes 2–15 s on an idle
// machine, and many times that on a busy one must still pass.
const browserFileDeadline = 5 * time.Minute

// browserTestDeadline bounds one test inside a file (node --test-timeout),
// so that a hung test fails with its own name instead of its file's.
const browserTestDeadline = 3 * time.Minute

// TestBrowser runs the real-browser tests of the web and mobile front ends
// (web/e2e/*.test.mjs: playwright-core driving Debian's Chromium) against a
// server started here. It never skips: a missing node, Chromium or
// node_modules is a failure that says how to install it.
//
// The node tests reach the server at BASE_URL. For the reconnection test they
// can stop and start the server (same port, same Redis) by POSTing to
// CONTROL_URL/stop, /start or /restart; the requests are carried out on the
// test goroutine, so a server that fails to start fails the test cleanly.
func TestBrowser(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "web", "e2e"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed; the browser tests need Node.js 20 or newer and npm: %v", err)
	}
	if v, err := exec.Command(node, "--version").Output(); err != nil {
		t.Fatalf("node --version: %v", err)
	} else if major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(v)), "v"), ".", 2)[0]); major < 20 {
		t.Fatalf("node %s is too old; playwright-core needs Node.js 20 or newer", strings.TrimSpace(string(v)))
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err != nil {
		t.Fatalf("playwright-core is not installed in web/e2e; run `npm ci --prefix web/e2e` (make test does): %v", err)
	}
	// Debian's chromium-headless-shell is Chromium's own headless build,
	// the same engine without the browser's windowing and UI: the tests
	// took about a third less CPU and time with it than with the full
	// chromium in headless mode. The full one serves where it is missing.
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium-headless-shell"
		if _, err := os.Stat(chromium); err != nil {
			chromium = "/usr/bin/chromium"
			t.Logf("chromium-headless-shell is not installed (apt-get install chromium-headless-shell, as make test does): the tests drive %s, slower", chromium)
		}
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium is not installed at %s; apt-get install chromium-headless-shell (or set CHROMIUM): %v", chromium, err)
	}
	// The whole browser, for what the headless build lacks (push.test.mjs:
	// notifications and push messaging).
	chromiumFull := os.Getenv("CHROMIUM_FULL")
	if chromiumFull == "" {
		chromiumFull = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromiumFull); err != nil {
		t.Fatalf("Chromium is not installed at %s; apt-get install chromium (or set CHROMIUM_FULL): %v", chromiumFull, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.test.mjs"))
	if len(files) == 0 {
		t.Fatalf("no browser tests (*.test.mjs) in %s", dir)
	}
	sort.Strings(files)
	if only := os.Getenv("BROWSER_TESTS"); only != "" { // e.g. BROWSER_TESTS=archive,social while working on those
		files = slices.DeleteFunc(files, func(f string) bool {
			return !slices.ContainsFunc(strings.Split(only, ","), func(name string) bool {
				return filepath.Base(f) == strings.TrimSuffix(name, ".test.mjs")+".test.mjs"
			})
		})
		if len(files) == 0 {
			t.Fatalf("BROWSER_TESTS=%s names no file in %s", only, dir)
		}
	}

	r := startRedis(t)
	addr := "127.0.0.1:" + freeTCPPort(t)
	// A small hot window, so that archive.test.mjs pages past it.
	env := []string{"MICROBLOG_ADDR=" + addr, "MICROBLOG_ALLOWED_ORIGINS=" + appOrigin, "MICROBLOG_HOT_WINDOW=20",
		"MICROBLOG_ADMINS=" + browserAdmin}
	// A real OpenID Provider for sso.test.mjs, which signs in on its page.
	op := oidctest.Start(t, oidctest.Client{ID: ssoClientID, Secret: ssoSecret, RedirectURIs: []string{"http://" + addr + oidcCallbackPath}})
	env = append(env, "MICROBLOG_OIDC_ISSUER="+op.URL, "MICROBLOG_OIDC_CLIENT_ID="+ssoClientID,
		"MICROBLOG_OIDC_CLIENT_SECRET="+ssoSecret, "MICROBLOG_OIDC_NAME=Campus login")
	// A real directory (Debian's slapd) for ldap.test.mjs, which signs in
	// with a directory password from the login forms.
	directory := ldaptest.Start(t, false)
	env = append(env, "MICROBLOG_LDAP_URL="+directory.URL(), "MICROBLOG_LDAP_USER_DN=uid={username},"+ldaptest.People,
		"MICROBLOG_LDAP_NAME=Campus directory")
	// A real SMTP server (Debian's aiosmtpd) for recovery.test.mjs, which
	// reads the mail it takes from its folder (MAIL_DIR).
	mail := smtptest.Start(t)
	env = append(env, "MICROBLOG_SMTP_URL="+mail.URL(), "MICROBLOG_MAIL_FROM=Microblog <noreply@example.edu>")
	// Federation is on (CONTRACT.md §16), its public URL the server's own
	// origin, and loopback peers allowed: federation.test.mjs finds,
	// follows and reads a user of a Fedify partner (fedifytest), started
	// only when that file runs, whose control API it gets as PARTNER_URL.
	env = append(env, "MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=http://"+addr, "MICROBLOG_FEDERATION_ALLOW_PRIVATE=on")
	var partnerURL string
	if slices.ContainsFunc(files, func(f string) bool { return filepath.Base(f) == "federation.test.mjs" }) {
		p := fedifytest.Shared(t)
		p.Forget(t, "http://"+addr)
		partnerURL = p.URL
	}
	srv := startServer(t, r, env...)

	reqs := make(chan controlReq)
	controlSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		action := strings.Trim(req.URL.Path, "/")
		if req.Method != http.MethodPost || (action != "stop" && action != "start" && action != "restart") {
			http.Error(w, "POST /stop, /start or /restart", http.StatusNotFound)
			return
		}
		cr := controlReq{action: action, done: make(chan error, 1)}
		select {
		case reqs <- cr:
		case <-req.Context().Done():
			return
		}
		select {
		case err := <-cr.done:
			if err != nil {
				http.Error(w, err.Error(), http.StatusConflict)
				return
			}
		case <-req.Context().Done():
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer controlSrv.Close()

	// control carries out the node tests' stop/start/restart requests on
	// the goroutine of the file that sent them. A server started here belongs to the file that asked for it (t is
	// that file's subtest) and stops when it ends; the next file starts
	// another on the same address and Redis.
	control := func(t *testing.T, cr controlReq) {
		t.Logf("control: %s the server", cr.action)
		// startServer ends the test (runtime.Goexit) when the server does
		// not start: the node test is answered all the same, so that it
		// fails rather than waits for ever.
		answered := false
		defer func() {
			if !answered {
				cr.done <- fmt.Errorf("the server did not %s: see the test log", cr.action)
			}
		}()
		if cr.action == "stop" || cr.action == "restart" {
			srv.Stop()
		}
		if cr.action == "start" || cr.action == "restart" {
			if srv.cancel != nil {
				answered = true
				cr.done <- fmt.Errorf("the server is already running")
				return
			}
			srv = startServer(t, r, env...)
		}
		answered = true
		cr.done <- nil
	}
	t.Logf("running %d browser test files against %s; screenshots go to %s", len(files), srv.URL, filepath.Join(dir, "screenshots"))
	// Each file is a subtest of its own, so that a failure names its file
	// (and, in the log, node names the test) and one file's hang cannot
	// use up the others' time. The files that stop the server run alone,
	// after the others, which run browserFilesAtOnce at a time: a file
	// spends most of its time waiting on its pages.
	runFile := func(file string) {
		name := strings.TrimSuffix(filepath.Base(file), ".test.mjs")
		t.Run(name, func(t *testing.T) {
			if srv.cancel == nil { // a file that stopped the server and failed before starting it again
				srv = startServer(t, r, env...)
			}
			nodeEnv := append(os.Environ(),
				"BASE_URL="+srv.URL,
				"CONTROL_URL="+controlSrv.URL,
				"APP_ORIGIN="+appOrigin,
				"CHROMIUM="+chromium, "CHROMIUM_FULL="+chromiumFull,
				"OIDC_USER="+oidctest.Grace.Username, "OIDC_PASSWORD="+oidctest.Grace.Password,
				"OIDC_LINK_USER="+oidctest.Ada.Username, "OIDC_LINK_PASSWORD="+oidctest.Ada.Password,
				"ADMIN_USER="+browserAdmin,
				"PARTNER_URL="+partnerURL,
				"MAIL_DIR="+mail.Dir,
				"LDAP_USER=bob", "LDAP_PASSWORD="+ldaptest.Passwords["bob"],
				"FORCE_COLOR=0", "NO_COLOR=1")
			// A file that fails is run once more, as Playwright's own
			// runner does in CI (retries): a test that waits on a browser
			// on a busy shared machine can lose a race that no user would
			// (each one found is fixed in the test or the page). A second
			// failure fails the file. A pass on the second run is printed
			// as FLAKY with the first run's failing tests, always, so that
			// it is seen and fixed rather than hidden.
			first := runBrowserFile(t, node, dir, file, reqs, control, nodeEnv)
			if first == nil {
				return
			}
			t.Logf("%v; running %s once more", first, filepath.Base(file))
			if srv.cancel == nil {
				srv = startServer(t, r, env...)
			}
			if err := runBrowserFile(t, node, dir, file, reqs, control, nodeEnv); err != nil {
				t.Fatal(err)
			}
			reportFlaky(fmt.Sprintf("FLAKY: %s failed, then passed when run again; its first run: %v", filepath.Base(file), first))
		})
	}
	var alone []string
	slots := make(chan struct{}, browserFilesAtOnce)
	var wg sync.WaitGroup
	for _, file := range files {
		if stopsServer(t, file) {
			alone = append(alone, file)
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			runFile(file)
		}()
	}
	wg.Wait()
	for _, file := range alone {
		runFile(file)
	}
}

// browserFilesAtOnce is how many browser test files run side by side (each
// its own node and Chromium, against the one server): they wait on their
// pages most of the time (the pass took 0.4 of a core over its 400 to
// 600 s). Three at once were faster (7 m 42 s for make test), but the load
// they added to the other passes at their start made a benchmark harness's
// timing fail.
const browserFilesAtOnce = 2

// stopsServer tells whether a browser test file stops or restarts the
// server (helpers.mjs's control), which the files running beside it would
// see: such a file runs alone.
func stopsServer(t *testing.T, file string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return controlCall.Match(b)
}

var controlCall = regexp.MustCompile(`\bcontrol\(\s*['"](stop|start|restart)['"]`)

// controlReq is a node test's request to stop, start or restart the server.
type controlReq struct {
	action string
	done   chan error
}

// runBrowserFile runs one browser test file under node's test runner,
// serving its control requests until it ends.
func runBrowserFile(t *testing.T, node, dir, file string, reqs <-chan controlReq, control func(*testing.T, controlReq), env []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), browserFileDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-concurrency=1", "--test-reporter=spec",
		fmt.Sprintf("--test-timeout=%d", browserTestDeadline.Milliseconds()), file)
	cmd.Dir = dir
	cmd.Env = env
	out := &testLog{t: t}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start node: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case cr := <-reqs:
			control(t, cr)
		case err := <-done:
			out.flush()
			if ctx.Err() != nil {
				return fmt.Errorf("%s did not finish within %v: a test hung (see the log above)", filepath.Base(file), browserFileDeadline)
			}
			if err != nil {
				return fmt.Errorf("%s failed (%v): the failing tests are marked ✖ in the log above (%s: %s); screenshots are in web/e2e/screenshots",
					filepath.Base(file), err, strings.Join(out.failed, "; "), strings.Join(out.why, " | "))
			}
			return nil
		}
	}
}

// freeTCPPort reserves a loopback port for the test's server, which must
// know its address before it starts (the OpenID Provider's redirect URI
// names it) and comes back on it after a restart. A port the kernel picked
// for a listener on port 0 could be taken meanwhile by anything on the
// machine, another test pass's outgoing connection included (CI met it:
// "bind: address already in use"); a reserved one is below that range.
func freeTCPPort(t *testing.T) string {
	t.Helper()
	return strconv.Itoa(storetest.Port(t))
}

// testLog streams a child process's output into the test log, line by line.
type testLog struct {
	t   *testing.T
	mu  sync.Mutex
	buf bytes.Buffer
	// failed names the tests node marked failed (✖), once each; why holds
	// the lines that follow each first mark (node's error and its first
	// details), so that a file that passes on its second run still tells
	// what failed on its first (reportFlaky), as go test shows nothing of
	// a package that passes.
	failed []string
	why    []string
	// more is how many lines after a ✖ are still to go into why.
	more int
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line) // incomplete: keep for the next write
			return len(p), nil
		}
		line = strings.TrimRight(line, "\r\n")
		if l.more > 0 && strings.TrimSpace(line) != "" {
			l.why = append(l.why, strings.TrimSpace(line))
			l.more--
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "✖ "); ok && name != "failing tests:" && !slices.Contains(l.failed, name) {
			l.failed = append(l.failed, name)
			l.more = 4
		}
		l.t.Log(line)
	}
}

func (l *testLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rest := strings.TrimSpace(l.buf.String()); rest != "" {
		l.t.Log(rest)
	}
	l.buf.Reset()
}

// reportFlaky tells of a browser test file that passed only when run again:
// into the file FLAKY_LOG names (make test prints it at the end of every
// run, passed or failed, since go test shows nothing of a package that
// passes), else on standard output.
func reportFlaky(line string) {
	if path := os.Getenv("FLAKY_LOG"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			defer f.Close()
			if _, err := fmt.Fprintln(f, line); err == nil {
				return
			}
		}
	}
	fmt.Println(line)
}
