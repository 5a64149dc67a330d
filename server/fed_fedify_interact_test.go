package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"microblog/server/federation/fedifytest"
	"microblog/server/mastodon"
	"microblog/store"
)

// fedPost answers GET /posts/:id as token's user, or fails t.
func (ts *testServer) fedPost(t testing.TB, token string, id int64) store.Post {
	t.Helper()
	var p store.Post
	ts.getJSON(t, token, fmt.Sprintf("/api/v1/posts/%d", id), &p)
	return p
}

// TestFedifyReactions: replies, likes and reposts both ways between a local
// user and the partner's, each with its undo.
func TestFedifyReactions(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	alice, aliceID := ts.register(t, "alice")
	actor := ts.actorURL(aliceID)
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followedByPartner(t, fedi, aliceID)
	ts.followRemote(t, alice, "alice", fedi)

	mine := ts.newPost(t, alice, "a post to react to")
	object := ts.postURL(mine)

	t.Run("partner replies", func(t *testing.T) {
		fedi.Post(t, fedifytest.Post{Content: "<p>a reply from Fedify</p>", InReplyTo: object, Mentions: []string{actor}})
		c := ts.findPost(t, alice, fmt.Sprintf("/api/v1/posts/%d/comments", mine), "the reply as a comment", func(p store.Post) bool {
			return strings.Contains(p.Content, "a reply from Fedify")
		})
		if !strings.EqualFold(c.Author.Username, fedi.Handle) || c.ParentID == nil || *c.ParentID != mine {
			t.Errorf("the comment: %+v", c)
		}
		if !slices.ContainsFunc(ts.notifications(t, alice), func(n store.Notification) bool {
			return strings.EqualFold(n.Actor.Username, fedi.Handle) && (n.Kind == "comment" || n.Kind == "mention")
		}) {
			t.Errorf("alice was not notified of the reply: %+v", ts.notifications(t, alice))
		}
	})

	t.Run("local user mentions a known account", func(t *testing.T) {
		since := p.Seq(t)
		id := ts.newPost(t, alice, "hi @"+fedi.Handle+" again")
		if post := ts.fedPost(t, alice, id); !slices.ContainsFunc(post.Mentions, func(a store.Author) bool { return strings.EqualFold(a.Username, fedi.Handle) }) {
			t.Errorf("the post's mentions: %+v, want %s", post.Mentions, fedi.Handle)
		}
		got := p.Wait(t, since, fedWait, "the post", func(a fedifytest.Activity) bool {
			return a.Type == "Create" && a.ObjectID == ts.postURL(id)
		})
		if !slices.ContainsFunc(got.Tags, func(tg fedifytest.Tag) bool { return tg.Type == "Mention" && tg.Href == fedi.ID }) {
			t.Errorf("no Mention tag of %s: %+v", fedi.ID, got.Tags)
		}
	})

	t.Run("local user mentions an account not seen before", func(t *testing.T) {
		// A mention reaches an account that does not follow alice.
		stranger := p.NewUser(t, fedifytest.UserOptions{})
		since := p.Seq(t)
		id := ts.newPost(t, alice, "hello @"+stranger.Handle+" from here")
		if post := ts.fedPost(t, alice, id); !slices.ContainsFunc(post.Mentions, func(a store.Author) bool { return strings.EqualFold(a.Username, stranger.Handle) }) {
			t.Errorf("the post's mentions: %+v, want %s", post.Mentions, stranger.Handle)
		}
		got := p.Wait(t, since, fedWait, "the mention", func(a fedifytest.Activity) bool {
			return a.Type == "Create" && a.ObjectID == ts.postURL(id)
		})
		if !slices.ContainsFunc(got.Tags, func(tg fedifytest.Tag) bool { return tg.Type == "Mention" && tg.Href == stranger.ID }) {
			t.Errorf("no Mention tag of %s: %+v", stranger.ID, got.Tags)
		}
		if !slices.Contains(append(append([]string{}, got.To...), got.CC...), stranger.ID) {
			t.Errorf("the mentioned account is not addressed: %v %v", got.To, got.CC)
		}
	})

	t.Run("partner likes and unlikes", func(t *testing.T) {
		fedi.Like(t, object)
		fedEventually(t, "the like", func() bool { return ts.fedPost(t, alice, mine).LikesCount == 1 }, func() string { return fmt.Sprintf("%+v", ts.fedPost(t, alice, mine)) })
		if names := ts.userNames(t, alice, fmt.Sprintf("/api/v1/posts/%d/likes", mine)); len(names) != 1 || !strings.EqualFold(names[0], fedi.Handle) {
			t.Errorf("likers: %v", names)
		}
		fedi.Unlike(t, object)
		fedEventually(t, "the unlike", func() bool { return ts.fedPost(t, alice, mine).LikesCount == 0 }, func() string { return fmt.Sprintf("%+v", ts.fedPost(t, alice, mine)) })
	})

	t.Run("partner reposts and undoes", func(t *testing.T) {
		fedi.Announce(t, object)
		fedEventually(t, "the repost", func() bool { return ts.fedPost(t, alice, mine).RepostsCount == 1 }, func() string { return fmt.Sprintf("%+v", ts.fedPost(t, alice, mine)) })
		fedi.Unannounce(t, object)
		fedEventually(t, "the undone repost", func() bool { return ts.fedPost(t, alice, mine).RepostsCount == 0 }, func() string { return fmt.Sprintf("%+v", ts.fedPost(t, alice, mine)) })
	})

	// The partner's post, as alice sees it in her home timeline.
	r := fedi.Post(t, fedifytest.Post{Content: "<p>react to me</p>"})
	theirs := ts.findPost(t, alice, "/api/v1/timelines/home", "the partner's post", func(p store.Post) bool {
		return strings.Contains(p.Content, "react to me")
	})

	t.Run("local user replies", func(t *testing.T) {
		since := p.Seq(t)
		if status, body := ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", theirs.ID), alice, map[string]string{"content": "a reply from here"}); status != http.StatusCreated {
			t.Fatalf("comment: %d %s", status, body)
		}
		got := p.Wait(t, since, fedWait, "alice's reply", func(a fedifytest.Activity) bool {
			return a.Type == "Create" && strings.Contains(a.Content, "a reply from here")
		})
		if got.InReplyTo != r.ID || got.Actor != actor {
			t.Errorf("reply as Fedify read it: inReplyTo %q (want %q), actor %q", got.InReplyTo, r.ID, got.Actor)
		}
	})

	t.Run("local user likes and unlikes", func(t *testing.T) {
		since := p.Seq(t)
		ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", theirs.ID), alice, nil, http.StatusNoContent, "")
		like := p.Wait(t, since, fedWait, "alice's Like", func(a fedifytest.Activity) bool {
			return a.Type == "Like" && a.Actor == actor && a.ObjectID == r.ID
		})
		ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d/like", theirs.ID), alice, nil, http.StatusNoContent, "")
		undo := p.Wait(t, since, fedWait, "alice's Undo(Like)", func(a fedifytest.Activity) bool {
			return a.Type == "Undo" && a.Actor == actor && a.ObjectType == "Like" && a.InnerObjectID == r.ID
		})
		if undo.ObjectID != like.ID {
			t.Errorf("the Undo embeds the Like %q, want the one sent, %q", undo.ObjectID, like.ID)
		}
	})

	t.Run("local user reposts and undoes", func(t *testing.T) {
		since := p.Seq(t)
		rid := ts.repost(t, alice, theirs.ID)
		p.Wait(t, since, fedWait, "alice's Announce", func(a fedifytest.Activity) bool {
			return a.Type == "Announce" && a.Actor == actor && a.ObjectID == r.ID
		})
		ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", rid), alice, nil, http.StatusNoContent, "")
		p.Wait(t, since, fedWait, "alice's Undo(Announce)", func(a fedifytest.Activity) bool {
			return a.Type == "Undo" && a.Actor == actor && a.ObjectType == "Announce"
		})
	})
}

// TestFedifyBlocks: a block either way ends the follows, and a local block
// goes out as Block.
func TestFedifyBlocks(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	alice, aliceID := ts.register(t, "alice")
	actor := ts.actorURL(aliceID)
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	other := p.NewUser(t, fedifytest.UserOptions{})

	// The partner blocks alice, who followed it: the follow ends here too.
	ts.followRemote(t, alice, "alice", fedi)
	fedi.Block(t, actor)
	fedEventually(t, "alice's follow ended by the Block", func() bool {
		return !slices.ContainsFunc(ts.userNames(t, alice, "/api/v1/users/alice/following"), func(n string) bool { return strings.EqualFold(n, fedi.Handle) })
	}, func() string { return fmt.Sprint(ts.userNames(t, alice, "/api/v1/users/alice/following")) })

	// alice blocks a follower on the partner: it gets a Block and is no
	// longer her fan, and its posts no longer reach her.
	ts.followedByPartner(t, other, aliceID)
	ts.followRemote(t, alice, "alice", other)
	since := p.Seq(t)
	ts.wantStatus(t, "PUT", userPath(other.Handle)+"/block", alice, nil, http.StatusNoContent, "")
	p.Wait(t, since, fedWait, "alice's Block", func(a fedifytest.Activity) bool {
		return a.Type == "Block" && a.Actor == actor && a.ObjectID == other.ID
	})
	if names := ts.userNames(t, alice, "/api/v1/users/alice/followers"); slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, other.Handle) }) {
		t.Errorf("alice's fans after the block: %v", names)
	}
	if r := other.Relations(t); r.Following[actor] != "" {
		t.Errorf("the partner still follows alice after her Block: %+v", r)
	}
	marker := ts.newPost(t, alice, "after the block")
	other.Post(t, fedifytest.Post{Content: "<p>blocked words</p>", Mentions: []string{actor}})
	// alice's own post is the newest of her home: nothing from the blocked
	// account came after it.
	for _, post := range ts.fedPosts(t, alice, "/api/v1/timelines/home") {
		if strings.Contains(post.Content, "blocked words") {
			t.Errorf("a blocked account's post in alice's home: %+v (marker %d)", post, marker)
		}
	}
}

// TestFedifyDirectMessages: a direct Note from the partner arrives as a
// private message, and a private message to the partner's user goes out as
// a Note addressed to it alone.
func TestFedifyDirectMessages(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	alice, aliceID := ts.register(t, "alice")
	actor := ts.actorURL(aliceID)
	fedi := p.NewUser(t, fedifytest.UserOptions{})

	fedi.Post(t, fedifytest.Post{Content: "<p>a secret for alice</p>", Visibility: "direct", Mentions: []string{actor}})
	path := "/api/v1/conversations/" + fedi.Handle + "/messages"
	var msgs []store.DM
	fedEventually(t, "the message from the partner", func() bool {
		status, body := ts.call(t, "GET", path, alice, nil)
		if status != http.StatusOK {
			return false
		}
		var page store.Page[store.DM]
		mustDecode(t, body, &page)
		msgs = page.Items
		return len(msgs) == 1
	}, func() string { _, b := ts.call(t, "GET", path, alice, nil); return string(b) })
	if !strings.Contains(msgs[0].Content, "a secret for alice") || !strings.EqualFold(msgs[0].Sender.Username, fedi.Handle) {
		t.Errorf("the message: %+v", msgs[0])
	}
	// It is not a post: nowhere on a timeline.
	for _, post := range ts.fedPosts(t, alice, "/api/v1/timelines/home") {
		if strings.Contains(post.Content, "a secret") {
			t.Errorf("a direct note on alice's home timeline: %+v", post)
		}
	}

	since := p.Seq(t)
	if status, body := ts.call(t, "POST", path, alice, map[string]string{"content": "a secret for fedi"}); status != http.StatusCreated {
		t.Fatalf("message: %d %s", status, body)
	}
	got := p.Wait(t, since, fedWait, "alice's direct Note", func(a fedifytest.Activity) bool {
		return a.Type == "Create" && strings.Contains(a.Content, "a secret for fedi")
	})
	addressed := append(append([]string{}, got.To...), got.CC...)
	if got.Actor != actor || !slices.Contains(addressed, fedi.ID) || slices.ContainsFunc(addressed, func(s string) bool {
		return s != fedi.ID
	}) {
		t.Errorf("the direct Note is addressed to %v, want %s alone", addressed, fedi.ID)
	}
}

// TestFedifyProtectedAccount: a protected local user approves the partner's
// follow request as a local one; then its posts reach the partner, as
// followers-only.
func TestFedifyProtectedAccount(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	pia, piaID := ts.register(t, "pia")
	actor := ts.actorURL(piaID)
	ts.patchMe(t, pia, map[string]any{"protected": true})
	fedi := p.NewUser(t, fedifytest.UserOptions{})

	if typ, obj := fedi.Fetch(t, actor); typ != "Person" || obj["manuallyApprovesFollowers"] != true {
		t.Errorf("the protected actor: %s %v", typ, obj)
	}
	since := p.Seq(t)
	follow := fedi.Follow(t, actor)
	fedEventually(t, "the request", func() bool {
		return slices.ContainsFunc(ts.userNames(t, pia, "/api/v1/me/follow_requests"), func(n string) bool { return strings.EqualFold(n, fedi.Handle) })
	}, func() string { return fmt.Sprint(ts.userNames(t, pia, "/api/v1/me/follow_requests")) })
	if acts, _ := p.Inbox(t, since); slices.ContainsFunc(acts, func(a fedifytest.Activity) bool { return a.Type == "Accept" && a.Actor == actor }) {
		t.Fatal("accepted before pia approved")
	}
	ts.wantStatus(t, "PUT", "/api/v1/me/follow_requests/"+fedi.Handle, pia, nil, http.StatusNoContent, "")
	if acc := p.Wait(t, since, fedWait, "the Accept", func(a fedifytest.Activity) bool { return a.Type == "Accept" && a.Actor == actor }); follow.ID == "" || acc.ObjectID != follow.ID {
		t.Errorf("the Accept embeds the Follow %q, want the request's own %q", acc.ObjectID, follow.ID)
	}

	since = p.Seq(t)
	id := ts.newPost(t, pia, "for my approved fans")
	got := p.Wait(t, since, fedWait, "pia's Create", func(a fedifytest.Activity) bool {
		return a.Type == "Create" && a.ObjectID == ts.postURL(id)
	})
	addressed := append(append([]string{}, got.To...), got.CC...)
	if slices.Contains(addressed, "https://www.w3.org/ns/activitystreams#Public") || slices.Contains(addressed, "as:Public") {
		t.Errorf("a protected post addressed publicly: %v", addressed)
	}

	// A rejected request: nothing more is delivered to that account.
	other := p.NewUser(t, fedifytest.UserOptions{})
	since = p.Seq(t)
	other.Follow(t, actor)
	fedEventually(t, "the second request", func() bool {
		return slices.ContainsFunc(ts.userNames(t, pia, "/api/v1/me/follow_requests"), func(n string) bool { return strings.EqualFold(n, other.Handle) })
	}, func() string { return fmt.Sprint(ts.userNames(t, pia, "/api/v1/me/follow_requests")) })
	ts.wantStatus(t, "DELETE", "/api/v1/me/follow_requests/"+other.Handle, pia, nil, http.StatusNoContent, "")
	p.Wait(t, since, fedWait, "the Reject", func(a fedifytest.Activity) bool { return a.Type == "Reject" && a.Actor == actor })
	if r := other.Relations(t); r.Following[actor] != "rejected" {
		t.Errorf("the rejected follower's state: %+v", r)
	}
}

// TestFedifySignatureSpecs: the service accepts an activity signed with
// RFC 9421 alone and one signed with draft-cavage alone (Fedify's signer
// each time, sent once, never retried with the other).
func TestFedifySignatureSpecs(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, _ := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followRemote(t, bob, "bob", fedi)

	for _, spec := range []string{"rfc9421", "draft-cavage-http-signatures-12"} {
		t.Run(spec, func(t *testing.T) {
			marker := "signed with " + spec
			r := fedi.Post(t, fedifytest.Post{Content: "<p>" + marker + "</p>", Signed: &fedifytest.Signed{Spec: spec, Inbox: ts.URL + "/ap/inbox"}})
			if r.Status < 200 || r.Status > 299 {
				t.Fatalf("the %s-signed Create: %d %s", spec, r.Status, r.Body)
			}
			if spec == "rfc9421" && (r.Headers["signature-input"] == "" || r.Headers["signature"] == "") {
				t.Fatalf("not an RFC 9421 request: %v", r.Headers)
			}
			ts.findPost(t, bob, "/api/v1/timelines/home", "the "+spec+" post in bob's home", func(p store.Post) bool {
				return strings.Contains(p.Content, marker)
			})
		})
	}
}

// TestFedifyFetches: Fedify reads a local actor and post (fetched as its
// apps do, signed with RFC 9421 first, and parsed as JSON-LD).
func TestFedifyFetches(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, bobID := ts.register(t, "bob")
	ts.patchMe(t, bob, map[string]any{"bio": "the bio of bob"})
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	actor := ts.actorURL(bobID)

	typ, obj := fedi.Fetch(t, actor)
	key, _ := obj["publicKey"].(map[string]any)
	endpoints, _ := obj["endpoints"].(map[string]any)
	if typ != "Person" || obj["id"] != actor || obj["preferredUsername"] != "bob" || obj["inbox"] != actor+"/inbox" ||
		endpoints["sharedInbox"] != ts.URL+"/ap/inbox" || key["id"] != actor+"#main-key" || key["owner"] != actor ||
		!strings.Contains(fmt.Sprint(key["publicKeyPem"]), "BEGIN PUBLIC KEY") || !strings.Contains(fmt.Sprint(obj["summary"]), "the bio of bob") {
		t.Errorf("the actor as Fedify read it: %s %v", typ, obj)
	}
	id := ts.newPost(t, bob, "fetch me #fedify")
	typ, obj = fedi.Fetch(t, ts.postURL(id))
	if typ != "Note" || obj["id"] != ts.postURL(id) || obj["attributedTo"] != actor || !strings.Contains(fmt.Sprint(obj["content"]), "fetch me") {
		t.Errorf("the post as Fedify read it: %s %v", typ, obj)
	}
}

// TestFedifyActorDeleted: Delete(Person) removes the partner's account
// here, and with it its follow.
func TestFedifyActorDeleted(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, _ := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followRemote(t, bob, "bob", fedi)
	fedi.Post(t, fedifytest.Post{Content: "<p>soon gone</p>"})
	ts.findPost(t, bob, "/api/v1/timelines/home", "the post", func(p store.Post) bool { return strings.Contains(p.Content, "soon gone") })

	fedi.DeleteActor(t)
	fedEventually(t, "the deleted account gone from bob's follows", func() bool {
		return !slices.ContainsFunc(ts.userNames(t, bob, "/api/v1/users/bob/following"), func(n string) bool { return strings.EqualFold(n, fedi.Handle) })
	}, func() string { return fmt.Sprint(ts.userNames(t, bob, "/api/v1/users/bob/following")) })
	fedEventually(t, "its posts gone from bob's home", func() bool {
		return !slices.ContainsFunc(ts.fedPosts(t, bob, "/api/v1/timelines/home"), func(p store.Post) bool { return strings.Contains(p.Content, "soon gone") })
	}, func() string { return fmt.Sprint(ts.fedPosts(t, bob, "/api/v1/timelines/home")) })
}

// TestFedifyMastodonResolve: through the Mastodon client API, a user finds
// the partner's account by @name@domain and by actor URL
// (/api/v2/search?resolve=true), sees acct name@domain, follows it, and its
// posts reach the home timeline.
func TestFedifyMastodonResolve(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	carol, _ := ts.mastodonUser(t, "carol", "")
	fedi := p.NewUser(t, fedifytest.UserOptions{DisplayName: "Fedi Mastodon"})

	var res mastodon.SearchResults
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&resolve=true&q="+url.QueryEscape("@"+fedi.Handle), carol, nil, &res)
	if len(res.Accounts) != 1 || !strings.EqualFold(res.Accounts[0].Acct, fedi.Handle) || res.Accounts[0].DisplayName != "Fedi Mastodon" {
		t.Fatalf("resolve @%s: %+v", fedi.Handle, res.Accounts)
	}
	acct := res.Accounts[0]
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&resolve=true&q="+url.QueryEscape(fedi.ID), carol, nil, &res)
	if len(res.Accounts) != 1 || res.Accounts[0].ID != acct.ID {
		t.Errorf("resolve %s: %+v, want the account %s", fedi.ID, res.Accounts, acct.ID)
	}

	since := p.Seq(t)
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+acct.ID+"/follow", carol, nil, nil)
	p.Wait(t, since, fedWait, "carol's Follow", func(a fedifytest.Activity) bool { return a.Type == "Follow" && a.ObjectID == fedi.ID })
	fedEventually(t, "the follow accepted", func() bool {
		var rs []mastodon.Relationship
		ts.mastodonJSON(t, "GET", "/api/v1/accounts/relationships?id[]="+acct.ID, carol, nil, &rs)
		return len(rs) == 1 && rs[0].Following
	}, func() string { return "not following" })

	fedi.Post(t, fedifytest.Post{Content: "<p>to Mastodon clients</p>"})
	fedEventually(t, "the post in carol's Mastodon home", func() bool {
		var sts []mastodon.Status
		ts.mastodonJSON(t, "GET", "/api/v1/timelines/home", carol, nil, &sts)
		return slices.ContainsFunc(sts, func(s mastodon.Status) bool {
			return strings.Contains(s.Content, "to Mastodon clients") && strings.EqualFold(s.Account.Acct, fedi.Handle)
		})
	}, func() string { return "not there" })
}

// TestFedifySignedFetch: the partner's repost of a post of a "secure"
// account (whose posts answer signed fetches only, as Mastodon's secure
// mode) reaches a local follower: this service fetched the post with a
// signature Fedify verified.
func TestFedifySignedFetch(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, _ := ts.register(t, "bob")
	booster := p.NewUser(t, fedifytest.UserOptions{})
	secure := p.NewUser(t, fedifytest.UserOptions{Secure: true})
	ts.followRemote(t, bob, "bob", booster)

	post := secure.Post(t, fedifytest.Post{Content: "<p>for signed fetchers only</p>"})
	booster.Announce(t, post.ID)
	got := ts.findPost(t, bob, "/api/v1/timelines/home", "the repost of the secure post", func(p store.Post) bool {
		return p.RepostOf != nil && strings.Contains(p.RepostOf.Content, "for signed fetchers only")
	})
	if !strings.EqualFold(got.Author.Username, booster.Handle) || !strings.EqualFold(got.RepostOf.Author.Username, secure.Handle) {
		t.Errorf("the repost: by %s of %s", got.Author.Username, got.RepostOf.Author.Username)
	}
}

// getURL GETs an absolute URL (a picture's), answering status, type and
// length.
func getURL(t testing.TB, u string) (int, string, int) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), len(b)
}

// TestFedifyPictures: a picture attached to the partner's post arrives with
// it, served from here as uploads are; a local post's picture goes out as an
// attachment Fedify reads and can fetch.
func TestFedifyPictures(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, bobID := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followRemote(t, bob, "bob", fedi)
	ts.followedByPartner(t, fedi, bobID)

	fedi.Post(t, fedifytest.Post{Content: "<p>a picture from Fedify</p>", Images: []fedifytest.Image{
		{Bytes: pngBytes(testImage(64, 48)), MediaType: "image/png", Width: 64, Height: 48, Alt: "a gradient"}}})
	got := ts.findPost(t, bob, "/api/v1/timelines/home", "the partner's picture post", func(p store.Post) bool {
		return strings.Contains(p.Content, "a picture from Fedify")
	})
	if len(got.Media) != 1 {
		t.Fatalf("the post's media: %+v", got.Media)
	}
	m := got.Media[0]
	if strings.HasPrefix(m.URL, p.URL) {
		t.Errorf("the remote picture is shown from the partner (%s), not fetched and served from here", m.URL)
	}
	u := m.URL
	if strings.HasPrefix(u, "/") {
		u = ts.URL + u
	}
	if status, typ, n := getURL(t, u); status != http.StatusOK || !strings.HasPrefix(typ, "image/") || n == 0 {
		t.Errorf("GET %s: %d %s %d bytes", u, status, typ, n)
	}

	// A local post with a picture.
	status, body := ts.upload(t, "POST", "/media", bob, "g.png", pngBytes(testImage(80, 60)), "bob's gradient")
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, body)
	}
	var up struct{ ID int64 }
	mustDecode(t, body, &up)
	since := p.Seq(t)
	status, body = ts.call(t, "POST", "/api/v1/posts", bob, map[string]any{"content": "a picture from here", "media_ids": []int64{up.ID}})
	if status != http.StatusCreated {
		t.Fatalf("post: %d %s", status, body)
	}
	create := p.Wait(t, since, fedWait, "bob's picture post", func(a fedifytest.Activity) bool {
		return a.Type == "Create" && strings.Contains(a.Content, "a picture from here")
	})
	if len(create.Attachments) != 1 || !strings.HasPrefix(create.Attachments[0].MediaType, "image/") {
		t.Fatalf("attachments as Fedify read them: %+v", create.Attachments)
	}
	if status, typ, n := getURL(t, create.Attachments[0].URL); status != http.StatusOK || !strings.HasPrefix(typ, "image/") || n == 0 {
		t.Errorf("GET %s: %d %s %d bytes", create.Attachments[0].URL, status, typ, n)
	}
}
