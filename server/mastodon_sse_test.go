package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"microblog/server/mastodon"
)

// sseEvent is one server-sent event, or a comment line (Event "", Comment set).
type sseEvent struct {
	Event, Data, Comment string
}

// sseClient reads a stream of server-sent events.
type sseClient struct {
	resp   *http.Response
	events chan sseEvent
	cancel context.CancelFunc
}

// openSSE opens GET path as an event stream with token (as a bearer token,
// unless "") and returns the answer; a 200 stream is read, and returned
// once live (its greeting, the comment ":)", read).
func (ts *testServer) openSSE(t *testing.T, path, token string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", path, err)
	}
	c := &sseClient{resp: resp, events: make(chan sseEvent, 100), cancel: cancel}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		close(c.events)
		return c
	}
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" || ev.Data != "" {
					c.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				c.events <- sseEvent{Comment: line[1:]}
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.Data += line[len("data: "):]
			}
		}
	}()
	select { // the stream is live once its greeting is in
	case ev := <-c.events:
		if ev.Comment != ")" {
			t.Fatalf("GET %s began with %+v, want the comment \":)\"", path, ev)
		}
	case <-time.After(hangWait):
		t.Fatalf("GET %s: no greeting within %v", path, hangWait)
	}
	return c
}

// next waits for the next event named name, skipping comments and others.
func (c *sseClient) next(t *testing.T, name string) sseEvent {
	t.Helper()
	deadline := time.After(hangWait)
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				t.Fatalf("the stream ended while waiting for %s", name)
			}
			if ev.Event == name {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event within %v", name, hangWait)
		}
	}
}

// TestMastodonSSE: the streams as server-sent events: a followed account's
// post, its edit and its deletion on the user stream, a notification on
// user/notification, a public post on public and on its hashtag's stream
// (token by ?access_token=, as a browser's EventSource sends it), and
// ?only_media keeping pictureless posts out, each event named as on the
// WebSocket with its payload as data.
func TestMastodonSSE(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	reader, _ := ts.mastodonUser(t, "reader", "")
	author, _ := ts.mastodonUser(t, "author", "")
	var authorAcct mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", author, nil, &authorAcct)
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+authorAcct.ID+"/follow", reader, nil, nil)

	user := ts.openSSE(t, "/api/v1/streaming/user", reader)
	if ct := user.resp.Header.Get("Content-Type"); user.resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("GET /api/v1/streaming/user: %d %s", user.resp.StatusCode, ct)
	}
	notes := ts.openSSE(t, "/api/v1/streaming/user/notification", author)
	public := ts.openSSE(t, "/api/v1/streaming/public?access_token="+reader, "")
	tag := ts.openSSE(t, "/api/v1/streaming/hashtag?tag=Tea&access_token="+reader, "")
	media := ts.openSSE(t, "/api/v1/streaming/public?only_media=true", reader)
	for _, c := range []*sseClient{user, notes, public, tag, media} {
		if c.resp.StatusCode != http.StatusOK {
			t.Fatalf("a stream answered %d", c.resp.StatusCode)
		}
	}
	var st mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", author, map[string]string{"status": "green #tea today"}, &st)
	for what, c := range map[string]*sseClient{"user": user, "public": public, "hashtag": tag} {
		ev := c.next(t, "update")
		var got mastodon.Status
		if err := json.Unmarshal([]byte(ev.Data), &got); err != nil || got.ID != st.ID || got.Account.Username != "author" {
			t.Errorf("%s stream update = %s (%v), want status %s", what, ev.Data, err, st.ID)
		}
	}
	ts.mastodonJSON(t, "PUT", "/api/v1/statuses/"+st.ID, author, map[string]string{"status": "green #tea, edited"}, nil)
	if ev := user.next(t, "status.update"); !strings.Contains(ev.Data, "edited") {
		t.Errorf("status.update = %s", ev.Data)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/statuses/"+st.ID+"/favourite", reader, nil, nil)
	var n mastodon.Notification
	if ev := notes.next(t, "notification"); json.Unmarshal([]byte(ev.Data), &n) != nil || n.Type != "favourite" || n.Status == nil || n.Status.ID != st.ID {
		t.Errorf("notification = %s", ev.Data)
	}
	ts.mastodonJSON(t, "DELETE", "/api/v1/statuses/"+st.ID, author, nil, nil)
	if ev := user.next(t, "delete"); ev.Data != st.ID {
		t.Errorf("delete data = %q, want the id %s", ev.Data, st.ID)
	}
	// The delete reaches every public stream (the post's tags are gone by
	// then); the post, without a picture, never reached the media stream.
	for deadline := time.After(hangWait); ; {
		select {
		case ev := <-media.events:
			if ev.Event == "update" || ev.Event == "status.update" {
				t.Errorf("the only_media stream got %s %s", ev.Event, ev.Data)
			}
			if ev.Event != "delete" {
				continue
			}
		case <-deadline:
			t.Fatalf("no delete on the only_media stream within %v", hangWait)
		}
		break
	}
}

// TestMastodonSSERefusals: a stream without a token is 401, one outside
// the token's scopes 401, an unknown list 404, a hashtag stream without a
// tag 400 or 422, each with Mastodon's {"error"} and no stream; an app's
// token may read the public stream, not the user's.
func TestMastodonSSERefusals(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	reader, _ := ts.mastodonUser(t, "reader", "")
	writeOnly, _ := ts.mastodonUser(t, "writer", "write")
	cfg := ts.mastodonApp(t, "read")
	appTok := ts.clientCredentials(t, cfg)
	for _, tc := range []struct {
		path, token string
		want        []int
	}{
		{"/api/v1/streaming/user", "", []int{http.StatusUnauthorized}},
		{"/api/v1/streaming/public", "", []int{http.StatusUnauthorized}},
		{"/api/v1/streaming/user", writeOnly, []int{http.StatusUnauthorized}},
		{"/api/v1/streaming/user", appTok, []int{http.StatusUnauthorized}},
		{"/api/v1/streaming/list?list=1", reader, []int{http.StatusNotFound}},
		{"/api/v1/streaming/hashtag", reader, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}},
	} {
		c := ts.openSSE(t, tc.path, tc.token)
		var e mastodon.ErrorBody
		json.NewDecoder(c.resp.Body).Decode(&e)
		ok := false
		for _, w := range tc.want {
			ok = ok || c.resp.StatusCode == w
		}
		if !ok || e.Error == "" || strings.HasPrefix(c.resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("GET %s: %d %q (%s), want %v with an error", tc.path, c.resp.StatusCode, e.Error, c.resp.Header.Get("Content-Type"), tc.want)
		}
	}
	if c := ts.openSSE(t, "/api/v1/streaming/public/local", appTok); c.resp.StatusCode != http.StatusOK {
		t.Errorf("an app's token on public/local: %d, want 200", c.resp.StatusCode)
	}
}

// TestMastodonSSEHeartbeatAndShutdown: an idle stream gets a comment line
// every ping period, so that proxies keep it; a client that leaves frees
// its connection; a server that shuts down ends its streams and stops
// cleanly.
func TestMastodonSSEHeartbeatAndShutdown(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_WS_PONG_WAIT=1s")
	reader, _ := ts.mastodonUser(t, "reader", "")
	left := ts.openSSE(t, "/api/v1/streaming/user", reader)
	c := ts.openSSE(t, "/api/v1/streaming/user", reader)
	beats := 0
	for deadline := time.After(hangWait); beats < 2; {
		select {
		case ev, ok := <-c.events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.Comment == "thump" {
				beats++
			}
		case <-deadline:
			t.Fatalf("%d heartbeats within %v, want 2", beats, hangWait)
		}
	}
	left.cancel()
	for deadline := time.Now().Add(hangWait); ; time.Sleep(20 * time.Millisecond) {
		_, body := ts.call(t, "GET", "/metrics", "", nil)
		if metricValue(string(body), "microblog_live_connections") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream whose client left is still counted: %v", metricValue(string(body), "microblog_live_connections"))
		}
	}
	ts.Stop() // fails the test if the server does not stop cleanly
	for ev := range c.events {
		_ = ev // drained: the stream has ended
	}
}

// clientCredentials is an app's own token (no user) for cfg's app.
func (ts *testServer) clientCredentials(t *testing.T, cfg *oauth2.Config) string {
	t.Helper()
	cc := clientcredentials.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: cfg.Endpoint.TokenURL,
		Scopes: cfg.Scopes, AuthStyle: oauth2.AuthStyleInParams}
	tok, err := cc.Token(context.Background())
	if err != nil {
		t.Fatalf("client credentials: %v", err)
	}
	return tok.AccessToken
}
