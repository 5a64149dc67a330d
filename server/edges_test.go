package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"microblog/hub/wstest"
)

// Tests of the connection limits and HTTP edges of issue 9: each one failed
// before its fix. They are named TestEdges… so that they run together.

// rawConn dials the test server without an HTTP client, so that a test sees
// exactly what the server does to a connection.
func (ts *testServer) rawConn(t testing.TB) (net.Conn, *bufio.Reader) {
	t.Helper()
	u, _ := url.Parse(ts.URL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// getOn sends GET path on c and reads the answer; keep-alive keeps c open.
func getOn(t testing.TB, c net.Conn, br *bufio.Reader, path string) (*http.Response, error) {
	t.Helper()
	c.SetDeadline(time.Now().Add(hangWait))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

// closedWithin waits up to d for the server to close c; it returns how long that took.
func closedWithin(t testing.TB, c net.Conn, br *bufio.Reader, d time.Duration) (time.Duration, bool) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(d))
	_, err := io.Copy(io.Discard, br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return time.Since(start), false
	}
	return time.Since(start), true
}

func TestEdgesIdleKeepAliveClosed(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_IDLE_TIMEOUT=1s")
	c, br := ts.rawConn(t)
	if resp, err := getOn(t, c, br, "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /healthz: %v %v", resp, err)
	}
	if d, closed := closedWithin(t, c, br, hangWait); !closed {
		t.Fatalf("an idle keep-alive connection was still open after %s (idle timeout 1s)", d)
	} else if d < 500*time.Millisecond {
		t.Errorf("idle connection closed after %s, before its idle timeout of 1s", d)
	}
}

func TestEdgesSlowBodyCutOff(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_READ_TIMEOUT=2s")
	c, br := ts.rawConn(t)
	fmt.Fprintf(c, "POST /api/v1/sessions HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, br) // until the server closes the connection
		close(closed)
	}()
	start := time.Now()
	tick := time.NewTicker(1500 * time.Millisecond) // one byte per 1.5 s, as the attacker did
	defer tick.Stop()
	for {
		select {
		case <-closed:
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("slow body cut off only after %s (read timeout 2s)", d)
			}
			return
		case <-tick.C:
			if time.Since(start) > 8*time.Second {
				t.Fatalf("a body sent one byte per 1.5s was still being read after 8s (read timeout 2s)")
			}
			c.Write([]byte("{"))
		}
	}
}

func TestEdgesConnectionCapPerAddress(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_MAX_CONNS_PER_IP=3")
	var open []net.Conn
	for i := 0; i < 3; i++ {
		c, br := ts.rawConn(t)
		if resp, err := getOn(t, c, br, "/healthz"); err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d under the cap: %v %v", i+1, resp, err)
		}
		open = append(open, c)
	}
	c, br := ts.rawConn(t)
	if resp, err := getOn(t, c, br, "/healthz"); err == nil {
		t.Fatalf("a 4th connection from the same address was served (%d), want it closed at once", resp.StatusCode)
	}
	open[0].Close()
	deadline := time.Now().Add(hangWait)
	for {
		c, br := ts.rawConn(t)
		resp, err := getOn(t, c, br, "/healthz")
		if err == nil && resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one connection closed, a new one is still refused: %v", err)
		}
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

// dialWSStatus opens /ws with header and returns the connection, or the
// answer and body of the refusal.
func (ts *testServer) dialWSStatus(t testing.TB, header http.Header) (*wstest.Client, *http.Response, []byte) {
	t.Helper()
	return wstest.TryDial(t, ts.wsURL(""), header)
}

// bearer is the Authorization header of token.
func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// wantTooMany checks a refused upgrade: 429 too_many_connections, not cached, with Retry-After.
func wantTooMany(t testing.TB, what string, conn *wstest.Client, resp *http.Response, body []byte) {
	t.Helper()
	if conn != nil {
		t.Fatalf("%s: upgraded, want 429", what)
	}
	if resp.StatusCode != 429 || errorCode(t, body) != "too_many_connections" {
		t.Fatalf("%s: %d %s, want 429 too_many_connections", what, resp.StatusCode, body)
	}
	if resp.Header.Get("Retry-After") == "" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: Retry-After %q, Cache-Control %q", what, resp.Header.Get("Retry-After"), resp.Header.Get("Cache-Control"))
	}
}

func TestEdgesWebSocketCapPerUser(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_WS_MAX_PER_USER=2")
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	first := mustConn(t, ts, alice)
	first.ready(t)
	mustConn(t, ts, alice).ready(t)
	conn, resp, body := ts.dialWSStatus(t, bearer(alice))
	wantTooMany(t, "alice's 3rd socket", conn, resp, body)
	mustConn(t, ts, bob).ready(t) // another user is not held back

	first.Conn.Close()
	deadline := time.Now().Add(hangWait)
	for {
		conn, resp, _ := ts.dialWSStatus(t, bearer(alice))
		if conn != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing a socket, alice is still refused: %d", resp.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestEdgesWebSocketCapPerAddress(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_WS_MAX_PER_IP=2")
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	mustConn(t, ts, alice).ready(t)
	mustConn(t, ts, bob).ready(t)
	conn, resp, body := ts.dialWSStatus(t, bearer(carol))
	wantTooMany(t, "a 3rd socket from the address", conn, resp, body)
}

func mustConn(t testing.TB, ts *testServer, token string) *wsClient {
	t.Helper()
	conn, resp, body := ts.dialWSStatus(t, bearer(token))
	if conn == nil {
		t.Fatalf("dial /ws: %d %s", resp.StatusCode, body)
	}
	return &wsClient{conn}
}

// TestEdgesWebSocketOutlivesServerTimeouts: the server's read, write and
// idle timeouts must not cut a hijacked WebSocket that is quiet for longer.
func TestEdgesWebSocketOutlivesServerTimeouts(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_READ_TIMEOUT=1s", "MICROBLOG_WRITE_TIMEOUT=1s", "MICROBLOG_IDLE_TIMEOUT=1s")
	alice, _ := ts.register(t, "alice")
	ws := ts.dialWS(t, alice, "")
	ws.ready(t)
	time.Sleep(2500 * time.Millisecond)
	id := ts.newPost(t, alice, "still live after the timeouts")
	ws.expect(t, "post", id)
}

// loginBody is a login body padded with spaces to exactly n bytes.
func loginBody(n int) string {
	b := fmt.Sprintf(`{"username":"alice","password":%q}`, testPassword)
	return b + strings.Repeat(" ", n-len(b))
}

func TestEdgesBodyLimitIs64KiB(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "alice")
	if status, body := ts.call(t, "POST", "/api/v1/sessions", "", loginBody(65536)); status != 200 {
		t.Fatalf("a body of 65,536 bytes (64 KiB): %d %s", status, body)
	}
	if status, body := ts.call(t, "POST", "/api/v1/sessions", "", loginBody(65537)); status != 413 || errorCode(t, body) != "body_too_large" {
		t.Fatalf("a body of 65,537 bytes: %d %s", status, body)
	}
	// Chunked: no Content-Length, so the limit is met while reading.
	chunked := io.MultiReader(strings.NewReader(loginBody(70000)))
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/sessions", chunked)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || errorCode(t, body) != "body_too_large" {
		t.Fatalf("a chunked body of 70,000 bytes: %d %s", resp.StatusCode, body)
	}
}

// TestEdgesAbortedRequestIs499: a client that goes away while its request
// waits on Redis is neither an error in the log nor a 500 in the metrics.
func TestEdgesAbortedRequestIs499(t *testing.T) {
	parallel(t)
	ts := startServer(t, startRedis(t), "MICROBLOG_LOG_LEVEL=debug") // one Redis, to pause
	ts.register(t, "alice")
	// Hold every Redis command for a second: the client gives up meanwhile.
	if err := ts.rdb().Do(context.Background(), "CLIENT", "PAUSE", "1000", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/v1/users/alice", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the request was answered (%d) although Redis was paused", resp.StatusCode)
	}
	route := `route="/api/v1/users/:username"`
	deadline := time.Now().Add(hangWait)
	for {
		_, body := ts.call(t, "GET", "/metrics", "", nil)
		var lines []string
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, "microblog_http_requests_total{") && strings.Contains(l, route) {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			if len(lines) != 1 || !strings.Contains(lines[0], `status="499"`) {
				t.Fatalf("the aborted request was counted as %q, want status 499", lines)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the aborted request was never counted")
		}
		time.Sleep(100 * time.Millisecond)
	}
	logs := ts.logs.String()
	if strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "aborted") {
		t.Errorf("an aborted request must be logged as aborted, not as an error:\n%s", logs)
	}
}

// signupFrom signs name up with X-Forwarded-For set to xff.
func (ts *testServer) signupFrom(t testing.TB, name, xff string) int {
	t.Helper()
	resp := ts.do(t, "POST", "/api/v1/users", "", map[string]string{"username": name, "password": testPassword},
		http.Header{"X-Forwarded-For": {xff}})
	resp.Body.Close()
	return resp.StatusCode
}

// TestEdgesTrustedProxies: only the listed proxies are believed, and a
// private address in X-Forwarded-For is a client, not a trusted hop.
func TestEdgesTrustedProxies(t *testing.T) {
	parallel(t)
	limits := "MICROBLOG_RATE_LIMITS=signup=1/1h"
	ts := newTestServer(t, limits, "MICROBLOG_TRUSTED_PROXIES=10.0.0.0/8, 127.0.0.1")
	if s := ts.signupFrom(t, "a1", "203.0.113.1"); s != 201 {
		t.Fatalf("sign-up via a trusted proxy: %d", s)
	}
	if s := ts.signupFrom(t, "a2", "203.0.113.2"); s != 201 {
		t.Fatalf("sign-up from another client via a trusted proxy: %d (X-Forwarded-For not used)", s)
	}
	if s := ts.signupFrom(t, "a3", "198.51.100.7, 10.1.2.3"); s != 201 {
		t.Fatalf("sign-up through two trusted hops: %d", s)
	}

	// Only loopback listed: 10.1.2.3 is the client, whatever it claims before it.
	ts = newTestServer(t, limits, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	if s := ts.signupFrom(t, "b1", "198.51.100.7, 10.1.2.3"); s != 201 {
		t.Fatalf("first sign-up: %d", s)
	}
	if s := ts.signupFrom(t, "b2", "198.51.100.8, 10.1.2.3"); s != 429 {
		t.Fatalf("a second sign-up from the untrusted hop 10.1.2.3: %d, want 429", s)
	}

	// Not listed at all: X-Forwarded-For is ignored.
	ts = newTestServer(t, limits, "MICROBLOG_TRUSTED_PROXIES=10.0.0.0/8")
	if s := ts.signupFrom(t, "c1", "203.0.113.1"); s != 201 {
		t.Fatalf("first sign-up: %d", s)
	}
	if s := ts.signupFrom(t, "c2", "203.0.113.2"); s != 429 {
		t.Fatalf("X-Forwarded-For from an untrusted peer was believed: %d, want 429", s)
	}

	// The old setting means a proxy on this machine only.
	ts = newTestServer(t, limits, "MICROBLOG_TRUST_PROXY=true")
	if s := ts.signupFrom(t, "d1", "198.51.100.7, 10.1.2.3"); s != 201 {
		t.Fatalf("first sign-up: %d", s)
	}
	if s := ts.signupFrom(t, "d2", "198.51.100.8, 10.1.2.3"); s != 429 {
		t.Fatalf("MICROBLOG_TRUST_PROXY=true trusted a private hop: %d, want 429", s)
	}
}

func TestEdgesSettingsValidated(t *testing.T) {
	parallel(t)
	for _, tc := range []struct{ env, value, mention string }{
		{"MICROBLOG_TRUST_PROXY", "yes", "MICROBLOG_TRUSTED_PROXIES"},
		{"MICROBLOG_TRUSTED_PROXIES", "10.0.0.0/33", "MICROBLOG_TRUSTED_PROXIES"},
		{"MICROBLOG_TRUSTED_PROXIES", "proxy.example", "MICROBLOG_TRUSTED_PROXIES"},
		{"MICROBLOG_METRICS_ALLOW", "everyone", "MICROBLOG_METRICS_ALLOW"},
		{"MICROBLOG_METRICS_TOKEN", "short", "MICROBLOG_METRICS_TOKEN"},
		{"MICROBLOG_READ_TIMEOUT", "soon", "MICROBLOG_READ_TIMEOUT"},
		{"MICROBLOG_WRITE_TIMEOUT", "0", "MICROBLOG_WRITE_TIMEOUT"},
		{"MICROBLOG_IDLE_TIMEOUT", "-1s", "MICROBLOG_IDLE_TIMEOUT"},
		{"MICROBLOG_MAX_CONNS_PER_IP", "many", "MICROBLOG_MAX_CONNS_PER_IP"},
		{"MICROBLOG_WS_MAX_PER_USER", "-1", "MICROBLOG_WS_MAX_PER_USER"},
		{"MICROBLOG_WS_MAX_PER_IP", "x", "MICROBLOG_WS_MAX_PER_IP"},
	} {
		env := map[string]string{tc.env: tc.value}
		_, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s=%q: error %v, want one naming %s", tc.env, tc.value, err, tc.mention)
		}
	}
	env := map[string]string{"MICROBLOG_TRUST_PROXY": "true", "MICROBLOG_TRUSTED_PROXIES": "10.0.0.1"}
	if _, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard); err == nil {
		t.Errorf("both MICROBLOG_TRUST_PROXY and MICROBLOG_TRUSTED_PROXIES set: no error")
	}
}

func TestEdgesAPIAnswersNotStored(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	for _, tc := range []struct{ method, path, token string }{
		{"GET", "/api/v1/timelines/public", ""},
		{"GET", "/api/v1/me", alice},
		{"GET", "/api/v1/me", ""},            // 401
		{"GET", "/api/v1/no/such/thing", ""}, // 404
		{"POST", "/api/v1/sessions", ""},     // 415
		{"OPTIONS", "/api/v1/me", ""},        // preflight
		{"GET", "/ws", ""},                   // the refused upgrade: 401
	} {
		resp := ts.do(t, tc.method, tc.path, tc.token, nil, http.Header{"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"GET"}})
		resp.Body.Close()
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s %s (%d): Cache-Control %q, want no-store", tc.method, tc.path, resp.StatusCode, cc)
		}
	}
	for _, path := range []string{"/", "/m/", "/healthz"} {
		resp := ts.do(t, "GET", path, "", nil, nil)
		resp.Body.Close()
		if cc := resp.Header.Get("Cache-Control"); strings.Contains(cc, "no-store") {
			t.Errorf("GET %s: Cache-Control %q: only API answers are no-store", path, cc)
		}
	}
}

// csp parses a Content-Security-Policy into its directives.
func csp(header string) map[string]string {
	out := map[string]string{}
	for _, d := range strings.Split(header, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		if name != "" {
			out[name] = strings.TrimSpace(value)
		}
	}
	return out
}

func TestEdgesContentSecurityPolicy(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	host := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		proto, connect string
	}{
		{"", "'self' ws://" + host},
		{"https", "'self' wss://" + host},
	} {
		h := http.Header{}
		if tc.proto != "" {
			h.Set("X-Forwarded-Proto", tc.proto)
		}
		for _, path := range []string{"/", "/m/"} {
			resp := ts.do(t, "GET", path, "", nil, h)
			resp.Body.Close()
			p := csp(resp.Header.Get("Content-Security-Policy"))
			want := map[string]string{"connect-src": tc.connect, "form-action": "'self'", "frame-ancestors": "'none'",
				"base-uri": "'none'", "default-src": "'self'", "object-src": "'none'", "script-src": "'self'"}
			for k, v := range want {
				if p[k] != v {
					t.Errorf("GET %s (proto %q): %s %q, want %q", path, tc.proto, k, p[k], v)
				}
			}
		}
	}
}

// sessionCookies are the cookies a response sets, by name.
func sessionCookies(resp *http.Response) map[string]*http.Cookie {
	out := map[string]*http.Cookie{}
	for _, c := range resp.Cookies() {
		out[c.Name] = c
	}
	return out
}

func TestEdgesHostCookieOverHTTPS(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	ts.register(t, "alice")
	creds := map[string]string{"username": "alice", "password": testPassword}
	https := http.Header{"X-Forwarded-Proto": {"https"}}

	resp := ts.do(t, "POST", "/api/v1/sessions", "", creds, https)
	resp.Body.Close()
	cookies := sessionCookies(resp)
	hc := cookies["__Host-auth"]
	if hc == nil || !hc.Secure || !hc.HttpOnly || hc.Path != "/" || hc.Domain != "" || hc.SameSite != http.SameSiteLaxMode {
		t.Fatalf("login over HTTPS: __Host-auth cookie %+v", hc)
	}
	if cookies["auth"] != nil {
		t.Errorf("login over HTTPS also set the plain auth cookie")
	}
	withCookie := http.Header{"Cookie": {"__Host-auth=" + hc.Value}, "X-Forwarded-Proto": {"https"}}
	if r := ts.do(t, "GET", "/api/v1/me", "", nil, withCookie); r.StatusCode != 200 {
		t.Fatalf("/me with __Host-auth: %d", r.StatusCode)
	} else {
		r.Body.Close()
	}
	page := ts.do(t, "GET", "/", "", nil, withCookie)
	b, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if !strings.Contains(string(b), sessionCookieMark) {
		t.Errorf("the page does not see the __Host-auth session")
	}
	out := ts.do(t, "DELETE", "/api/v1/sessions/current", "", nil, withCookie)
	out.Body.Close()
	cleared := sessionCookies(out)
	if out.StatusCode != 204 || cleared["auth"] == nil || cleared["auth"].MaxAge >= 0 ||
		cleared["__Host-auth"] == nil || cleared["__Host-auth"].MaxAge >= 0 || !cleared["__Host-auth"].Secure {
		t.Fatalf("logout: %d, cookies %v: want both cleared", out.StatusCode, cleared)
	}

	// Plain HTTP keeps the contract's name, and X-Forwarded-Proto from a
	// peer that is not a trusted proxy is ignored.
	// (The second server shares the first one's Redis, and so alice.)
	for name, ts := range map[string]*testServer{"plain": ts, "untrusted proxy": startOn(t, ts.backend)} {
		h := http.Header{}
		if name != "plain" {
			h = https
		}
		resp := ts.do(t, "POST", "/api/v1/sessions", "", creds, h)
		resp.Body.Close()
		cookies := sessionCookies(resp)
		if c := cookies["auth"]; c == nil || c.Secure || cookies["__Host-auth"] != nil {
			t.Errorf("%s: login set %v, want the auth cookie only", name, cookies)
		}
	}
}

func TestEdgesMetricsRestricted(t *testing.T) {
	parallel(t)
	const token = "metrics-token-0123456789"
	ts := newTestServer(t, "MICROBLOG_METRICS_ALLOW=10.0.0.0/8", "MICROBLOG_METRICS_TOKEN="+token)
	check := func(ts *testServer, what string, h http.Header, want int) {
		t.Helper()
		resp := ts.do(t, "GET", "/metrics", "", nil, h)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", what, resp.StatusCode, want)
		} else if want == 403 && errorCode(t, body) != "forbidden" {
			t.Errorf("%s: body %s", what, body)
		}
	}
	check(ts, "loopback, not in the allow-list", nil, 403)
	check(ts, "with the token", bearer(token), 200)
	check(ts, "with a wrong token", bearer(token+"x"), 403)

	// The default allows loopback and private addresses, judged by the
	// client address a trusted proxy reports.
	ts = newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	check(ts, "default, the proxy naming no client", nil, 403)
	check(ts, "default, private client via the proxy", http.Header{"X-Forwarded-For": {"10.1.2.3"}}, 200)
	check(ts, "default, public client via the proxy", http.Header{"X-Forwarded-For": {"203.0.113.9"}}, 403)
	// Forwarded by a proxy that is not listed: the client is unknown.
	ts = newTestServer(t)
	check(ts, "default, via an unknown proxy", http.Header{"X-Forwarded-For": {"10.1.2.3"}}, 403)
}

func TestEdgesBearerSchemeAnyCase(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	for _, scheme := range []string{"bearer", "BEARER", "Bearer", "bEaReR"} {
		h := http.Header{"Authorization": {scheme + " " + alice}}
		resp := ts.do(t, "GET", "/api/v1/me", "", nil, h)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Authorization: %s <token>: %d, want 200", scheme, resp.StatusCode)
		}
		if conn, resp, body := ts.dialWSStatus(t, h); conn == nil {
			t.Errorf("/ws with Authorization: %s <token>: %d %s", scheme, resp.StatusCode, body)
		}
	}
	resp := ts.do(t, "GET", "/api/v1/me", "", nil, http.Header{"Authorization": {"Basic " + alice}})
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("Authorization: Basic: %d, want 401", resp.StatusCode)
	}
}
