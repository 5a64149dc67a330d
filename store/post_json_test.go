package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendPostPageJSON compares AppendPostPageJSON with encoding/json's
// Encoder, as Echo's c.JSON uses it, over many posts: polls, spoilers,
// reposts (of a deleted original too), comments, filtered and edited
// posts, display names, avatars, media, and text with Unicode, HTML,
// control characters, invalid UTF-8 and line separators.
func TestAppendPostPageJSON(t *testing.T) {
	texts := []string{"", "hello", "<b>&amp;</b> \"quoted\" \\ back", "中文 内容 🎉 emoji",
		"tab\there\nnew line\r\x00\x01\x1f\b\f\x7f", "bad utf-8 \xff\xfe and \xe2\x28\xa1",
		"line\u2028sep\u2029para", "<script>alert('x')</script>", "naïve café ünïcödé", strings.Repeat("long ", 200)}
	rng := rand.New(rand.NewPCG(1, 39))
	text := func() string { return texts[rng.IntN(len(texts))] }
	yes, no := true, false
	boolPtr := func() *bool {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return &yes
		}
		return &no
	}
	author := func() Author {
		a := Author{ID: rng.Int64N(1 << 40), Username: text()}
		if rng.IntN(2) == 0 {
			u := "/media/avatars/" + text()
			a.AvatarURL = &u
		}
		if rng.IntN(2) == 0 {
			a.DisplayName = text()
		}
		if rng.IntN(2) == 0 {
			a.CreatedAt = Time(rng.Int64N(4e12))
		}
		a.Protected, a.Suspended, a.Approved = rng.IntN(3) == 0, rng.IntN(3) == 0, rng.IntN(3) == 0
		return a
	}
	post := func() Post {
		p := Post{ID: rng.Int64N(1 << 50), Kind: []string{KindPost, KindComment, ""}[rng.IntN(3)],
			Author: author(), Content: text(), CreatedAt: Time(rng.Int64N(4e12) - 1e12),
			CommentsCount: rng.Int64N(100), RepostsCount: rng.Int64N(100), LikesCount: rng.Int64N(1e9) - 5,
			Liked: boolPtr(), Pinned: boolPtr(), Bookmarked: boolPtr(), Reposted: boolPtr(),
			Spoiler: text(), Filtered: rng.IntN(4) == 0, Deleted: rng.IntN(8) == 0,
			Encoded: json.RawMessage(`{"ignored":true}`)}
		if rng.IntN(3) == 0 {
			p.URL = "https://remote.example/@x/" + text()
		}
		if rng.IntN(3) == 0 {
			parent := rng.Int64N(1 << 40)
			p.ParentID = &parent
		}
		if rng.IntN(3) == 0 {
			at := Time(rng.Int64N(4e12))
			p.EditedAt = &at
		}
		switch rng.IntN(4) {
		case 0: // nil lists stay null
		case 1:
			p.Mentions, p.Tags, p.Media = []Author{}, []string{}, []Media{}
		default:
			p.Mentions = []Author{{ID: 3, Username: text()}, author()}
			p.Tags = []string{text(), "go", text()}
			for range rng.IntN(4) {
				p.Media = append(p.Media, Media{ID: rng.Int64N(1e9), URL: "/media/" + text(), ThumbURL: text(),
					Width: rng.IntN(5000), Height: rng.IntN(5000), Alt: text(), Blurhash: []string{"", "LEHV6nWB2yk8pyo0adR*.7kCMdnj"}[rng.IntN(2)]})
			}
		}
		if rng.IntN(3) == 0 {
			poll := &Poll{ID: p.ID, ExpiresAt: Time(rng.Int64N(4e12)), Expired: rng.IntN(2) == 0,
				Multiple: rng.IntN(2) == 0, VotesCount: rng.Int64N(1000), VotersCount: rng.Int64N(1000), Voted: boolPtr()}
			if rng.IntN(4) > 0 {
				poll.Options = []PollOption{{Title: text(), VotesCount: 3}, {Title: text(), VotesCount: 0}}
			}
			switch rng.IntN(3) {
			case 1:
				poll.OwnVotes = []int{}
			case 2:
				poll.OwnVotes = []int{0, 1}
			}
			p.Poll = poll
		}
		return p
	}
	for n := range 300 {
		page := Page[Post]{}
		if n%7 != 0 {
			page.Items = []Post{}
		}
		for range rng.IntN(6) {
			p := post()
			switch rng.IntN(3) {
			case 0:
				orig := post()
				p.RepostOf = &orig
			case 1:
				p.RepostOf = &Post{ID: rng.Int64N(1 << 40), Deleted: true}
			}
			page.Items = append(page.Items, p)
		}
		if n%2 == 0 {
			cursor := fmt.Sprint(rng.Int64N(1<<50)) + text()
			page.NextCursor = &cursor
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(page); err != nil {
			t.Fatal(err)
		}
		got := AppendPostPageJSON(nil, page)
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("page %d differs:\n got %s\nwant %s", n, got, want.Bytes())
		}
		for i := range page.Items {
			want, _ := json.Marshal(page.Items[i])
			if got := AppendPostJSON(nil, &page.Items[i]); !bytes.Equal(got, want) {
				t.Fatalf("post differs:\n got %s\nwant %s", got, want)
			}
		}
	}
}

// BenchmarkPostPageJSON is a home page of 20 posts (a quarter reposts),
// encoded by hand and by encoding/json.
func BenchmarkPostPageJSON(b *testing.B) {
	yes := true
	avatar := "/media/avatars/a.webp"
	page := Page[Post]{Items: make([]Post, 20)}
	for i := range page.Items {
		page.Items[i] = Post{ID: int64(1000 + i), Kind: KindPost, Content: "a post of a benchmark, with <b>some</b> text: 你好",
			Author:    Author{ID: 7, Username: "author", AvatarURL: &avatar, DisplayName: "The Author", CreatedAt: 1.7e12},
			CreatedAt: 1.7e12, Liked: &yes, Pinned: &yes, Bookmarked: &yes, Reposted: &yes,
			Mentions: []Author{}, Tags: []string{}, Media: []Media{}}
		if i%4 == 0 {
			orig := page.Items[i]
			page.Items[i].RepostOf = &orig
		}
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = AppendPostPageJSON(buf[:0], page)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			json.NewEncoder(&buf).Encode(page)
		}
	})
}
