package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	gomastodon "github.com/mattn/go-mastodon"

	"microblog/server/mastodon"
	"microblog/store"
)

// TestMastodonFollowTags: POST /api/v1/tags/:name/follow and /unfollow
// answer the Tag with following, GET /api/v1/tags/:name tells it (and
// nothing of it to an anonymous caller), /api/v1/followed_tags pages with
// Link, trends and search carry following, the scopes are Mastodon's
// (write:follows, read:follows), and bad input is refused with
// Mastodon's error body and changes nothing.
func TestMastodonFollowTags(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	native, _ := ts.register(t, "amy")
	tok := ts.mastodonToken(t, "amy", native, "")
	readOnly := ts.mastodonToken(t, "amy", native, "read:follows")
	bob, _ := ts.register(t, "bob")
	ts.newPost(t, bob, "talking about #golang")

	var tag mastodon.Tag
	ts.mastodonJSON(t, "POST", "/api/v1/tags/GoLang/follow", tok, nil, &tag)
	if tag.Name != "golang" || tag.Following == nil || !*tag.Following || !strings.HasSuffix(tag.URL, "/tags/golang") || tag.History == nil {
		t.Fatalf("follow: %+v", tag)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/tags/golang", tok, nil, &tag)
	if tag.Following == nil || !*tag.Following {
		t.Fatalf("GET as amy: %+v", tag)
	}
	// Anonymously the shared path answers as the native API (docs/mastodon.md):
	// the name, and following false.
	var anon map[string]any
	ts.mastodonJSON(t, "GET", "/api/v1/tags/golang", "", nil, &anon)
	if anon["following"] != false || anon["name"] != "golang" {
		t.Fatalf("GET anonymously: %v", anon)
	}
	var trends []mastodon.Tag
	ts.mastodonJSON(t, "GET", "/api/v1/trends/tags", tok, nil, &trends)
	if i := slices.IndexFunc(trends, func(t mastodon.Tag) bool { return t.Name == "golang" }); i < 0 || trends[i].Following == nil || !*trends[i].Following {
		t.Fatalf("trends: %+v", trends)
	}
	var found mastodon.SearchResults
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=hashtags&q=gol", tok, nil, &found)
	if len(found.Hashtags) != 1 || found.Hashtags[0].Following == nil || !*found.Hashtags[0].Following {
		t.Fatalf("search: %+v", found.Hashtags)
	}

	ts.mastodonError(t, "POST", "/api/v1/tags/other/follow", readOnly, nil, http.StatusForbidden)
	ts.mastodonError(t, "POST", "/api/v1/tags/other/follow", "", nil, http.StatusUnauthorized)
	ts.mastodonError(t, "GET", "/api/v1/followed_tags", "", nil, http.StatusUnauthorized)
	for _, bad := range []string{"%20", "%23", strings.Repeat("y", store.MaxTagLen+1)} {
		// Mastodon answers invalid input with 422.
		ts.mastodonError(t, "POST", "/api/v1/tags/"+bad+"/follow", tok, nil, http.StatusUnprocessableEntity)
		ts.mastodonError(t, "GET", "/api/v1/tags/"+bad, tok, nil, http.StatusUnprocessableEntity)
	}
	for i := 1; i < store.MaxFollowedTags; i++ {
		ts.mastodonJSON(t, "POST", fmt.Sprintf("/api/v1/tags/t%03d/follow", i), tok, nil, nil)
	}
	ts.mastodonError(t, "POST", "/api/v1/tags/onemore/follow", tok, nil, http.StatusUnprocessableEntity)

	var names []string
	path := "/api/v1/followed_tags?limit=40"
	for pages := 0; path != ""; pages++ {
		if pages > 5 {
			t.Fatal("followed_tags pages without end")
		}
		var items []mastodon.Tag
		resp := ts.mastodonJSON(t, "GET", path, readOnly, nil, &items)
		for _, it := range items {
			if it.Following == nil || !*it.Following {
				t.Fatalf("followed tag %+v", it)
			}
			names = append(names, it.Name)
		}
		path = nextLink(t, resp.Header.Get("Link"), "next")
		if len(items) == 0 {
			break
		}
	}
	if len(names) != store.MaxFollowedTags || slices.Contains(names, "onemore") || names[len(names)-1] != "golang" {
		t.Fatalf("followed_tags: %d, last %q", len(names), names[len(names)-1])
	}

	ts.mastodonJSON(t, "POST", "/api/v1/tags/golang/unfollow", tok, nil, &tag)
	if tag.Following == nil || *tag.Following {
		t.Fatalf("unfollow: %+v", tag)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/tags/golang", tok, nil, &tag)
	if *tag.Following {
		t.Fatal("still following after the unfollow")
	}
}

// TestMastodonStreamingFollowedTag: the user stream gets a followed
// topic's new post once, even when its author is followed too, and never
// a blocked or protected author's; its delete follows it.
func TestMastodonStreamingFollowedTag(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amyNative, _ := ts.register(t, "amy")
	amy := ts.mastodonToken(t, "amy", amyNative, "")
	bob, _ := ts.register(t, "bob")
	fay, _ := ts.register(t, "fay")
	ben, _ := ts.register(t, "ben")
	eve, _ := ts.register(t, "eve")
	ts.follow(t, amyNative, "bob", true)
	ts.wantStatus(t, "PUT", "/api/v1/users/ben/block", amyNative, nil, http.StatusNoContent, "")
	ts.wantStatus(t, "PATCH", "/api/v1/me", eve, map[string]bool{"protected": true}, http.StatusOK, "")
	ts.mastodonJSON(t, "POST", "/api/v1/tags/tea/follow", amy, nil, nil)

	c, _ := ts.dialStream(t, "stream=user", http.Header{"Authorization": {"Bearer " + amy}})
	c.send(t, "", "", "")
	user := []string{"user"}
	both := ts.newPost(t, bob, "bob's #tea")
	ts.newPost(t, ben, "blocked #tea")
	ts.newPost(t, eve, "protected #tea")
	stranger := ts.newPost(t, fay, "fay's #Tea")
	c.expectStatus(t, user, "update", both)
	c.expectStatus(t, user, "update", stranger)
	ts.wantStatus(t, "DELETE", postPath(stranger), fay, nil, http.StatusNoContent, "")
	if m := c.expect(t, user, "delete", nil); m.Payload != sid(stranger) {
		t.Fatalf("delete payload %q, want %d", m.Payload, stranger)
	}
}

// TestMastodonGoClientFollowTags follows, lists, reads and unfollows a
// hashtag with go-mastodon, paging its followed tags by the Link header.
func TestMastodonGoClientFollowTags(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ctx := context.Background()
	c, _ := ts.goMastodonClient(t, ctx, "gopher")
	for _, name := range []string{"golang", "rust", "zig"} {
		tag, err := c.TagFollow(ctx, name)
		if err != nil || tag.Name != name || !tag.Following {
			t.Fatalf("TagFollow %s: %+v, %v", name, tag, err)
		}
	}
	var names []string
	pg := &gomastodon.Pagination{Limit: 2}
	for range 5 {
		tags, err := c.TagsFollowed(ctx, pg)
		if err != nil {
			t.Fatalf("TagsFollowed: %v", err)
		}
		for _, tag := range tags {
			names = append(names, tag.Name)
		}
		if pg.MaxID == "" || len(tags) == 0 {
			break
		}
		pg = &gomastodon.Pagination{Limit: 2, MaxID: pg.MaxID}
	}
	if !slices.Equal(names, []string{"zig", "rust", "golang"}) {
		t.Fatalf("TagsFollowed: %v", names)
	}
	tag, err := c.TagUnfollow(ctx, "rust")
	if err != nil || tag.Following {
		t.Fatalf("TagUnfollow: %+v, %v", tag, err)
	}
	if tag, err = c.TagInfo(ctx, url.PathEscape("rust")); err != nil || tag.Following || tag.Name != "rust" {
		t.Fatalf("TagInfo: %+v, %v", tag, err)
	}
}
