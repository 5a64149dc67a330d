package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// servePicture serves b at the URL it returns, on a server of its own (as
// servers keep media on other hosts), as image/png.
func servePicture(t testing.TB, b []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cat.png" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/cat.png"
}

// TestFedInPictures: a remote note's picture is fetched, prepared as an
// upload (re-encoded, its own blurhash) and served from here; one that
// cannot be fetched, is not an image or is too big is left out, and the
// note is taken without it.
func TestFedInPictures(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("bob")
	tok, _ := ts.register(t, "alice")
	ts.follow(t, tok, peer.handle("bob"), true)
	good := servePicture(t, pngBytes(testImage(64, 48)))
	notImage := servePicture(t, []byte("<html>not a picture</html>"))
	huge := servePicture(t, append(pngBytes(testImage(8, 8)), bytes.Repeat([]byte{0}, 6<<20)...))
	doc := func(u string) map[string]any {
		return map[string]any{"type": "Document", "mediaType": "image/png", "url": u}
	}
	n := map[string]any{"id": peer.actor("bob") + "/notes/pics", "type": "Note", "attributedTo": peer.actor("bob"),
		"content": "<p>pictures</p>", "to": []string{"https://www.w3.org/ns/activitystreams#Public"},
		"attachment": []map[string]any{doc(strings.TrimSuffix(good, "cat.png") + "gone.png"), doc(notImage), doc(huge),
			{"type": "Document", "mediaType": "image/png", "url": good, "name": "a gradient"}}}
	if st := peer.send(t, ts.URL+"/ap/inbox", "bob", map[string]any{"id": peer.actor("bob") + "/notes/pics/activity", "type": "Create", "object": n}); st != http.StatusAccepted {
		t.Fatalf("create: %d", st)
	}
	home := homePosts(t, ts, tok)
	if len(home) != 1 || home[0].Content != "pictures" {
		t.Fatalf("home: %+v", home)
	}
	m := home[0].Media
	if len(m) != 1 || m[0].Alt != "a gradient" || m[0].Width != 64 || m[0].Height != 48 || m[0].Blurhash == "" {
		t.Fatalf("media: %+v", m)
	}
	for _, u := range []string{m[0].URL, m[0].ThumbURL} {
		if strings.HasPrefix(u, "http") && !strings.HasPrefix(u, ts.URL) {
			t.Errorf("served from elsewhere: %s", u)
			continue
		}
		if strings.HasPrefix(u, "/") {
			u = ts.URL + u
		}
		if status, typ, size := getURL(t, u); status != http.StatusOK || !strings.HasPrefix(typ, "image/") || size == 0 {
			t.Errorf("GET %s: %d %s %d bytes", u, status, typ, size)
		}
	}
}
