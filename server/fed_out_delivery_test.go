package main

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
)

// fedOutEnv are the settings of the outbound tests: retries after 200 ms.
var fedOutEnv = []string{"MICROBLOG_FEDERATION_RETRY_BASE=200ms"}

// TestFedOutPostReachesEachSharedInboxOnce: a public post by a user whose
// followers are on other servers reaches each server's shared inbox once
// (two followers on one server, one request), a follower without a shared
// inbox at its own inbox, each signed by the author's key (verified against
// the actor our server serves) as a Create of a Note addressed to the public
// and the followers; a dead server and a slow one delay no other.
func TestFedOutPostReachesEachSharedInboxOnce(t *testing.T) {
	parallel(t)
	ts := newFedServer(t, fedOutEnv...)
	token, alice := ts.register(t, "alice")
	a, b, solo, slow := newAPInbox(t), newAPInbox(t), newAPInbox(t), newAPInbox(t)
	slow.hold = make(chan struct{}) // answers only once every healthy server has the post
	ts.remoteFollower(t, a, "ann", alice, true)
	ts.remoteFollower(t, a, "amy", alice, true)
	ts.remoteFollower(t, b, "bob", alice, true)
	ts.remoteFollower(t, solo, "sol", alice, false)
	ts.remoteFollower(t, slow, "sly", alice, true)
	dead := deadBase(t)
	ts.remoteFollowerAt(t, dead, "ded", alice)

	p := ts.post(t, token, "hello fediverse #intro", 0)
	for _, in := range []*apInbox{a, b, solo} {
		h := in.wait(t, 1)
		act := h[0].activity
		obj, _ := act["object"].(map[string]any)
		wantObj := ts.URL + "/ap/posts/" + strconv.FormatInt(p.ID, 10)
		if act["type"] != "Create" || obj["id"] != wantObj || obj["type"] != "Note" || act["actor"] != ts.URL+"/ap/users/"+strconv.FormatInt(alice, 10) {
			t.Fatalf("%s got %v", in.srv.URL, act)
		}
		if h[0].keyID != act["actor"].(string)+"#main-key" {
			t.Errorf("signed by %s", h[0].keyID)
		}
		if to := fmt.Sprint(act["to"]); to != "[https://www.w3.org/ns/activitystreams#Public]" {
			t.Errorf("to %s", to)
		}
		if h[0].path != "/inbox" && in != solo || in == solo && h[0].path != "/users/sol/inbox" {
			t.Errorf("%s: delivered to %s", in.srv.URL, h[0].path)
		}
	}
	// Every healthy inbox had it while the slow one still held its answer
	// (and the dead one refused): neither delayed the others.
	close(slow.hold)
	slow.wait(t, 1)
	time.Sleep(300 * time.Millisecond)
	if n := len(a.hits()); n != 1 {
		t.Errorf("the server of two followers got %d requests, want 1", n)
	}
}

// remoteFollowerAt is remoteFollower for a server that is not there.
func (ts *testServer) remoteFollowerAt(t testing.TB, base, name string, uid int64) int64 {
	t.Helper()
	ruid := ts.remoteAccount(t, base, name, true)
	st := ts.fedStore(t)
	if err := st.Follow(t.Context(), ruid, uid); err != nil {
		t.Fatal(err)
	}
	return ruid
}

// TestFedOutProtectedGoesToFollowersOnly: a protected account's post
// reaches its approved remote followers, addressed to its followers alone,
// and never the inbox of a remote account it mentions that does not follow
// it.
func TestFedOutProtectedGoesToFollowersOnly(t *testing.T) {
	parallel(t)
	ts := newFedServer(t, fedOutEnv...)
	token, pat := ts.register(t, "pat")
	fan, stranger := newAPInbox(t), newAPInbox(t)
	ts.remoteFollower(t, fan, "fay", pat, true)
	ts.remoteAccount(t, stranger.srv.URL, "sam", true)
	if _, err := ts.fedStore(t).SetProtected(t.Context(), pat, true); err != nil {
		t.Fatal(err)
	}
	ts.post(t, token, "for my followers, not @sam@"+hostOf(stranger.srv.URL), 0)
	h := fan.wait(t, 1)
	act := h[0].activity
	if to := fmt.Sprint(act["to"]); to != "["+ts.URL+"/ap/users/"+strconv.FormatInt(pat, 10)+"/followers]" {
		t.Errorf("to %s", to)
	}
	if slices.Contains(anyStrings(act["to"]), "https://www.w3.org/ns/activitystreams#Public") ||
		slices.Contains(anyStrings(act["cc"]), "https://www.w3.org/ns/activitystreams#Public") {
		t.Errorf("a protected post addressed to the public: %v", act)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(stranger.hits()); n != 0 {
		t.Fatalf("a non-follower's inbox got %d requests", n)
	}
}

func hostOf(u string) string { return u[len("http://"):] }

func anyStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestFedOutRetriesThenDelivers: an inbox that answers 503 gets the
// activity again after the back-off, and once it takes it no more; one
// that answers 410 gets it once.
func TestFedOutRetriesThenDelivers(t *testing.T) {
	parallel(t)
	ts := newFedServer(t, fedOutEnv...)
	token, alice := ts.register(t, "alice")
	flaky, gone := newAPInbox(t), newAPInbox(t)
	flaky.status = func(n int) int {
		if n < 2 {
			return 503
		}
		return 202
	}
	gone.status = func(int) int { return 410 }
	ts.remoteFollower(t, flaky, "fla", alice, true)
	ts.remoteFollower(t, gone, "gon", alice, true)
	ts.post(t, token, "try again", 0)
	h := flaky.wait(t, 3)
	if d1, d2 := h[1].at.Sub(h[0].at), h[2].at.Sub(h[1].at); d1 < 200*time.Millisecond || d2 < 400*time.Millisecond {
		t.Errorf("retried after %v and %v, want at least 200ms and 400ms", d1, d2)
	}
	time.Sleep(time.Second)
	if n, g := len(flaky.hits()), len(gone.hits()); n != 3 || g != 1 {
		t.Fatalf("requests: %d to the flaky inbox (want 3), %d to the gone one (want 1)", n, g)
	}
}

// TestFedOutRestartLosesNothing: a delivery under way when its server
// stops is sent by the next server on the same Redis.
func TestFedOutRestartLosesNothing(t *testing.T) {
	parallel(t)
	// On a redis-server of its own, which the next server takes over.
	ts := startServer(t, startRedis(t), append([]string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self",
		"MICROBLOG_FEDERATION_ALLOW_PRIVATE=on"}, fedOutEnv...)...)
	token, alice := ts.register(t, "alice")
	in := newAPInbox(t)
	in.delay = 30 * time.Second // the first server's request hangs
	ts.remoteFollower(t, in, "rex", alice, true)
	p := ts.post(t, token, "survive a restart", 0)
	time.Sleep(500 * time.Millisecond) // taken and under way
	ts.Stop()
	in.mu.Lock()
	in.delay = 0
	in.mu.Unlock()
	// The next server on its own port: the request it sends names its
	// key there (the same key, kept in Redis), the activity is the one
	// queued before.
	startServer(t, ts.Redis, append([]string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self",
		"MICROBLOG_FEDERATION_ALLOW_PRIVATE=on"}, fedOutEnv...)...)
	h := in.wait(t, 1)
	obj, _ := h[0].activity["object"].(map[string]any)
	if obj["id"] != ts.URL+"/ap/posts/"+strconv.FormatInt(p.ID, 10) {
		t.Fatalf("got %v", h[0].activity)
	}
}

// TestFedOutNoLoopbackWithoutAllowPrivate: without
// MICROBLOG_FEDERATION_ALLOW_PRIVATE no request goes to a loopback
// address: the delivery is refused and dropped.
func TestFedOutNoLoopbackWithoutAllowPrivate(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, append([]string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self"}, fedOutEnv...)...)
	token, alice := ts.register(t, "alice")
	in := newAPInbox(t)
	ts.remoteFollower(t, in, "lou", alice, true)
	ts.post(t, token, "not to loopback", 0)
	rdb, keys := ts.rdb(), keysOf(ts.rdb())
	deadline := time.Now().Add(hangWait)
	for {
		n, _ := rdb.XLen(t.Context(), keys.FedOutbox()).Result()
		d, _ := rdb.XLen(t.Context(), keys.FedDeliveries()).Result()
		r, _ := rdb.ZCard(t.Context(), keys.FedRetries()).Result()
		if n == 0 && d == 0 && r == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("queues not drained: outbox %d, deliveries %d, retries %d", n, d, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(in.hits()); n != 0 {
		t.Fatalf("a loopback inbox got %d requests", n)
	}
}

// TestFedOutDomainBlockStopsDelivery: nothing is sent to a blocked domain
// (checked at each request, so also for what was queued before the block);
// other servers still get it.
func TestFedOutDomainBlockStopsDelivery(t *testing.T) {
	parallel(t)
	ts := newFedServer(t, fedOutEnv...)
	token, alice := ts.register(t, "alice")
	open, blocked := newAPInbox(t), newAPInbox(t)
	ts.remoteFollower(t, open, "ope", alice, true)
	ts.remoteFollower(t, blocked, "blo", alice, true)
	ts.post(t, token, "first", 0)
	open.wait(t, 1)
	blocked.wait(t, 1)
	if err := ts.fedStore(t).BlockDomain(t.Context(), hostOf(blocked.srv.URL), true); err != nil {
		t.Fatal(err)
	}
	ts.post(t, token, "second", 0)
	open.wait(t, 2)
	time.Sleep(500 * time.Millisecond)
	if n := len(blocked.hits()); n != 1 {
		t.Fatalf("the blocked domain got %d requests, want only the one before the block", n)
	}
}
