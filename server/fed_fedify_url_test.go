package main

import (
	"fmt"
	"testing"

	"microblog/server/federation/fedifytest"
	"microblog/store"
)

// TestFedifyPostURL: a post from the partner carries the address of its
// original there (the Note's url) as the native Post's url, in its live
// frame, its page and its repost alike, and as the Mastodon Status's url
// and uri; a local post has none, and its Status's url stays its own.
func TestFedifyPostURL(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, _ := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ws := ts.dialWS(t, bob, "")
	ws.ready(t)
	ts.followRemote(t, bob, "bob", fedi)

	r := fedi.Post(t, fedifytest.Post{Content: "<p>where do I live?</p>"})
	live := livePost(t, ws, "where do I live?")
	if live.URL != r.ID {
		t.Errorf("the live post's url %q, want the Note's %q", live.URL, r.ID)
	}
	if got := ts.fedPost(t, bob, live.ID); got.URL != r.ID {
		t.Errorf("GET /posts/%d: url %q, want %q", live.ID, got.URL, r.ID)
	}
	home := ts.findPost(t, bob, "/api/v1/timelines/home", "the post in bob's home", func(p2 store.Post) bool { return p2.ID == live.ID })
	if home.URL != r.ID {
		t.Errorf("home's copy: url %q", home.URL)
	}

	// A local repost of it shows the original's address on its original.
	status, body := ts.call(t, "POST", "/api/v1/posts", bob, map[string]any{"repost_of": live.ID})
	if status/100 != 2 {
		t.Fatalf("repost: %d %s", status, body)
	}
	own := ts.newPost(t, bob, "a local post")
	var reposted store.Post
	mustDecode(t, body, &reposted)
	if reposted.URL != "" || reposted.RepostOf == nil || reposted.RepostOf.URL != r.ID {
		t.Errorf("the repost: url %q, its original %+v", reposted.URL, reposted.RepostOf)
	}
	if got := ts.fedPost(t, bob, own); got.URL != "" {
		t.Errorf("a local post has url %q", got.URL)
	}

	// The Mastodon API: the remote status's url and uri are its original's.
	tok := ts.mastodonToken(t, "bob", bob, "")
	var st struct{ URL, URI string }
	ts.mastodonJSON(t, "GET", fmt.Sprintf("/api/v1/statuses/%d", live.ID), tok, nil, &st)
	if st.URL != r.ID || st.URI != r.ID {
		t.Errorf("the remote status: url %q uri %q, want %q", st.URL, st.URI, r.ID)
	}
	ts.mastodonJSON(t, "GET", fmt.Sprintf("/api/v1/statuses/%d", own), tok, nil, &st)
	if want := fmt.Sprintf("%s/@bob/%d", ts.URL, own); st.URL != want || st.URI != want {
		t.Errorf("the local status: url %q uri %q, want %q", st.URL, st.URI, want)
	}
}
