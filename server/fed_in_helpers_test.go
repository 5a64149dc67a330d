package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// newFedServer starts a server with federation on, its public URL its own
// origin, peers on loopback allowed.
func newFedServer(t testing.TB, env ...string) *testServer {
	t.Helper()
	return newTestServer(t, append([]string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self",
		"MICROBLOG_FEDERATION_ALLOW_PRIVATE=on"}, env...)...)
}

// activityJSON is the Accept of an ActivityPub client.
const activityJSON = "application/activity+json"

// getAP fetches url (absolute) as an ActivityPub client, decoding a 200's
// JSON into v; it returns the status.
func getAP(t testing.TB, url string, v any) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", activityJSON)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v: %s", url, err, body)
		}
	}
	return resp.StatusCode
}
