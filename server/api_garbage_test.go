package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGarbageNeverFails500 throws random bodies, ids and query strings at
// every API route but logout (which would end the test's session), logged in
// and not: whatever a client sends, the answer is
// never a 5xx, and every error carries the contract's body.
func TestGarbageNeverFails500(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	ts.register(t, "bob")
	p := ts.post(t, tok, "a post", 0)
	rng := rand.New(rand.NewPCG(1, 2))

	values := []string{`""`, `" "`, `"x"`, `0`, `-1`, `1e400`, `9223372036854775808`, `null`, `true`, `[]`, `{}`,
		`"\u0000"`, `"\ud800"`, fmt.Sprint(p.ID), `"` + strings.Repeat("長", 300) + `"`, `"<script>alert(1)</script>"`}
	fields := []string{"content", "repost_of", "username", "password", "bio", "parent"}
	body := func() string {
		switch rng.IntN(4) {
		case 0: // random bytes
			b := make([]byte, rng.IntN(64))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return string(b)
		case 1: // truncated JSON
			return `{"content": "abc`
		default: // an object of random fields and values
			var parts []string
			for range rng.IntN(4) {
				parts = append(parts, fmt.Sprintf("%q: %s", fields[rng.IntN(len(fields))], values[rng.IntN(len(values))]))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	ids := []string{fmt.Sprint(p.ID), "0", "-5", "abc", "99999999999999999999", "1.5", "%00", "9999"}
	names := []string{"alice", "bob", "nobody", "ALICE", "%E4%B8%AD", "a", "x%20y", strings.Repeat("z", 40)}
	queries := []string{"", "?limit=5", "?limit=-1", "?limit=1e9", "?cursor=%%%", "?cursor=djE6LTE6MDow", "?after=-1", "?after=99999999999999999999", "?limit=2&after=1"}
	routes := []struct{ method, path string }{
		{"POST", "/api/v1/users"}, {"POST", "/api/v1/sessions"},
		{"GET", "/api/v1/me"}, {"PATCH", "/api/v1/me"},
		{"GET", "/api/v1/users/NAME"}, {"PUT", "/api/v1/users/NAME/follow"}, {"DELETE", "/api/v1/users/NAME/follow"},
		{"GET", "/api/v1/users/NAME/followers"}, {"GET", "/api/v1/users/NAME/following"}, {"GET", "/api/v1/users/NAME/posts"},
		{"POST", "/api/v1/posts"}, {"GET", "/api/v1/posts/ID"}, {"DELETE", "/api/v1/posts/ID"},
		{"POST", "/api/v1/posts/ID/comments"}, {"GET", "/api/v1/posts/ID/comments"},
		{"GET", "/api/v1/timelines/home"}, {"GET", "/api/v1/timelines/public"},
	}
	for i := range 600 {
		r := routes[rng.IntN(len(routes))]
		path := strings.NewReplacer("NAME", names[rng.IntN(len(names))], "ID", ids[rng.IntN(len(ids))]).Replace(r.path)
		path += queries[rng.IntN(len(queries))]
		token := ""
		if rng.IntN(3) > 0 {
			token = tok
		}
		var b any
		if r.method != "GET" && r.method != "DELETE" {
			b = body()
		}
		status, resp := ts.call(t, r.method, path, token, b)
		if status >= 500 {
			t.Fatalf("request %d: %s %s %q: %d %s", i, r.method, path, b, status, resp)
		}
		if status >= 400 {
			errorCode(t, resp)
		}
	}
}
