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

// A Time is written in UTC with milliseconds, as a JSON string, whatever
// the year.
func TestTimeJSON(t *testing.T) {
	for ms, want := range map[int64]string{
		1795316492004:  `"2026-11-22T03:01:32.004Z"`,
		0:              `"1970-01-01T00:00:00.000Z"`,
		-1:             `"1969-12-31T23:59:59.999Z"`,
		32503680000000: `"3000-01-01T00:00:00.000Z"`,
	} {
		got, err := json.Marshal(Time(ms))
		if err != nil || string(got) != want {
			t.Errorf("Time(%d) = %s, %v; want %s", ms, got, err, want)
		}
		var back Time
		if err := json.Unmarshal(got, &back); err != nil || int64(back) != ms {
			t.Errorf("Time(%d) read back as %d, %v", ms, back, err)
		}
	}
}
