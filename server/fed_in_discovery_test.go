package main

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestFedDiscovery: WebFinger answers a local handle with its actor (JRD,
// CORS *), 404 for an unknown one; NodeInfo names activitypub; the actor
// is a Person with every field of §16, and a browser is sent to the
// profile page.
func TestFedDiscovery(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	_, uid := ts.register(t, "alice")
	host := strings.TrimPrefix(ts.URL, "http://")

	resp := ts.do(t, "GET", "/.well-known/webfinger?resource="+url.QueryEscape("acct:alice@"+host), "", nil, http.Header{"Origin": {"https://app.example"}})
	var jrd struct {
		Subject string
		Links   []struct{ Rel, Type, Href string }
	}
	if err := jsonDecode(resp, &jrd); err != nil || resp.StatusCode != 200 {
		t.Fatalf("webfinger: %d %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/jrd+json") {
		t.Errorf("webfinger content type %q", ct)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("webfinger CORS %q", got)
	}
	actor := ""
	for _, l := range jrd.Links {
		if l.Rel == "self" && l.Type == "application/activity+json" {
			actor = l.Href
		}
	}
	if want := ts.URL + "/ap/users/" + strconv.FormatInt(uid, 10); actor != want || jrd.Subject != "acct:alice@"+host {
		t.Fatalf("webfinger: subject %q actor %q, want %q", jrd.Subject, actor, want)
	}
	if st, _ := ts.call(t, "GET", "/.well-known/webfinger?resource="+url.QueryEscape("acct:nobody@"+host), "", nil); st != 404 {
		t.Errorf("unknown handle: %d, want 404", st)
	}

	var ni struct{ Protocols []string }
	if st := getAP(t, ts.URL+"/nodeinfo/2.1", &ni); st != 200 || len(ni.Protocols) != 1 || ni.Protocols[0] != "activitypub" {
		t.Errorf("nodeinfo 2.1: %d %v", st, ni.Protocols)
	}

	var p struct {
		ID, Type, Inbox, Outbox, Followers, Following, PreferredUsername, URL string
		Endpoints                                                             struct{ SharedInbox string }
		PublicKey                                                             struct{ ID, Owner, PublicKeyPem string }
		ManuallyApprovesFollowers                                             bool
	}
	if st := getAP(t, actor, &p); st != 200 {
		t.Fatalf("actor: %d", st)
	}
	if p.ID != actor || p.Type != "Person" || p.Inbox != actor+"/inbox" || p.Outbox != actor+"/outbox" ||
		p.Followers != actor+"/followers" || p.Following != actor+"/following" || p.PreferredUsername != "alice" ||
		p.Endpoints.SharedInbox != ts.URL+"/ap/inbox" || p.PublicKey.ID != actor+"#main-key" || p.PublicKey.Owner != actor ||
		!strings.Contains(p.PublicKey.PublicKeyPem, "BEGIN PUBLIC KEY") || p.ManuallyApprovesFollowers || p.URL != ts.URL+"/u/alice" {
		t.Errorf("actor: %+v", p)
	}
	if strings.Contains(p.PublicKey.PublicKeyPem, "PRIVATE") {
		t.Fatal("the actor shows a private key")
	}

	// A browser is sent to the profile page.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", actor, nil)
	req.Header.Set("Accept", "text/html")
	r2, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusFound || r2.Header.Get("Location") != ts.URL+"/u/alice" {
		t.Errorf("browser: %d %q", r2.StatusCode, r2.Header.Get("Location"))
	}

	// A protected account is locked.
	tok, bob := ts.register(t, "bob")
	if st, b := ts.call(t, "PATCH", "/api/v1/me", tok, map[string]bool{"protected": true}); st != 200 {
		t.Fatalf("protect: %d %s", st, b)
	}
	var pb struct{ ManuallyApprovesFollowers bool }
	if st := getAP(t, ts.URL+"/ap/users/"+strconv.FormatInt(bob, 10), &pb); st != 200 || !pb.ManuallyApprovesFollowers {
		t.Errorf("protected actor: %d locked %v", st, pb.ManuallyApprovesFollowers)
	}
}
