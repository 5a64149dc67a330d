package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestHiddenPostIsMissing (CONTRACT.md §17): a post the caller may not see
// (a protected account's, to a user who is not its fan; a blocker's, to
// the user it blocks; a comment under either) answers every act exactly
// as an id that was never used does, through both APIs: reading, editing,
// deleting, pinning (unpinning answers 204 for any id, as for one that is
// gone), liking and unliking, reposting,
// commenting, bookmarking and reporting are 404 post_not_found (Mastodon:
// 404 with its error body), so that walking the ids tells nothing of what
// the hidden accounts wrote. The same acts on a post the caller may see
// but not change keep their own answers (403 not_author, 400 invalid_report).
func TestHiddenPostIsMissing(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	pia, _ := ts.register(t, "pia") // protected
	carol, _ := ts.register(t, "carol")
	bob, bobM, _ := ts.bothTokens(t, "bob")
	ann, _ := ts.register(t, "ann") // a fan of pia, to comment under her post
	ts.follow(t, ann, "pia", true)
	ts.wantStatus(t, "PATCH", "/api/v1/me", pia, map[string]any{"protected": true}, http.StatusOK, "")
	protected := ts.post(t, pia, "only for my fans", 0).ID
	underProtected := ts.comment(t, ann, protected, "a fan's comment").ID
	blocker := ts.post(t, carol, "not for bob", 0).ID
	ts.wantStatus(t, "PUT", "/api/v1/users/bob/block", carol, nil, http.StatusNoContent, "")
	annPost := ts.post(t, ann, "ann's own", 0).ID
	missing := annPost + 1000
	owners := map[int64]string{protected: pia, blocker: carol}
	before := map[int64]string{}
	for mid, tok := range owners {
		_, b := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", mid), tok, nil)
		before[mid] = string(b)
	}

	native := []struct{ method, path, body string }{
		{"GET", "/api/v1/posts/%d", ""},
		{"PATCH", "/api/v1/posts/%d", `{"content":"mine now"}`},
		{"DELETE", "/api/v1/posts/%d", ""},
		{"PUT", "/api/v1/posts/%d/pin", ""},
		{"DELETE", "/api/v1/posts/%d/pin", ""},
		{"PUT", "/api/v1/posts/%d/like", ""},
		{"DELETE", "/api/v1/posts/%d/like", ""},
		{"PUT", "/api/v1/posts/%d/bookmark", ""},
		{"POST", "/api/v1/posts/%d/comments", `{"content":"hello"}`},
		{"GET", "/api/v1/posts/%d/comments", ""},
		{"GET", "/api/v1/posts/%d/likes", ""},
		{"GET", "/api/v1/posts/%d/history", ""},
		{"POST", "/api/v1/posts", `{"repost_of":%d}`},
		{"POST", "/api/v1/reports", `{"username":"%s","post_ids":[%d],"reason":"spam"}`},
	}
	mastodon := []struct{ method, path, body string }{
		{"GET", "/api/v1/statuses/%d", ""},
		{"PUT", "/api/v1/statuses/%d", `{"status":"mine now"}`},
		{"DELETE", "/api/v1/statuses/%d", ""},
		{"POST", "/api/v1/statuses/%d/pin", ""},
		{"POST", "/api/v1/statuses/%d/unpin", ""},
		{"POST", "/api/v1/statuses/%d/favourite", ""},
		{"POST", "/api/v1/statuses/%d/unfavourite", ""},
		{"POST", "/api/v1/statuses/%d/reblog", ""},
		{"POST", "/api/v1/statuses/%d/bookmark", ""},
		{"GET", "/api/v1/statuses/%d/context", ""},
		{"GET", "/api/v1/statuses/%d/favourited_by", ""},
		{"GET", "/api/v1/statuses/%d/reblogged_by", ""},
		{"POST", "/api/v1/statuses", `{"status":"hello","in_reply_to_id":"%d"}`},
		{"POST", "/api/v1/reports", `{"account_id":"%s","status_ids":["%d"],"comment":"spam"}`},
	}
	owner := map[int64]string{protected: "pia", underProtected: "ann", blocker: "carol", missing: "ann"}
	ids := map[string]string{}
	for _, name := range []string{"pia", "ann", "carol"} {
		ids[name] = strconv.FormatInt(ts.userAs(t, bob, name).ID, 10)
	}
	fill := func(f string, mid int64, forMastodon bool) string {
		if strings.Contains(f, "%s") {
			who := owner[mid]
			if forMastodon {
				who = ids[who]
			}
			return fmt.Sprintf(f, who, mid)
		}
		if strings.Contains(f, "%d") {
			return fmt.Sprintf(f, mid)
		}
		return f
	}
	answer := func(token, method, path, body string) string {
		var b any
		if body != "" {
			b = body
		}
		resp := ts.do(t, method, path, token, b, http.Header{"Content-Type": {"application/json"}})
		defer resp.Body.Close()
		var out strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return strconv.Itoa(resp.StatusCode) + " " + strings.TrimSpace(out.String())
	}
	for _, api := range []struct {
		name     string
		token    string
		requests []struct{ method, path, body string }
	}{{"native", bob, native}, {"Mastodon", bobM, mastodon}} {
		for _, r := range api.requests {
			forMastodon := api.name == "Mastodon"
			want := answer(api.token, r.method, fill(r.path, missing, false), fill(r.body, missing, forMastodon))
			// Unpinning needs nothing but the id (204 for one that is gone).
			idempotent := r.method == "DELETE" && strings.HasSuffix(r.path, "/pin")
			if !strings.HasPrefix(want, "404 ") && !(idempotent && strings.HasPrefix(want, "204")) {
				t.Errorf("%s %s %s on a missing id: %s, want 404", api.name, r.method, r.path, want)
			}
			for what, mid := range map[string]int64{"a protected post": protected, "a comment under it": underProtected, "a blocker's post": blocker} {
				got := answer(api.token, r.method, fill(r.path, mid, false), fill(r.body, mid, forMastodon))
				if got != want {
					t.Errorf("%s %s %s on %s: %s; on a missing id: %s", api.name, r.method, r.path, what, got, want)
				}
			}
		}
	}
	// What bob may see but not change keeps its own answers.
	ts.wantStatus(t, "PATCH", fmt.Sprintf("/api/v1/posts/%d", annPost), bob, map[string]any{"content": "x"}, http.StatusForbidden, "not_author")
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", annPost), bob, nil, http.StatusForbidden, "not_author")
	ts.wantStatus(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/pin", annPost), bob, nil, http.StatusForbidden, "not_yours")
	ts.wantStatus(t, "POST", "/api/v1/reports", bob, map[string]any{"username": "pia", "post_ids": []int64{annPost}, "reason": "x"}, http.StatusBadRequest, "invalid_report")
	// And nothing changed: the hidden posts are as they were.
	for mid, tok := range owners {
		if _, b := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", mid), tok, nil); string(b) != before[mid] {
			t.Errorf("post %d changed:\n%s\nwas\n%s", mid, b, before[mid])
		}
	}
}
