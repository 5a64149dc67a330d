package main

import (
	"net/url"
	"testing"
)

// TestFedInMastodonSearch: /api/v2/search?resolve=true finds a remote
// account by name@domain through WebFinger; its acct is name@domain, its
// url its page there; a search without resolve then finds it too.
func TestFedInMastodonSearch(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	native, _ := ts.register(t, "alice")
	tok := ts.mastodonToken(t, "alice", native, "")
	type account struct{ ID, Username, Acct, URL string }
	var res struct{ Accounts []account }
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&resolve=true&q="+url.QueryEscape("@"+peer.handle("bob")), tok, nil, &res)
	if len(res.Accounts) != 1 {
		t.Fatalf("resolve: %+v", res)
	}
	a := res.Accounts[0]
	if a.Acct != peer.handle("bob") || a.Username != "bob" || a.URL != peer.srv.URL+"/@bob" {
		t.Errorf("account: %+v", a)
	}
	var again struct{ Accounts []account }
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&q="+url.QueryEscape(peer.handle("bob")), tok, nil, &again)
	if len(again.Accounts) != 1 || again.Accounts[0].ID != a.ID {
		t.Errorf("search without resolve: %+v", again)
	}
	var got account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/"+a.ID, tok, nil, &got)
	if got.Acct != peer.handle("bob") {
		t.Errorf("account by id: %+v", got)
	}
}
