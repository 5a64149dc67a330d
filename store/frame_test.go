package store

import (
	"encoding/json"
	"testing"
)

// FrameOf makes the very bytes of encoding the frame whole, so a post
// encoded once serves its live event and its writer's answer alike.
func TestFrameOfMatchesEncodingTheFrame(t *testing.T) {
	no := false
	p := Post{ID: 42, Kind: KindPost, Author: Author{ID: 7, Username: "alice"},
		Content: `<b>"quotes" & 微博 \ done</b>`, CreatedAt: Time(1795316492004), Liked: &no,
		Mentions: []Author{}, Tags: []string{"go"}, Media: []Media{}}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(Frame{Event: EventPost, Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	if got := FrameOf(EventPost, raw); string(got) != string(want) {
		t.Fatalf("FrameOf:\n%s\nwant\n%s", got, want)
	}
	if got, _ := EncodeFrame(EventPost, p); string(got) != string(want) {
		t.Fatalf("EncodeFrame:\n%s\nwant\n%s", got, want)
	}
	p.Encoded = raw
	if again, _ := json.Marshal(p); string(again) != string(raw) {
		t.Fatalf("Encoded is encoded with the post: %s", again)
	}
}
