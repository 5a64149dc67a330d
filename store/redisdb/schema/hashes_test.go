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
