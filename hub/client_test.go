package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/hub/wstest"
	"microblog/store"
)

// testHub is a hub on the in-memory fakes, served over loopback WebSockets
// by a bare endpoint that trusts ?uid=, ?token= and ?after= (authentication
// is the server's business).
type testHub struct {
	*hub.Hub
	broker *fakeBroker
	tl     *fakeTimeline
	url    string
	// builds counts the frames that the connections opened with
	// ?format= built (format_test.go).
	builds *atomic.Int64
}

func newTestHub(t *testing.T, opt hub.Options) *testHub {
	t.Helper()
	b, tl := newFakeBroker(), newFakeTimeline()
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	h := hub.New(b, tl, opt)
	b.h = h
	builds := new(atomic.Int64)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		cl := hub.Client{TokenHash: q.Get("token")}
		cl.UserID, _ = strconv.ParseInt(q.Get("uid"), 10, 64)
		if s := q.Get("after"); s != "" {
			cl.After, _ = strconv.ParseInt(s, 10, 64)
			cl.HasAfter = true
		}
		if s := q.Get("seen"); s != "" {
			for _, id := range strings.Split(s, ",") {
				n, _ := strconv.ParseInt(id, 10, 64)
				cl.Seen = append(cl.Seen, n)
			}
		}
		if s := q.Get("messages_after"); s != "" {
			cl.DMsAfter, _ = strconv.ParseInt(s, 10, 64)
			cl.HasDMsAfter = true
		}
		if q.Has("format") {
			cl.Format, cl.Public = &testFormat{builds: builds}, q.Has("public")
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		h.Serve(ws, cl)
	}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangWait)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("hub shutdown: %v", err)
		}
		srv.Close()
	})
	return &testHub{Hub: h, broker: b, tl: tl, url: "ws" + strings.TrimPrefix(srv.URL, "http"), builds: builds}
}

// post publishes a new post by author the way the store does: timelines
// first, then the live event. It returns the post's id.
func (th *testHub) post(author int64) int64 {
	return th.postText(author, "hello")
}

func (th *testHub) postText(author int64, content string) int64 {
	p := th.tl.add(author, content)
	th.broker.publish(store.AuthorTopic(author), store.EventPost, p)
	return p.ID
}

// stars publishes the internal event that fan followed or unfollowed star.
func (th *testHub) stars(fan, star int64, following bool) {
	th.broker.publish(store.NotifyTopic(fan), store.EventStars, store.StarsData{StarID: star, Following: following})
}

// revoke publishes the internal event that uid's session tokenHash logged out.
func (th *testHub) revoke(uid int64, tokenHash string) {
	th.broker.publish(store.NotifyTopic(uid), store.EventSessionRevoked, store.SessionRevokedData{TokenHash: tokenHash})
}

// hangWait bounds each wait of these tests for what must come (a frame, a
// close, a count): a deadline against a hang, never a speed check, far
// above what a busy 2-core machine under the race detector needs.
const hangWait = time.Minute

// client is one WebSocket peer of a test hub.
type client struct {
	t *testing.T
	*wstest.Client
}

// dial connects as uid; query may add "token=…&after=…". It does not wait
// for ready: a test expects that frame itself.
func (th *testHub) dial(t *testing.T, uid int64, query string) *client {
	t.Helper()
	return th.dialWith(t, wstest.Dial, uid, query)
}

// dialWith is dial through dial (wstest.DialSlow for a client that reads
// only when asked).
func (th *testHub) dialWith(t *testing.T, dial func(testing.TB, string, http.Header) *wstest.Client, uid int64, query string) *client {
	t.Helper()
	return &client{t: t, Client: dial(t, th.url+"/?uid="+strconv.FormatInt(uid, 10)+"&"+query, nil)}
}

// wantPost and wantReady spell frames as describe does.
func wantPost(id int64) string      { return fmt.Sprintf("post %d", id) }
func wantReady(lastID int64) string { return fmt.Sprintf("ready %d", lastID) }

// describe names a frame for comparing sequences: "post 3", "comment 4",
// "notification 6", "ready 5", "ready 5 truncated", or else its event.
func describe(f wstest.Frame) string {
	var d struct {
		ID        int64 `json:"id"`
		LastID    int64 `json:"last_id"`
		Truncated bool  `json:"truncated"`
	}
	json.Unmarshal(f.Data, &d)
	switch f.Event {
	case store.EventPost, store.EventComment, store.EventNotification:
		return fmt.Sprintf("%s %d", f.Event, d.ID)
	case "ready":
		if d.Truncated {
			return wantReady(d.LastID) + " truncated"
		}
		return wantReady(d.LastID)
	}
	return f.Event
}

// expect reads the next frames and fails unless they are want, in order.
func (c *client) expect(want ...string) {
	c.t.Helper()
	for i, w := range want {
		if got := describe(c.Next(c.t, hangWait)); got != w {
			c.t.Fatalf("frame %d: got %q, want %q of %q", i, got, w, want)
		}
	}
}

// closed reads until the connection ends and returns the frames read on the
// way and the close code (0: the connection ended without one).
func (c *client) closed() (frames []string, code int) {
	fs, code := c.Drain(hangWait)
	for _, f := range fs {
		frames = append(frames, describe(f))
	}
	return frames, code
}

// expectClose fails unless the connection closes with code and nothing
// before it.
func (c *client) expectClose(code int) {
	c.t.Helper()
	if frames, got := c.closed(); got != code || len(frames) > 0 {
		c.t.Fatalf("closed with %d after %q, want %d and no frames", got, frames, code)
	}
}
