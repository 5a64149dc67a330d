package hub_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/hub/wstest"
	"microblog/store"
	"microblog/store/redisdb"
	"microblog/store/redisdb/pubsub"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// stack is a hub on a real Redis, with a bare WebSocket endpoint that trusts
// the ?uid= and ?token= it is given (authentication is the server's
// business).
type stack struct {
	redis *storetest.Redis
	st    *redisdb.Store
	hub   *hub.Hub
	url   string
}

func newStack(t *testing.T, opt hub.Options) *stack {
	t.Helper()
	r := storetest.Start(t)
	st := redisdb.New(r.Client(), redisdb.Options{BcryptCost: 4})
	sub := pubsub.New(st.Client(), st.Keys())
	h := hub.New(sub, st, opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sub.Run(ctx, h) }()
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var uid int64
		json.Unmarshal([]byte(r.URL.Query().Get("uid")), &uid)
		tokenHash := "t"
		if token := r.URL.Query().Get("token"); token != "" {
			tokenHash = store.TokenHash(token)
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		h.Serve(ws, hub.Client{UserID: uid, TokenHash: tokenHash})
	}))
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), hangWait)
		defer scancel()
		if err := h.Shutdown(sctx); err != nil {
			t.Errorf("hub shutdown: %v", err)
		}
		cancel()
		<-done
		srv.Close()
	})
	return &stack{redis: r, st: st, hub: h, url: "ws" + strings.TrimPrefix(srv.URL, "http")}
}

func (s *stack) user(t *testing.T, name string) int64 {
	t.Helper()
	u, _, err := s.st.Register(context.Background(), name, "a fine password")
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// connect opens a connection for uid and waits for its ready frame.
func (s *stack) connect(t *testing.T, uid int64) *wstest.Client {
	t.Helper()
	c := wstest.Dial(t, s.url+"/?uid="+jsonInt(uid), nil)
	if f := c.Next(t, hangWait); f.Event != "ready" {
		t.Fatalf("first frame %q, want ready", f.Event)
	}
	return c
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// numSub is how many subscribers Redis counts on channel.
func (s *stack) numSub(t *testing.T, channel string) int64 {
	t.Helper()
	n, err := s.redis.Client().PubSubNumSub(context.Background(), channel).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n[channel]
}

// waitFor polls cond (a Redis-side count the hub cannot signal) until true.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSubscriptionsAreSharedAndLinger: one subscription per channel however
// many local connections want it, kept for Linger after the last one leaves.
func TestSubscriptionsAreSharedAndLinger(t *testing.T) {
	s := newStack(t, hub.Options{Linger: 200 * time.Millisecond})
	star, fan1, fan2 := s.user(t, "star"), s.user(t, "fan1"), s.user(t, "fan2")
	ctx := context.Background()
	for _, fan := range []int64{fan1, fan2} {
		if err := s.st.Follow(ctx, fan, star); err != nil {
			t.Fatal(err)
		}
	}
	a := s.connect(t, fan1)
	b := s.connect(t, fan1) // a second tab of the same user
	c := s.connect(t, fan2)
	channel := schema.NewKeys("", false).AuthorChannel(star)
	if n := s.numSub(t, channel); n != 1 {
		t.Fatalf("%d subscriptions to the star's channel, want 1", n)
	}

	p, err := s.st.Create(ctx, store.NewPost{Author: star, Content: "to all three"})
	if err != nil {
		t.Fatal(err)
	}
	for _, conn := range []*wstest.Client{a, b, c} {
		if f := conn.Next(t, hangWait); f.Event != store.EventPost || !strings.Contains(string(f.Data), `"id":`+jsonInt(p.ID)) {
			t.Fatalf("got %s %s", f.Event, f.Data)
		}
	}

	left := time.Now()
	for _, conn := range []*wstest.Client{a, b, c} {
		conn.Conn.Close()
	}
	waitFor(t, "the hub to drop its connections", func() bool { return s.hub.Connections() == 0 })
	if n := s.numSub(t, channel); n != 1 && time.Since(left) < 150*time.Millisecond {
		t.Fatalf("unsubscribed before the linger delay")
	}
	waitFor(t, "the lingering subscription to end", func() bool { return s.numSub(t, channel) == 0 })
	if d := time.Since(left); d < 200*time.Millisecond {
		t.Fatalf("unsubscribed after %s, before the 200ms linger", d)
	}
}

// TestReconnectWithinLingerKeepsSubscription: a reconnect inside the linger
// delay reuses the subscription instead of churning it.
func TestReconnectWithinLingerKeepsSubscription(t *testing.T) {
	s := newStack(t, hub.Options{Linger: time.Minute})
	star, fan := s.user(t, "star"), s.user(t, "fan")
	ctx := context.Background()
	if err := s.st.Follow(ctx, fan, star); err != nil {
		t.Fatal(err)
	}
	s.connect(t, fan).Conn.Close()
	waitFor(t, "the hub to drop the connection", func() bool { return s.hub.Connections() == 0 })
	c := s.connect(t, fan)
	if n := s.numSub(t, schema.NewKeys("", false).AuthorChannel(star)); n != 1 {
		t.Fatalf("%d subscriptions, want 1", n)
	}
	p, err := s.st.Create(ctx, store.NewPost{Author: star, Content: "still there"})
	if err != nil {
		t.Fatal(err)
	}
	if f := c.Next(t, hangWait); f.Event != store.EventPost || !strings.Contains(string(f.Data), `"id":`+jsonInt(p.ID)) {
		t.Fatalf("got %s %s", f.Event, f.Data)
	}
}

// TestShutdownClosesWithGoingAway: Shutdown closes sockets with 1001 and
// waits for their goroutines.
func TestShutdownClosesWithGoingAway(t *testing.T) {
	s := newStack(t, hub.Options{})
	c := s.connect(t, s.user(t, "alice"))
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	if err := s.hub.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if frames, code := c.Drain(hangWait); len(frames) > 0 || code != websocket.CloseGoingAway {
		t.Fatalf("read after shutdown: %v and close %d, want close 1001", frames, code)
	}
}

// create makes a post (or repost) through the store.
func (s *stack) create(t *testing.T, np store.NewPost) store.Post {
	t.Helper()
	p, err := s.st.Create(context.Background(), np)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// expectPost fails unless c's next frame is post id.
func expectPost(t *testing.T, c *wstest.Client, id int64) {
	t.Helper()
	if f := c.Next(t, hangWait); f.Event != store.EventPost || !strings.Contains(string(f.Data), `"id":`+jsonInt(id)+",") {
		t.Fatalf("got %s %s, want post %d", f.Event, f.Data, id)
	}
}

// TestBlockedAuthorsRepostWithheld: through the store, a third user's repost
// of a post by the user the reader has just blocked does not reach the
// reader's open socket (the issue's own case); what follows it does.
func TestBlockedAuthorsRepostWithheld(t *testing.T) {
	s := newStack(t, hub.Options{})
	reader, blocked, third := s.user(t, "reader"), s.user(t, "blocked"), s.user(t, "third")
	ctx := context.Background()
	if err := s.st.Follow(ctx, reader, third); err != nil {
		t.Fatal(err)
	}
	orig := s.create(t, store.NewPost{Author: blocked, Content: "from before the block"})
	c := s.connect(t, reader)
	if err := s.st.Block(ctx, reader, blocked, true); err != nil {
		t.Fatal(err)
	}
	s.create(t, store.NewPost{Author: third, RepostOf: orig.ID})
	expectPost(t, c, s.create(t, store.NewPost{Author: third, Content: "after it"}).ID)
}

// TestMutesAndFiltersWithheld: through the store, a mute and a word filter
// set while the reader is connected hold back what they hide at once.
func TestMutesAndFiltersWithheld(t *testing.T) {
	s := newStack(t, hub.Options{})
	reader, muted, star := s.user(t, "reader"), s.user(t, "muted"), s.user(t, "star")
	ctx := context.Background()
	for _, st := range []int64{muted, star} {
		if err := s.st.Follow(ctx, reader, st); err != nil {
			t.Fatal(err)
		}
	}
	c := s.connect(t, reader)
	if err := s.st.Mute(ctx, reader, muted, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.st.SetFilters(ctx, reader, []string{"天气", "RUST"}); err != nil {
		t.Fatal(err)
	}
	s.create(t, store.NewPost{Author: muted, Content: "muted"})
	s.create(t, store.NewPost{Author: star, Content: "今天天气好"})
	s.create(t, store.NewPost{Author: star, Content: "learning rust"})
	expectPost(t, c, s.create(t, store.NewPost{Author: star, Content: "晴"}).ID)
}

// TestSuspendClosesSockets: suspending a user ends its sessions, and their
// session_revoked events close its open sockets with 4001.
func TestSuspendClosesSockets(t *testing.T) {
	s := newStack(t, hub.Options{})
	ctx := context.Background()
	u, token, err := s.st.Register(ctx, "troll", "a fine password")
	if err != nil {
		t.Fatal(err)
	}
	c := wstest.Dial(t, s.url+"/?uid="+jsonInt(u.ID)+"&token="+url.QueryEscape(token), nil)
	if f := c.Next(t, hangWait); f.Event != store.EventReady {
		t.Fatalf("first frame %q, want ready", f.Event)
	}
	if err := s.st.Suspend(ctx, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if frames, code := c.Drain(hangWait); code != hub.CloseLoggedOut || len(frames) > 0 {
		t.Fatalf("got %v and close %d, want close %d", frames, code, hub.CloseLoggedOut)
	}
}
