package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// Tests of the connection limits and HTTP edges of issue 9: each one failed
// before its fix. They are named TestEdges… so that they run together.

// dialWSStatus opens /ws with header and returns the connection, or the
// answer and body of the refusal.
func (ts *testServer) dialWSStatus(t testing.TB, header http.Header) (*websocket.Conn, *http.Response, []byte) {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial(ts.wsURL(""), header)
	if err == nil {
		t.Cleanup(func() { conn.Close() })
		return conn, resp, nil
	}
	if resp == nil {
		t.Fatalf("dial /ws: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	return nil, resp, body
}

// bearer is the Authorization header of token.
func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// loginBody is a login body padded with spaces to exactly n bytes.
func loginBody(n int) string {
	b := fmt.Sprintf(`{"username":"alice","password":%q}`, testPassword)
	return b + strings.Repeat(" ", n-len(b))
}

func TestEdgesBodyLimitIs64KiB(t *testing.T) {
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

func TestEdgesBearerSchemeAnyCase(t *testing.T) {
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
