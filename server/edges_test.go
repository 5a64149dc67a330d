package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/gorilla/websocket"
)

// Tests of the connection limits and HTTP edges of issue 9: each one failed
// before its fix. They are named TestEdges… so that they run together.

// dialWSStatus opens /ws with token and returns the connection, or the
// status and body of the refusal.
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

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

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
