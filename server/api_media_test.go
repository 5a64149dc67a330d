package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"microblog/store"
)

// testImage is a w × h picture with a gradient, so that encoders have
// something to encode.
func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	return img
}

func pngBytes(img image.Image) []byte {
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func jpegBytes(img image.Image) []byte {
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	return b.Bytes()
}

func gifBytes() []byte {
	pal := color.Palette{color.Black, color.White}
	frames := []*image.Paletted{image.NewPaletted(image.Rect(0, 0, 8, 8), pal), image.NewPaletted(image.Rect(0, 0, 8, 8), pal)}
	frames[1].SetColorIndex(3, 3, 1)
	var b bytes.Buffer
	gif.EncodeAll(&b, &gif.GIF{Image: frames, Delay: []int{10, 10}})
	return b.Bytes()
}

// webpBytes is a 1 × 1 lossless WebP (the Go standard library encodes none).
var webpBytes = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// withGPS puts an EXIF segment naming a GPS position right after a JPEG's
// start marker, as phones do.
func withGPS(j []byte) []byte {
	payload := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08GPSLatitude 52.5200 N GPSLongitude 13.4050 E")
	seg := append([]byte{0xff, 0xe1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}, payload...)
	return append(append(append([]byte{}, j[:2]...), seg...), j[2:]...)
}

// upload sends a multipart form with the file part (named filename) and an
// alt text to path.
func (ts *testServer) upload(t testing.TB, method, path, token, filename string, file []byte, alt string) (int, []byte) {
	t.Helper()
	fields := map[string]string{}
	if alt != "" {
		fields["alt"] = alt
	}
	return ts.multipart(t, method, "/api/v1"+path, token, fields, "file", filename, file)
}

// mediaFiles is how many files the media folder holds.
func (ts *testServer) mediaFiles(t testing.TB) int {
	t.Helper()
	entries, err := os.ReadDir(ts.MediaDir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// fetch GETs a URL of the server and returns the response and its body.
func (ts *testServer) fetch(t testing.TB, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestUploads: each allowed type is taken, re-encoded with a thumbnail and
// served as an image; everything else is refused with the contract's status
// and leaves no file behind; EXIF is gone.
func TestUploads(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	for _, tc := range []struct {
		name string
		file []byte
		w, h int
	}{
		{"photo.png", pngBytes(testImage(640, 480)), 640, 480},
		{"photo.jpg", jpegBytes(testImage(300, 200)), 300, 200},
		{"anim.gif", gifBytes(), 8, 8},
		{"tiny.webp", webpBytes, 1, 1},
	} {
		status, body := ts.upload(t, "POST", "/media", tok, tc.name, tc.file, "a test picture")
		if status != 201 {
			t.Fatalf("upload %s: %d %s", tc.name, status, body)
		}
		var m store.Media
		mustDecode(t, body, &m)
		if m.ID == 0 || m.Width != tc.w || m.Height != tc.h || m.Alt != "a test picture" || strings.Contains(m.URL, tc.name) {
			t.Fatalf("%s: %+v", tc.name, m)
		}
		for _, u := range []string{m.URL, m.ThumbURL} {
			resp, b := ts.fetch(t, u)
			ct := resp.Header.Get("Content-Type")
			if resp.StatusCode != 200 || !strings.HasPrefix(ct, "image/") || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
				t.Fatalf("GET %s: %d %s %v", u, resp.StatusCode, ct, resp.Header)
			}
			if _, _, err := image.Decode(bytes.NewReader(b)); err != nil && ct != "image/gif" {
				t.Fatalf("GET %s is no image: %v", u, err)
			}
		}
		if tc.name == "photo.png" {
			_, thumb := ts.fetch(t, m.ThumbURL)
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(thumb)); err != nil || cfg.Width != 480 || cfg.Height != 360 {
				t.Fatalf("thumbnail of 640×480: %+v %v", cfg, err)
			}
		}
	}

	// EXIF with a GPS position is gone from what is kept.
	status, body := ts.upload(t, "POST", "/media", tok, "phone.jpg", withGPS(jpegBytes(testImage(64, 64))), "")
	if status != 201 {
		t.Fatalf("upload with EXIF: %d %s", status, body)
	}
	var m store.Media
	mustDecode(t, body, &m)
	if _, b := ts.fetch(t, m.URL); bytes.Contains(b, []byte("GPS")) || bytes.Contains(b, []byte("Exif")) {
		t.Fatal("the served image still carries the EXIF location")
	}

	before := ts.mediaFiles(t)
	big := make([]byte, 6<<20)
	copy(big, jpegBytes(testImage(8, 8)))
	j := jpegBytes(testImage(200, 200))
	for _, tc := range []struct {
		name   string
		file   []byte
		status int
		code   string
	}{
		{"evil.jpg", []byte("<html><script>alert(1)</script></html>"), 415, "unsupported_media_type"},
		{"doc.pdf", []byte("%PDF-1.4 ..."), 415, "unsupported_media_type"},
		{"cut.jpg", j[:len(j)/2], 400, "invalid_image"},
		{"huge.jpg", big, 413, "media_too_large"},
		{"wide.png", pngBytes(image.NewGray(image.Rect(0, 0, 10000, 10))), 413, "media_too_large"},
		{"empty.png", nil, 415, "unsupported_media_type"},
	} {
		status, body := ts.upload(t, "POST", "/media", tok, tc.name, tc.file, "")
		if status != tc.status || errorCode(t, body) != tc.code {
			t.Errorf("upload %s: %d %s, want %d %s", tc.name, status, body, tc.status, tc.code)
		}
	}
	if after := ts.mediaFiles(t); after != before {
		t.Fatalf("refused uploads left %d files", after-before)
	}
	ts.wantStatus(t, "POST", "/api/v1/media", tok, map[string]string{"file": "x"}, 415, "unsupported_media_type")
	ts.wantStatus(t, "POST", "/api/v1/media", "", nil, 401, "unauthorized")
	for _, p := range []string{"/media/../go.mod", "/media/index.html", "/media/" + strings.Repeat("0", 32) + ".jpg", "/media/" + strings.Repeat("a", 32) + ".html"} {
		if resp, _ := ts.fetch(t, p); resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// TestPostsCarryImages: up to four of one's own unattached uploads; not
// someone else's, not twice, not ten; deleting the post removes the files.
func TestPostsCarryImages(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	upload := func(tok string) int64 {
		status, body := ts.upload(t, "POST", "/media", tok, "p.png", pngBytes(testImage(40, 30)), "")
		if status != 201 {
			t.Fatalf("upload: %d %s", status, body)
		}
		var m store.Media
		mustDecode(t, body, &m)
		return m.ID
	}
	var ids []int64
	for range 5 {
		ids = append(ids, upload(alice))
	}
	bobs := upload(bob)
	post := func(media []int64, content string) (int, []byte) {
		return ts.call(t, "POST", "/api/v1/posts", alice, map[string]any{"content": content, "media_ids": media})
	}
	tooMany := append(append([]int64{}, ids...), ids...) // 10, over store.MaxMedia (9)
	for _, bad := range [][]int64{tooMany, {ids[0], bobs}, {ids[0], ids[0]}, {999999}} {
		if status, body := post(bad, "x"); status != 400 || errorCode(t, body) != "invalid_media" {
			t.Fatalf("post with media %v: %d %s", bad, status, body)
		}
	}
	status, body := post(ids[:4], "") // images may speak without a word
	if status != 201 {
		t.Fatalf("post with 4 images: %d %s", status, body)
	}
	var p store.Post
	mustDecode(t, body, &p)
	if len(p.Media) != 4 || p.Media[0].ID != ids[0] || p.Media[3].URL == "" {
		t.Fatalf("post media %+v", p.Media)
	}
	var got store.Post
	ts.getJSON(t, "", fmt.Sprintf("/api/v1/posts/%d", p.ID), &got)
	if len(got.Media) != 4 || got.Media[2] != p.Media[2] {
		t.Fatalf("read back media %+v", got.Media)
	}
	if status, body := post(ids[:1], "again"); status != 400 || errorCode(t, body) != "invalid_media" {
		t.Fatalf("an image in a second post: %d %s", status, body)
	}
	before := ts.mediaFiles(t)
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", p.ID), alice, nil, 204, "")
	if after := ts.mediaFiles(t); after != before-8 {
		t.Fatalf("deleting the post left %d of its 8 files", after-(before-8))
	}
	if resp, _ := ts.fetch(t, p.Media[0].URL); resp.StatusCode != 404 {
		t.Fatalf("a deleted post's image is still served: %d", resp.StatusCode)
	}
}

// TestAvatars: an avatar is a square thumbnail shown wherever the user is;
// a new one replaces (and removes) the old.
func TestAvatars(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	var u store.User
	ts.getJSON(t, "", "/api/v1/users/alice", &u)
	if u.AvatarURL != nil {
		t.Fatalf("a new user has avatar %q", *u.AvatarURL)
	}
	status, body := ts.upload(t, "PUT", "/me/avatar", alice, "me.jpg", jpegBytes(testImage(300, 200)), "")
	if status != 200 {
		t.Fatalf("avatar: %d %s", status, body)
	}
	mustDecode(t, body, &u)
	if u.AvatarURL == nil {
		t.Fatal("no avatar_url after setting one")
	}
	first := *u.AvatarURL
	_, b := ts.fetch(t, first)
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width != 256 || cfg.Height != 256 {
		t.Fatalf("avatar is %+v (%v), want 256×256", cfg, err)
	}
	ts.getJSON(t, "", "/api/v1/users/alice", &u)
	if u.AvatarURL == nil || *u.AvatarURL != first {
		t.Fatalf("profile avatar %v", u.AvatarURL)
	}
	mid := ts.newPost(t, alice, "with my face")
	var p store.Post
	ts.getJSON(t, "", fmt.Sprintf("/api/v1/posts/%d", mid), &p)
	if p.Author.AvatarURL == nil || *p.Author.AvatarURL != first {
		t.Fatalf("a post's author shows avatar %v, want %s", p.Author.AvatarURL, first)
	}
	ts.upload(t, "PUT", "/me/avatar", alice, "me2.png", pngBytes(testImage(50, 80)), "")
	if resp, _ := ts.fetch(t, first); resp.StatusCode != 404 {
		t.Fatalf("the replaced avatar is still served: %d", resp.StatusCode)
	}
	if status, body := ts.upload(t, "PUT", "/me/avatar", alice, "x.txt", []byte("hello"), ""); status != 415 {
		t.Fatalf("text as avatar: %d %s", status, body)
	}
}

// TestUploadsCountAgainstThePostLimit: uploads and posts share one limit.
func TestUploadsCountAgainstThePostLimit(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=post=2/1h") // limits count in fixed windows: a minute's could end mid-test
	tok, _ := ts.register(t, "alice")
	img := pngBytes(testImage(10, 10))
	ts.upload(t, "POST", "/media", tok, "a.png", img, "")
	ts.newPost(t, tok, "one post")
	if status, body := ts.upload(t, "POST", "/media", tok, "b.png", img, ""); status != 429 || errorCode(t, body) != "rate_limited" {
		t.Fatalf("third upload or post in an hour: %d %s", status, body)
	}
}
