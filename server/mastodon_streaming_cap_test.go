package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// streamCap is the most streams one streaming connection holds (contract
// section 17).
const streamCap = 100

// write sends a client message without waiting for anything.
func (c *streamClient) write(t *testing.T, typ, stream, tag string) {
	t.Helper()
	if err := c.ws.WriteJSON(map[string]string{"type": typ, "stream": stream, "tag": tag}); err != nil {
		t.Fatalf("%s %s %s: %v", typ, stream, tag, err)
	}
}

// settle waits until the server has answered everything sent before, and
// fails the test if any of it was an error frame: the error frame of a
// message of an unknown type comes after every answer to what came
// before it (unlike a pong, which the server may send ahead of them).
func (c *streamClient) settle(t *testing.T) {
	t.Helper()
	c.write(t, "settle", "", "")
	if m := c.next(t, "error"); m.Error != "Unknown message type" {
		t.Fatalf("got %+v, want no answer before the marker's", m)
	}
}

// refused checks that the next message is an error frame: a subscribe
// past the cap, and nothing else.
func (c *streamClient) refused(t *testing.T, what string) {
	t.Helper()
	if m := c.next(t, "error"); m.Error == "" || m.Error == "Unknown message type" {
		t.Fatalf("%s: got %+v, want an error frame", what, m)
	}
	c.settle(t)
}

// fillStreams subscribes the hashtags prefix0 … prefix<n-1> and checks
// that none is refused.
func (c *streamClient) fillStreams(t *testing.T, prefix string, n int) {
	t.Helper()
	for i := range n {
		c.write(t, "subscribe", "hashtag", fmt.Sprintf("%s%d", prefix, i))
	}
	c.settle(t)
}

// TestMastodonStreamingCap: a streaming connection holds at most 100
// streams. The 101st subscribe gets an error frame and is not in force (a
// post with that tag does not come); subscribing again to a stream held
// (in any case) is no new stream; unsubscribing frees a place.
func TestMastodonStreamingCap(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	amy, _ := ts.mastodonUser(t, "amy", "")
	bob, _ := ts.register(t, "bob")

	c, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + amy}})
	c.fillStreams(t, "t", streamCap)
	c.write(t, "subscribe", "hashtag", "extra")
	c.refused(t, "the 101st stream")

	c.write(t, "subscribe", "hashtag", "t5")
	c.write(t, "subscribe", "hashtag", "T5")
	c.settle(t)
	ts.newPost(t, bob, "#extra is not heard")
	pid := ts.newPost(t, bob, "#t5 is heard")
	// The public topic keeps its order: had the first come, it would be here.
	c.expectStatus(t, []string{"hashtag", "t5"}, "update", pid)

	c.write(t, "unsubscribe", "hashtag", "t0")
	c.write(t, "subscribe", "hashtag", "extra")
	c.settle(t)
	pid = ts.newPost(t, bob, "#extra now heard")
	c.expectStatus(t, []string{"hashtag", "extra"}, "update", pid)
	c.write(t, "subscribe", "public", "")
	c.refused(t, "a 101st stream after the swap")

	// A stream asked for in the URL is one of the hundred.
	d, _ := ts.dialStream(t, "stream=public", http.Header{"Authorization": {"Bearer " + amy}})
	d.fillStreams(t, "u", streamCap-1)
	d.write(t, "subscribe", "user", "")
	d.refused(t, "the 101st stream with ?stream=")
}

// TestMastodonStreamingCapAppToken: an app's own token (client
// credentials, no user) is held to the same cap.
func TestMastodonStreamingCapAppToken(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	cfg := ts.mastodonApp(t, "read")
	app, err := (&clientcredentials.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		TokenURL: cfg.Endpoint.TokenURL, AuthStyle: oauth2.AuthStyleInParams}).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bob, _ := ts.register(t, "bob")

	c, _ := ts.dialStream(t, "", http.Header{"Authorization": {"Bearer " + app.AccessToken}})
	c.write(t, "subscribe", "public", "")
	c.fillStreams(t, "a", streamCap-1)
	c.write(t, "subscribe", "hashtag", "a99")
	c.refused(t, "an app's 101st stream")
	c.write(t, "subscribe", "hashtag", "a98")
	c.settle(t)

	c.write(t, "unsubscribe", "public", "")
	c.write(t, "subscribe", "hashtag", "a99")
	c.settle(t)
	pid := ts.newPost(t, bob, "#a99 for the app")
	c.expectStatus(t, []string{"hashtag", "a99"}, "update", pid)
}
