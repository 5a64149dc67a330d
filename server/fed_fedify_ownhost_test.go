package main

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"microblog/server/federation/fedifytest"
	"microblog/store"
)

// TestFedifyOwnDomainHandles: @alice@<this server's domain> (the public
// URL's host) is the local user alice: a post and an edit that write it
// mention her (she is notified, the text reads @alice, and the Create the
// partner receives tags her actor), the native API's user and search and
// the Mastodon API's /api/v2/search find her, and WebFinger answers for
// her by that handle in any letter case, and by her actor's URL.
func TestFedifyOwnDomainHandles(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	host := strings.TrimPrefix(ts.URL, "http://")
	alice, aliceID := ts.register(t, "alice")
	bob, bobID := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followedByPartner(t, fedi, bobID)

	// A post.
	since := p.Seq(t)
	status, body := ts.call(t, "POST", "/api/v1/posts", bob, map[string]string{"content": "hello @alice@" + host + " and @ALICE@" + strings.ToUpper(host) + "!"})
	if status != http.StatusCreated {
		t.Fatalf("post: %d %s", status, body)
	}
	var post store.Post
	mustDecode(t, body, &post)
	if len(post.Mentions) != 1 || post.Mentions[0].ID != aliceID || post.Content != "hello @alice and @ALICE!" {
		t.Errorf("the post: %q mentions %+v", post.Content, post.Mentions)
	}
	fedEventually(t, "alice notified of the mention", func() bool {
		return slices.ContainsFunc(ts.notifications(t, alice), func(n store.Notification) bool {
			return n.Kind == "mention" && n.Post != nil && n.Post.ID == post.ID
		})
	}, func() string { return fmt.Sprint(ts.notifications(t, alice)) })
	create := p.Wait(t, since, fedWait, "bob's post at the partner", func(a fedifytest.Activity) bool {
		return a.Type == "Create" && a.Actor == ts.actorURL(bobID)
	})
	if !slices.ContainsFunc(create.Tags, func(tg fedifytest.Tag) bool { return tg.Type == "Mention" && tg.Href == ts.actorURL(aliceID) }) {
		t.Errorf("the Create's tags %+v do not mention alice's actor", create.Tags)
	}

	// An edit, and a comment.
	var edited store.Post
	status, body = ts.call(t, "PATCH", fmt.Sprintf("/api/v1/posts/%d", post.ID), bob, map[string]string{"content": "edited for @alice@" + host})
	if mustDecode(t, body, &edited); status != http.StatusOK || len(edited.Mentions) != 1 || edited.Mentions[0].ID != aliceID || edited.Content != "edited for @alice" {
		t.Errorf("the edit: %d %s", status, body)
	}
	var comment store.Post
	status, body = ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", post.ID), bob, map[string]string{"content": "@alice@" + host + " see above"})
	if mustDecode(t, body, &comment); status != http.StatusCreated || len(comment.Mentions) != 1 || comment.Mentions[0].ID != aliceID {
		t.Errorf("the comment: %d %s", status, body)
	}

	// The native API: the user, and its search.
	if st, u := ts.fedUser(t, bob, "alice@"+strings.ToUpper(host)); st != http.StatusOK || u.ID != aliceID || u.Remote {
		t.Errorf("GET /users/alice@%s: %d %+v", host, st, u)
	}
	var found store.Page[store.User]
	ts.getJSON(t, bob, "/api/v1/search/users?q="+url.QueryEscape("@alice@"+host), &found)
	if len(found.Items) == 0 || found.Items[0].ID != aliceID {
		t.Errorf("native search for @alice@%s: %+v", host, found.Items)
	}

	// The Mastodon API's search, resolving or not.
	tok := ts.mastodonToken(t, "bob", bob, "")
	for _, resolve := range []string{"true", "false"} {
		var res struct{ Accounts []struct{ ID, Acct string } }
		ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&resolve="+resolve+"&q="+url.QueryEscape("@alice@"+host), tok, nil, &res)
		if len(res.Accounts) == 0 || res.Accounts[0].ID != fmt.Sprint(aliceID) || res.Accounts[0].Acct != "alice" {
			t.Errorf("/api/v2/search resolve=%s: %+v", resolve, res.Accounts)
		}
	}

	// WebFinger.
	for _, resource := range []string{"acct:alice@" + host, "acct:ALICE@" + strings.ToUpper(host), "acct:@alice@" + host, ts.actorURL(aliceID)} {
		var j struct {
			Subject string
			Links   []struct{ Rel, Type, Href string }
		}
		resp := ts.do(t, "GET", "/.well-known/webfinger?resource="+url.QueryEscape(resource), "", nil, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("WebFinger %s: %d", resource, resp.StatusCode)
			resp.Body.Close()
			continue
		}
		jsonDecode(resp, &j)
		resp.Body.Close()
		if j.Subject != "acct:alice@"+host || !slices.ContainsFunc(j.Links, func(l struct{ Rel, Type, Href string }) bool {
			return l.Rel == "self" && l.Href == ts.actorURL(aliceID)
		}) {
			t.Errorf("WebFinger %s: %+v", resource, j)
		}
	}
	resp := ts.do(t, "GET", "/.well-known/webfinger?resource="+url.QueryEscape(ts.actorURL(999999)), "", nil, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("WebFinger of an unknown actor URL: %d, want 404", resp.StatusCode)
	}
}
