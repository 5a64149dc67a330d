package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"microblog/store/storetest"
)

func TestHealthReadyMetrics(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "alice")
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200} {
		if status, body := ts.call(t, "GET", path, "", nil); status != want {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
	_, body := ts.call(t, "GET", "/metrics", "", nil)
	for _, want := range []string{`microblog_http_requests_total{method="POST",route="/api/v1/users",status="201"} 1`, "go_goroutines"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestRedisDownAnswers503 stops Redis under a running server: the API answers
// 503 with the contract's body within a few seconds instead of hanging, and
// recovers when Redis is back, with the data still there.
func TestRedisDownAnswers503(t *testing.T) {
	parallel(t)
	ts := startServer(t, startRedis(t)) // a Redis of its own, to stop
	alice, _ := ts.register(t, "alice")
	ts.post(t, alice, "before the outage", 0)

	ts.Redis.Stop()
	start := time.Now()
	for _, path := range []string{"/readyz", "/api/v1/timelines/public", "/api/v1/timelines/home"} {
		status, body := ts.call(t, "GET", path, alice, nil)
		if status != 503 || errorCode(t, body) != "unavailable" {
			t.Fatalf("%s with Redis down: %d %s", path, status, body)
		}
	}
	status, body := ts.call(t, "POST", "/api/v1/posts", alice, map[string]string{"content": "during the outage"})
	if status != 503 || errorCode(t, body) != "unavailable" {
		t.Fatalf("post with Redis down: %d %s", status, body)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("answers with Redis down took %v", d)
	}
	if status, _ := ts.call(t, "GET", "/healthz", "", nil); status != 200 {
		t.Errorf("/healthz with Redis down: %d, want 200 (the process runs)", status)
	}

	ts.Redis.Restart()
	deadline := time.Now().Add(hangWait)
	for {
		status, _ := ts.call(t, "GET", "/readyz", "", nil)
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d after Redis came back", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	page := ts.page(t, alice, "/api/v1/timelines/home")
	if len(page.Items) != 1 || page.Items[0].Content != "before the outage" {
		t.Fatalf("home after restart = %+v", page.Items)
	}
}

func TestRedisWithPassword(t *testing.T) {
	parallel(t)
	r := storetest.StartWith(t, "--requirepass", "s3cret pass")
	ts := startServer(t, r)
	alice, _ := ts.register(t, "alice")
	ts.post(t, alice, "behind a password", 0)
	if n := r.Client().Exists(context.Background(), keysOf(r.Client()).LastPostID()).Val(); n != 1 {
		t.Fatalf("post not written through the authenticated connection")
	}
	// The wrong password: the server starts, says so, and answers 503.
	bad := *r
	bad.Password = "wrong"
	ts2 := startServer(t, &bad)
	if status, _ := ts2.call(t, "GET", "/readyz", "", nil); status != 503 {
		t.Fatalf("/readyz with a wrong Redis password: %d", status)
	}
}

func TestInvalidSettingsFailAtStart(t *testing.T) {
	parallel(t)
	for env, want := range map[string]string{
		"MICROBLOG_BCRYPT_COST=abc":        "MICROBLOG_BCRYPT_COST",
		"MICROBLOG_RATE_LIMITS=post=fast":  "MICROBLOG_RATE_LIMITS",
		"REDIS_URL=http://nope":            "REDIS_URL",
		"MICROBLOG_SESSION_TTL=forever":    "MICROBLOG_SESSION_TTL",
		"MICROBLOG_ALLOWED_ORIGINS=nohost": "MICROBLOG_ALLOWED_ORIGINS",
		"MICROBLOG_LOG_LEVEL=loud":         "MICROBLOG_LOG_LEVEL",
	} {
		k, v, _ := strings.Cut(env, "=")
		getenv := func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
		ctx, cancel := context.WithTimeout(context.Background(), hangWait)
		err := run(ctx, nil, getenv, io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: run returned %v, want an error naming %s", env, err, want)
		}
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"-no-such-flag"}, func(string) string { return "" }, io.Discard, &stderr); err == nil {
		t.Errorf("unknown flag accepted")
	}
}

func TestRedisOverTLS(t *testing.T) {
	parallel(t)
	r, caFile := storetest.StartTLS(t)
	ts := startServer(t, r, "REDIS_URL="+r.TLSURL(), "MICROBLOG_REDIS_CA="+caFile)
	alice, _ := ts.register(t, "alice")
	ts.post(t, alice, "over TLS", 0)
	if got := r.Client().Get(context.Background(), keysOf(r.Client()).LastPostID()).Val(); got != "1" {
		t.Fatalf("global:postid over TLS = %q", got)
	}
	if status, _ := ts.call(t, "GET", "/readyz", "", nil); status != 200 {
		t.Fatalf("/readyz over TLS: %d", status)
	}
}

func TestHeadRequests(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	for _, path := range []string{"/", "/m/", "/healthz", "/u/alice"} {
		if status, _ := ts.call(t, "HEAD", path, "", nil); status != 200 {
			t.Errorf("HEAD %s: %d", path, status)
		}
	}
}

// TestRedisPrefix runs a server whose keys and channels all carry a prefix:
// nothing is written outside it, and the live feed still works.
func TestRedisPrefix(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_REDIS_PREFIX=mb:")
	starTok, _ := ts.register(t, "star")
	fanTok, _ := ts.register(t, "fan")
	ts.follow(t, fanTok, "star", true)
	ws := ts.dialWS(t, fanTok, "")
	ws.ready(t)
	id := ts.newPost(t, starTok, "prefixed")
	ws.expect(t, "post", id)
	keys := storetest.Keys(t, ts.rdb(), "*")
	if len(keys) == 0 {
		t.Fatal("no keys written")
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "mb:") {
			t.Errorf("key %q outside the prefix", k)
		}
	}
	// The author's own G is written with the post; the fan's by the fan-out
	// job, which may still be running.
	k := keysOf(ts.rdb())
	for _, key := range []string{"mb:" + k.LastPostID(), "mb:" + k.Home(1)} {
		if ts.rdb().Exists(context.Background(), key).Val() != 1 {
			t.Errorf("prefixed post key %s missing", key)
		}
	}
}

// TestSignupAndLoginLimitsPerAddress: with MICROBLOG_TRUST_PROXY the client
// address comes from X-Forwarded-For, and each address has its own budget.
func TestSignupAndLoginLimitsPerAddress(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=signup=1/1h,login=1/1h", "MICROBLOG_TRUST_PROXY=true")
	send := func(path, name, addr string) int {
		resp := ts.do(t, "POST", path, "", map[string]string{"username": name, "password": testPassword},
			http.Header{"X-Forwarded-For": {addr}})
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := send("/api/v1/users", "first", "203.0.113.1"); s != 201 {
		t.Fatalf("first sign-up: %d", s)
	}
	if s := send("/api/v1/users", "second", "203.0.113.1"); s != 429 {
		t.Fatalf("second sign-up from the same address: %d, want 429", s)
	}
	if s := send("/api/v1/users", "second", "203.0.113.2"); s != 201 {
		t.Fatalf("sign-up from another address: %d", s)
	}
	if s := send("/api/v1/sessions", "first", "203.0.113.1"); s != 200 {
		t.Fatalf("first login: %d", s)
	}
	if s := send("/api/v1/sessions", "first", "203.0.113.1"); s != 429 {
		t.Fatalf("second login from the same address: %d, want 429", s)
	}
}

func TestJSONLogs(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_LOG_FORMAT=json", "MICROBLOG_LOG_LEVEL=info")
	ts.call(t, "GET", "/healthz", "", nil)
	line := ""
	for _, l := range strings.Split(ts.logs.String(), "\n") {
		if strings.Contains(l, `"path":"/healthz"`) {
			line = l
		}
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(line), &entry); err != nil || entry["msg"] != "request" || entry["status"] != float64(200) {
		t.Fatalf("request log line %q is not the JSON expected: %v", line, err)
	}
}
