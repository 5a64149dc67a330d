package main

import (
	"net/http"
	"slices"
	"testing"

	"microblog/server/mastodon"
	"microblog/store"
)

// TestCommentTopics: a comment carrying #topic# is on the topic's page of
// both APIs and on a live hashtag stream, not on the public stream nor on
// the home timeline of the topic's followers; a protected author's
// comment is on no stranger's page or stream, nor is one in a thread whose
// post the reader may not see (a protected author's, or one across a
// block); a repost is on no Mastodon public or tag timeline; deleting a
// comment takes it off the page, and its delete comes on the stream.
func TestCommentTopics(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	eveNative, _ := ts.register(t, "eve") // a stranger to everyone
	eve := ts.mastodonToken(t, "eve", eveNative, "")
	bob, _ := ts.register(t, "bob")
	cat, _ := ts.register(t, "cat")
	pat, _ := ts.register(t, "pat") // protected
	kim, _ := ts.register(t, "kim") // blocked by eve
	fan, _ := ts.register(t, "fan") // follows the topic
	ts.wantStatus(t, "PATCH", "/api/v1/me", pat, map[string]any{"protected": true}, http.StatusOK, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/kim/block", eveNative, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PUT", "/api/v1/tags/chai/follow", fan, nil, http.StatusNoContent, "")
	ts.follow(t, fan, "cat", true)

	c, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + eve}})
	c.send(t, "subscribe", "public", "")
	c.send(t, "subscribe", "hashtag", "chai")
	public, chai := []string{"public"}, []string{"hashtag", "chai"}

	root := ts.post(t, bob, "tea or coffee?", 0)
	c.expectStatus(t, public, "update", root.ID)
	reply := ts.comment(t, cat, root.ID, "#chai# always")
	c.expectStatus(t, chai, "update", reply.ID)
	nested := ts.comment(t, bob, reply.ID, "a #chai# lover, then")
	c.expectStatus(t, chai, "update", nested.ID)

	// None of these reaches eve: a protected author's comment, a comment
	// in a protected author's thread, one in the thread of someone eve
	// blocks.
	patsRoot := ts.post(t, pat, "for my fans", 0)
	ts.comment(t, pat, root.ID, "#chai# from a protected account")
	ts.comment(t, pat, patsRoot.ID, "#chai# in my own thread")
	kimsRoot := ts.post(t, kim, "kim asks", 0)
	kimsReply := ts.comment(t, cat, kimsRoot.ID, "#chai# for kim")
	probe := ts.post(t, bob, "#chai# as a post", 0)
	// The public topic keeps its order: had any come, it would be here.
	c.expectStatus(t, public, "update", probe.ID)
	c.expectStatus(t, chai, "update", probe.ID)

	var page store.Page[store.Post]
	ts.getJSON(t, eveNative, "/api/v1/tags/chai/posts", &page)
	if got, want := ids(page.Items), []int64{probe.ID, nested.ID, reply.ID}; !slices.Equal(got, want) {
		t.Fatalf("eve's #chai# page %v, want %v", got, want)
	}
	if page.Items[2].Kind != store.KindComment || page.Items[2].ParentID == nil || *page.Items[2].ParentID != root.ID {
		t.Fatalf("the comment on the page: %+v", page.Items[2])
	}
	var anon store.Page[store.Post]
	ts.getJSON(t, "", "/api/v1/tags/chai/posts", &anon)
	if got := ids(anon.Items); !slices.Contains(got, kimsReply.ID) || len(got) != 4 {
		t.Fatalf("anonymous #chai# page %v: want kim's thread's comment too, and no protected one", got)
	}
	var tl []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/tag/chai", eve, nil, &tl)
	if got := mastodonStatusIDs(tl); !slices.Equal(got, []string{idStr(probe.ID), idStr(nested.ID), idStr(reply.ID)}) {
		t.Fatalf("Mastodon #chai timeline %v", got)
	}
	if r := tl[2]; r.InReplyToID == nil || *r.InReplyToID != idStr(root.ID) {
		t.Fatalf("the reply on the tag timeline: in_reply_to_id %v", r.InReplyToID)
	}
	var pub store.Page[store.Post]
	ts.getJSON(t, eveNative, "/api/v1/timelines/public", &pub)
	if slices.Contains(ids(pub.Items), reply.ID) {
		t.Fatalf("a comment on the public timeline %v", ids(pub.Items))
	}
	var home store.Page[store.Post]
	ts.getJSON(t, fan, "/api/v1/timelines/home", &home)
	if got := ids(home.Items); !slices.Contains(got, probe.ID) || slices.Contains(got, reply.ID) || slices.Contains(got, kimsReply.ID) {
		t.Fatalf("the #chai# follower's home %v: want the post %d and no comment", got, probe.ID)
	}

	// A repost (with the topic in its own words) is on the service's
	// public page and the topic's, and on neither Mastodon timeline: as
	// Mastodon's reblogs, it is on no public or hashtag timeline or stream.
	rp := ts.post(t, fan, "#chai# again", probe.ID)
	ts.getJSON(t, eveNative, "/api/v1/timelines/public", &pub)
	if !slices.Contains(ids(pub.Items), rp.ID) {
		t.Fatalf("the repost %d is not on the native public timeline %v", rp.ID, ids(pub.Items))
	}
	for _, path := range []string{"/api/v1/timelines/public", "/api/v1/timelines/tag/chai"} {
		ts.mastodonJSON(t, "GET", path, eve, nil, &tl)
		if got := mastodonStatusIDs(tl); slices.Contains(got, idStr(rp.ID)) || len(got) == 0 {
			t.Fatalf("%s %v: want statuses, and no reblog %d", path, got, rp.ID)
		}
	}

	ts.wantStatus(t, "DELETE", postPath(reply.ID), cat, nil, http.StatusNoContent, "")
	for _, stream := range [][]string{public, chai} { // a delete goes to every stream, as on Mastodon
		if m := c.expect(t, stream, "delete", nil); m.Payload != idStr(reply.ID) {
			t.Fatalf("delete %q, want %d", m.Payload, reply.ID)
		}
	}
	ts.getJSON(t, eveNative, "/api/v1/tags/chai/posts", &page)
	if got := ids(page.Items); slices.Contains(got, reply.ID) || slices.Contains(got, nested.ID) {
		t.Fatalf("after the delete, eve's #chai# page %v", got)
	}
}
