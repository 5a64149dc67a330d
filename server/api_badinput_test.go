package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"microblog/store/storetest"
)

// TestBadInputChangesNothing sends what a broken or hostile client might and
// checks each gets the contract's 4xx with a clear error, and that nothing
// was written.
func TestBadInputChangesNothing(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	p := ts.post(t, alice, "alice's post", 0)
	pid := fmt.Sprint(p.ID)

	rdb := ts.rdb()
	k := keysOf(rdb)
	ctx := context.Background()
	snapshot := func() string {
		keys := storetest.Keys(t, rdb, "*")
		var b strings.Builder
		fmt.Fprint(&b, len(keys), rdb.Get(ctx, k.LastPostID()).Val(), rdb.Get(ctx, k.LastUserID()).Val(),
			rdb.HGetAll(ctx, k.Post(p.ID)).Val(), rdb.ZCard(ctx, k.PublicTimeline()).Val())
		return b.String()
	}
	archiveSettled(t, rdb) // the post's background work is done before the snapshot
	before := snapshot()

	long := strings.Repeat("字", 281)
	cases := []struct {
		name, method, path, token, contentType string
		body                                   string
		status                                 int
		code                                   string
	}{
		{"malformed JSON", "POST", "/api/v1/posts", alice, "", `{"content": "x"`, 400, "invalid_json"},
		{"not an object", "POST", "/api/v1/posts", alice, "", `["content"]`, 400, "invalid_json"},
		{"two objects", "POST", "/api/v1/posts", alice, "", `{"content":"a"}{"content":"b"}`, 400, "invalid_json"},
		{"empty body", "POST", "/api/v1/posts", alice, "", ``, 400, "invalid_json"},
		{"content of wrong type", "POST", "/api/v1/posts", alice, "", `{"content": 42}`, 400, "invalid_field"},
		{"repost_of of wrong type", "POST", "/api/v1/posts", alice, "", `{"content": "x", "repost_of": "1"}`, 400, "invalid_field"},
		{"invalid UTF-8", "POST", "/api/v1/posts", alice, "", "{\"content\": \"bad \xff\xfe\"}", 400, "invalid_utf8"},
		{"oversize body", "POST", "/api/v1/posts", alice, "", `{"content": "` + strings.Repeat("a", 70<<10) + `"}`, 413, "body_too_large"},
		{"not JSON", "POST", "/api/v1/posts", alice, "text/plain", `content=hi`, 415, "unsupported_media_type"},
		{"form post", "POST", "/api/v1/posts", alice, "application/x-www-form-urlencoded", `content=hi`, 415, "unsupported_media_type"},
		{"empty content", "POST", "/api/v1/posts", alice, "", `{"content": ""}`, 400, "content_empty"},
		{"white space only", "POST", "/api/v1/posts", alice, "", `{"content": " \n\t\u3000 "}`, 400, "content_empty"},
		{"281 characters", "POST", "/api/v1/posts", alice, "", `{"content": "` + long + `"}`, 400, "content_too_long"},
		{"NUL in content", "POST", "/api/v1/posts", alice, "", `{"content": "a\u0000b"}`, 400, "invalid_content"},
		{"not logged in", "POST", "/api/v1/posts", "", "", `{"content": "hi"}`, 401, "unauthorized"},
		{"bad token", "POST", "/api/v1/posts", "not-a-token", "", `{"content": "hi"}`, 401, "unauthorized"},
		{"repost of unknown post", "POST", "/api/v1/posts", alice, "", `{"content": "x", "repost_of": 99999}`, 404, "post_not_found"},
		{"repost of id 0", "POST", "/api/v1/posts", alice, "", `{"content": "x", "repost_of": -3}`, 404, "post_not_found"},
		{"comment on unknown post", "POST", "/api/v1/posts/99999/comments", alice, "", `{"content": "x"}`, 404, "post_not_found"},
		{"comment with a bad id", "POST", "/api/v1/posts/abc/comments", alice, "", `{"content": "x"}`, 404, "post_not_found"},
		{"empty comment", "POST", "/api/v1/posts/" + pid + "/comments", bob, "", `{"content": "  "}`, 400, "content_empty"},
		{"delete someone else's post", "DELETE", "/api/v1/posts/" + pid, bob, "", ``, 403, "not_author"},
		{"delete unknown post", "DELETE", "/api/v1/posts/99999", bob, "", ``, 404, "post_not_found"},
		{"follow unknown user", "PUT", "/api/v1/users/nobody/follow", bob, "", ``, 404, "user_not_found"},
		{"username too short", "POST", "/api/v1/users", "", "", `{"username": "a", "password": "long enough pw"}`, 400, "invalid_username"},
		{"username with a space", "POST", "/api/v1/users", "", "", `{"username": "a b", "password": "long enough pw"}`, 400, "invalid_username"},
		{"username with markup", "POST", "/api/v1/users", "", "", `{"username": "<b>x</b>", "password": "long enough pw"}`, 400, "invalid_username"},
		{"username too long", "POST", "/api/v1/users", "", "", `{"username": "` + strings.Repeat("n", 31) + `", "password": "long enough pw"}`, 400, "invalid_username"},
		{"password too short", "POST", "/api/v1/users", "", "", `{"username": "dave", "password": "short"}`, 400, "invalid_password"},
		{"password too long", "POST", "/api/v1/users", "", "", `{"username": "dave", "password": "` + strings.Repeat("p", 129) + `"}`, 400, "invalid_password"},
		{"bio too long", "PATCH", "/api/v1/me", alice, "", `{"bio": "` + strings.Repeat("b", 161) + `"}`, 400, "bio_too_long"},
		{"bio missing", "PATCH", "/api/v1/me", alice, "", `{}`, 400, "invalid_bio"},
		{"limit 0", "GET", "/api/v1/timelines/public?limit=0", "", "", ``, 400, "invalid_limit"},
		{"limit 101", "GET", "/api/v1/timelines/public?limit=101", "", "", ``, 400, "invalid_limit"},
		{"limit not a number", "GET", "/api/v1/timelines/public?limit=ten", "", "", ``, 400, "invalid_limit"},
		{"forged cursor", "GET", "/api/v1/timelines/public?cursor=bm9wZQ", "", "", ``, 400, "invalid_cursor"},
		{"after not a number", "GET", "/api/v1/timelines/public?after=x", "", "", ``, 400, "invalid_after"},
		{"home without login", "GET", "/api/v1/timelines/home", "", "", ``, 401, "unauthorized"},
		{"unknown endpoint", "GET", "/api/v1/nothing", "", "", ``, 404, "not_found"},
		{"wrong method", "PUT", "/api/v1/posts/" + pid, alice, "", `{}`, 405, "method_not_allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			var body any
			if c.body != "" || c.method == "POST" {
				body = c.body
			}
			resp := ts.do(t, c.method, c.path, c.token, body, h)
			if c.contentType != "" {
				resp.Body.Close()
				req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
				req.Header.Set("Content-Type", c.contentType)
				req.Header.Set("Authorization", "Bearer "+c.token)
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
			}
			defer resp.Body.Close()
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := jsonDecode(resp, &e); err != nil {
				t.Fatalf("error body is not JSON: %v", err)
			}
			if resp.StatusCode != c.status || e.Error.Code != c.code || e.Error.Message == "" {
				t.Fatalf("got %d %+v, want %d %s", resp.StatusCode, e.Error, c.status, c.code)
			}
		})
	}
	if after := snapshot(); after != before {
		t.Fatalf("bad input changed Redis:\nbefore %s\nafter  %s", before, after)
	}
}

func TestRateLimitedPosts(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=post=2/1h") // limits count in fixed windows: a minute's could end mid-test
	alice, _ := ts.register(t, "alice")
	ts.post(t, alice, "one", 0)
	ts.post(t, alice, "two", 0)
	resp := ts.do(t, "POST", "/api/v1/posts", alice, map[string]string{"content": "three"}, nil)
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third post: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
