package schema

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestPostHashArgs: Args writes the very fields and values go-redis
// writes for the struct, an Edited of 0 left out as its omitempty says.
func TestPostHashArgs(t *testing.T) {
	ctx := context.Background()
	pl := redis.NewClient(&redis.Options{Addr: "127.0.0.1:0"}).Pipeline() // queues, never sends
	for _, h := range []PostHash{
		{Content: "hello", Author: 7, Username: "ann", Time: 1700000000000, Kind: "post", Mentions: "[]", Tags: "[]", Media: "[]"},
		{Content: "re", Author: 300, Username: "bob", Time: 1, Kind: "comment", RepostOf: "4", Parent: "9", Comments: 2,
			Reposts: 3, Likes: 400, Mentions: `[{"id":7}]`, Tags: `["go"]`, Media: "[]", Deleted: "1", Edited: 5, Unfinished: "1"},
		{Content: "poll", Author: 7, Username: "ann", Time: 1, Kind: "post", Poll: `{"options":["a","b"],"expires_at":9}`},
		{Content: "bare", Author: 7, Username: "ann", Time: 1, Kind: "post", Media: `[{"id":1}]`},
	} {
		want := pl.HSet(ctx, "B:1", h).Args()
		got := pl.HSet(ctx, "B:1", h.Args()...).Args()
		if !slices.Equal(got, want) {
			t.Errorf("Args of %+v:\n got %v\nwant %v", h, got, want)
		}
	}
}

// TestPostHashIndexArgs: IndexArgs, with post_index.lua's field names, the
// author and the time put back as the script puts them, is Args.
func TestPostHashIndexArgs(t *testing.T) {
	for _, h := range []PostHash{
		{Content: "hello", Author: 7, Username: "ann", Time: 1700000000000, Kind: "post", Mentions: "[]", Tags: "[]", Media: "[]"},
		{Content: "re", Author: 300, Username: "bob", Time: 1, Kind: "post", RepostOf: "4", Reposts: 3, Likes: 400,
			Mentions: `[{"id":7}]`, Tags: `["go"]`, Media: "[]", Edited: 5, Poll: `{"options":["a","b"]}`, Spoiler: "cw", URL: "https://x/1"},
	} {
		v := h.IndexArgs()
		got := []any{PostIndexFields[0], v[0], "author", h.Author, PostIndexFields[1], v[1], "time", h.Time}
		for i := 2; i < len(PostIndexFields); i++ {
			got = append(got, PostIndexFields[i], v[i])
		}
		got = append(got, v[len(PostIndexFields):]...)
		if want := h.Args(); !slices.Equal(got, want) {
			t.Errorf("IndexArgs of %+v, with the names put back:\n got %v\nwant %v", h, got, want)
		}
	}
}
