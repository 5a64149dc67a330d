package main

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFedInSignatureRefusals: an inbox POST unsigned, badly signed (the
// body changed after signing), dated more than an hour away, with a
// digest that is not the body's, or signed by another actor than its own
// is answered 401 and changes nothing; the same activity signed as it
// should be is taken.
func TestFedInSignatureRefusals(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	peer.addActor("eve")
	_, alice := ts.register(t, "alice")
	inbox := ts.URL + "/ap/inbox"
	follow := func(n int) map[string]any {
		return map[string]any{"id": peer.actor("bob") + "/follows/" + strconv.Itoa(n), "type": "Follow", "object": apUser(ts, alice)}
	}
	cases := []struct {
		name string
		opt  signOpts
	}{
		{"unsigned", signOpts{unsigned: true}},
		{"tampered body", signOpts{tamper: true}},
		{"stale date", signOpts{date: time.Now().Add(-2 * time.Hour)}},
		{"future date", signOpts{date: time.Now().Add(2 * time.Hour)}},
		{"wrong digest", signOpts{badDigest: true}},
		{"another actor's key", signOpts{as: "eve"}},
	}
	for i, c := range cases {
		if st := peer.send(t, inbox, "bob", follow(i), c.opt); st != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", c.name, st)
		}
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 0 {
		t.Fatalf("a refused follow went through: %d followers", u.FollowersCount)
	}
	if got := peer.received(); len(got) != 0 {
		t.Fatalf("a refused follow was answered: %+v", got)
	}
	// Refused ids were not spent: the same activity, signed, is taken.
	if st := peer.send(t, inbox, "bob", follow(0)); st != http.StatusAccepted {
		t.Fatalf("signed follow: %d", st)
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 1 {
		t.Errorf("signed follow: %d followers", u.FollowersCount)
	}
	// Not JSON, or no actor: 400.
	if st, _ := ts.call(t, "POST", "/ap/inbox", "", "not json"); st != http.StatusBadRequest {
		t.Errorf("garbage: %d", st)
	}
	// An activity whose id is on another server than its actor: 400.
	odd := follow(99)
	odd["id"] = "https://elsewhere.example/x"
	if st := peer.send(t, inbox, "bob", odd); st != http.StatusBadRequest {
		t.Errorf("foreign id: %d", st)
	}
}

// TestFedInDomainBlocks: an operator blocks a domain; its activities are
// refused (403) and changes nothing, its accounts are not looked up;
// unblocked, they are taken again. Only operators may block.
func TestFedInDomainBlocks(t *testing.T) {
	parallel(t)
	ts := newFedServer(t, "MICROBLOG_ADMINS=root")
	peer := newFakePeer(t)
	peer.addActor("bob")
	rootTok, _ := ts.register(t, "root")
	tok, alice := ts.register(t, "alice")
	domain := peer.host()
	if st, _ := ts.call(t, "PUT", "/api/v1/admin/domain_blocks/"+url.PathEscape(domain), tok, nil); st != http.StatusForbidden {
		t.Errorf("a user blocked a domain: %d", st)
	}
	if st, b := ts.call(t, "PUT", "/api/v1/admin/domain_blocks/"+url.PathEscape(domain), rootTok, nil); st != 200 || !strings.Contains(string(b), domain) {
		t.Fatalf("block: %d %s", st, b)
	}
	if st, _ := ts.call(t, "PUT", "/api/v1/admin/domain_blocks/not%20a%20domain", rootTok, nil); st != http.StatusBadRequest {
		t.Errorf("bad domain: %d", st)
	}
	follow := map[string]any{"id": peer.actor("bob") + "/follows/1", "type": "Follow", "object": apUser(ts, alice)}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", follow); st != http.StatusForbidden {
		t.Errorf("blocked follow: %d, want 403", st)
	}
	if st, _ := ts.call(t, "GET", "/api/v1/users/"+peer.handle("bob"), tok, nil); st != http.StatusForbidden {
		t.Errorf("blocked lookup: %d, want 403", st)
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 0 {
		t.Fatalf("a blocked follow went through")
	}
	if st, b := ts.call(t, "DELETE", "/api/v1/admin/domain_blocks/"+url.PathEscape(domain), rootTok, nil); st != 200 || strings.Contains(string(b), domain) {
		t.Fatalf("unblock: %d %s", st, b)
	}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", follow); st != http.StatusAccepted {
		t.Errorf("unblocked follow: %d", st)
	}
}

// TestFedInSSRF: without MICROBLOG_FEDERATION_ALLOW_PRIVATE, a handle on
// a loopback address is not looked up: no request reaches it.
func TestFedInSSRF(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=https://weibo.example.edu")
	peer := newFakePeer(t)
	peer.addActor("bob")
	tok, _ := ts.register(t, "alice")
	for _, name := range []string{peer.handle("bob"), "bob@localhost", "bob@10.0.0.1", "bob@[::1]"} {
		if st, b := ts.call(t, "GET", "/api/v1/users/"+url.PathEscape(name), tok, nil); st/100 != 4 {
			t.Errorf("%s: %d %s", name, st, b)
		}
	}
	if st, _ := ts.call(t, "PUT", "/api/v1/users/"+url.PathEscape(peer.handle("bob"))+"/follow", tok, nil); st/100 != 4 {
		t.Errorf("follow: %d", st)
	}
	peer.mu.Lock()
	n := peer.fetches
	peer.mu.Unlock()
	if n != 0 {
		t.Fatalf("the loopback peer was asked %d times", n)
	}
}

// TestFedInProtectedNotServed: a protected account's posts are served to
// no unsigned fetcher (404), its outbox shows none, its followers'
// collection no items; a deleted post is 404.
func TestFedInProtectedNotServed(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	tok, uid := ts.register(t, "carol")
	open := ts.newPost(t, tok, "open post")
	if st := getAP(t, ts.URL+"/ap/posts/"+strconv.FormatInt(open, 10), nil); st != 200 {
		t.Fatalf("public post: %d", st)
	}
	if st, b := ts.call(t, "PATCH", "/api/v1/me", tok, map[string]bool{"protected": true}); st != 200 {
		t.Fatalf("protect: %d %s", st, b)
	}
	hidden := ts.newPost(t, tok, "for my followers")
	for _, id := range []int64{open, hidden} {
		for _, p := range []string{"", "/activity"} {
			if st := getAP(t, ts.URL+"/ap/posts/"+strconv.FormatInt(id, 10)+p, nil); st != http.StatusNotFound {
				t.Errorf("protected post %d%s: %d", id, p, st)
			}
		}
	}
	var out struct {
		TotalItems   int64
		First        string
		OrderedItems []any
	}
	if st := getAP(t, apUser(ts, uid)+"/outbox?page=true", &out); st != 200 || len(out.OrderedItems) != 0 || out.First != "" {
		t.Errorf("protected outbox: %d %+v", st, out)
	}
	// Public again: served; deleted: 404.
	if st, _ := ts.call(t, "PATCH", "/api/v1/me", tok, map[string]bool{"protected": false}); st != 200 {
		t.Fatal("unprotect")
	}
	var page struct{ OrderedItems []map[string]any }
	if st := getAP(t, apUser(ts, uid)+"/outbox?page=true", &page); st != 200 || len(page.OrderedItems) != 2 || page.OrderedItems[0]["type"] != "Create" {
		t.Errorf("outbox: %d %+v", st, page)
	}
	if st, _ := ts.call(t, "DELETE", "/api/v1/posts/"+strconv.FormatInt(open, 10), tok, nil); st/100 != 2 {
		t.Fatal("delete")
	}
	if st := getAP(t, ts.URL+"/ap/posts/"+strconv.FormatInt(open, 10), nil); st != http.StatusNotFound {
		t.Errorf("deleted post: %d, want 404", st)
	}
	var n struct{ Type, Content, AttributedTo string }
	if st := getAP(t, ts.URL+"/ap/posts/"+strconv.FormatInt(hidden, 10), &n); st != 200 || n.Type != "Note" || n.Content != "<p>for my followers</p>" || n.AttributedTo != apUser(ts, uid) {
		t.Errorf("note: %d %+v", st, n)
	}
}

// TestFedInRFC9421: an activity signed with RFC 9421 (rsa-v1_5-sha256
// over the method, target, Content-Digest and Date) is taken; tampered,
// stale or signed with another actor's key it is 401.
func TestFedInRFC9421(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	peer.addActor("eve")
	_, alice := ts.register(t, "alice")
	inbox := ts.URL + "/ap/inbox"
	follow := func(n int) map[string]any {
		return map[string]any{"id": peer.actor("bob") + "/follows/" + strconv.Itoa(n), "type": "Follow", "object": apUser(ts, alice)}
	}
	for i, o := range []signOpts{
		{rfc9421: true, tamper: true},
		{rfc9421: true, date: time.Now().Add(-2 * time.Hour)},
		{rfc9421: true, as: "eve"},
	} {
		if st := peer.send(t, inbox, "bob", follow(i), o); st != http.StatusUnauthorized {
			t.Errorf("refusal %d: %d, want 401", i, st)
		}
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 0 {
		t.Fatalf("a refused follow went through")
	}
	if st := peer.send(t, inbox, "bob", follow(0), signOpts{rfc9421: true}); st != http.StatusAccepted {
		t.Fatalf("RFC 9421 follow: %d", st)
	}
	if u := remoteUser(t, ts, "", "alice"); u.FollowersCount != 1 {
		t.Errorf("RFC 9421 follow: %d followers", u.FollowersCount)
	}
}
