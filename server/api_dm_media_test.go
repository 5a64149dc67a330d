package main

import (
	"net/http"
	"testing"

	"microblog/store"
)

// TestDMPictureWithoutWords: a message may be a picture alone, as a post
// may; without a picture it still needs words, and the picture comes back
// with its description on both sides of the conversation.
func TestDMPictureWithoutWords(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")

	status, body := ts.upload(t, "POST", "/media", alice, "cat.png", pngBytes(testImage(40, 30)), "a grey cat")
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, body)
	}
	var media store.Media
	mustDecode(t, body, &media)

	ts.wantStatus(t, "POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": " "}, 400, "content_empty")
	status, body = ts.call(t, "POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "", "media_ids": []int64{media.ID}})
	if status != http.StatusCreated {
		t.Fatalf("a picture without words: %d %s", status, body)
	}
	var m store.DM
	mustDecode(t, body, &m)
	if m.Content != "" || len(m.Media) != 1 || m.Media[0].ID != media.ID || m.Media[0].Alt != "a grey cat" {
		t.Fatalf("sent %+v", m)
	}
	var page store.Page[store.DM]
	ts.getJSON(t, bob, "/api/v1/conversations/alice/messages", &page)
	if len(page.Items) != 1 || len(page.Items[0].Media) != 1 || page.Items[0].Media[0].Alt != "a grey cat" {
		t.Fatalf("bob reads %+v", page.Items)
	}
}
