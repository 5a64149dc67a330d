package main

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"microblog/server/mastodon"
	"microblog/store"
)

// bothTokens registers name and answers its native token, a Mastodon
// token and its uid.
func (ts *testServer) bothTokens(t testing.TB, name string) (string, string, int64) {
	t.Helper()
	native, uid := ts.register(t, name)
	return native, ts.mastodonToken(t, name, native, ""), uid
}

// relationshipTo is the caller's relationship to the account id.
func (ts *testServer) relationshipTo(t testing.TB, token string, id int64) mastodon.Relationship {
	t.Helper()
	var rs []mastodon.Relationship
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/relationships?id[]="+sid(id)+"&id[]=999999", token, nil, &rs)
	if len(rs) != 1 || rs[0].ID != sid(id) {
		t.Fatalf("relationships: %+v", rs)
	}
	return rs[0]
}

// Following a protected account asks it; its owner sees the request and
// authorizes it; then both relationships say so, and the lists page to
// their end by their Link headers.
func TestMastodonFollowRequestsAndLists(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	aTok, aid := ts.mastodonUser(t, "alice", "")
	bTok, bid := ts.mastodonUser(t, "bobby", "")
	ts.mastodonJSON(t, "PATCH", "/api/v1/accounts/update_credentials", bTok, map[string]any{"locked": true}, nil)

	var r mastodon.Relationship
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/follow", aTok, nil, &r)
	if r.ID != sid(bid) || !r.Requested || r.Following {
		t.Fatalf("follow a protected account: %+v", r)
	}
	var me mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", bTok, nil, &me)
	if me.Source.FollowRequestsCount != 1 {
		t.Fatalf("follow_requests_count %d", me.Source.FollowRequestsCount)
	}
	if got := ts.mastodonPages(t, "/api/v1/follow_requests", bTok); !slices.Equal(got, []string{sid(aid)}) {
		t.Fatalf("follow_requests: %v", got)
	}
	if rb := ts.relationshipTo(t, bTok, aid); !rb.RequestedBy || rb.FollowedBy {
		t.Fatalf("bobby to alice before: %+v", rb)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/follow_requests/"+sid(aid)+"/authorize", bTok, nil, &r)
	if r.ID != sid(aid) || !r.FollowedBy {
		t.Fatalf("authorize: %+v", r)
	}
	if ra := ts.relationshipTo(t, aTok, bid); !ra.Following || ra.Requested {
		t.Fatalf("alice to bobby after: %+v", ra)
	}
	ts.mastodonError(t, "POST", "/api/v1/follow_requests/"+sid(aid)+"/reject", bTok, nil, http.StatusNotFound)
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/unfollow", aTok, nil, &r)
	if r.Following {
		t.Fatalf("unfollow: %+v", r)
	}

	// Seven fans of alice, paged three at a time to the end.
	var fans []string
	for i := range 7 {
		tok, uid := ts.mastodonUser(t, "fan"+strconv.Itoa(i), "")
		ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(aid)+"/follow", tok, nil, &r)
		if !r.Following || r.Requested {
			t.Fatalf("follow: %+v", r)
		}
		fans = append([]string{sid(uid)}, fans...)
		ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/follow", tok, nil, nil) // a request
	}
	if got := ts.mastodonPages(t, "/api/v1/accounts/"+sid(aid)+"/followers?limit=3", ""); !slices.Equal(got, fans) {
		t.Fatalf("followers %v, want %v", got, fans)
	}
	if got := ts.mastodonPages(t, "/api/v1/accounts/"+fans[0]+"/following?limit=1", aTok); len(got) != 1 || got[0] != sid(aid) {
		t.Fatalf("following %v", got)
	}
	if got := ts.mastodonPages(t, "/api/v1/follow_requests?limit=2", bTok); !slices.Equal(got, fans) {
		t.Fatalf("follow requests %v, want %v", got, fans)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/follow_requests/"+fans[0]+"/reject", bTok, nil, &r)
	if r.RequestedBy || r.FollowedBy {
		t.Fatalf("reject: %+v", r)
	}
}

// A block hides each from the other both ways, as the native API does:
// their statuses, the follow; the blocked one still opens the blocker's
// account and learns it is blocked. Mutes are listed and undone.
func TestMastodonBlocksAndMutes(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	aNative, aTok, aid := ts.bothTokens(t, "alice")
	bNative, bTok, bid := ts.bothTokens(t, "bobby")
	ts.post(t, aNative, "from alice", 0)
	ts.post(t, bNative, "from bobby", 0)
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(aid)+"/follow", bTok, nil, nil)

	var r mastodon.Relationship
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/block", aTok, nil, &r)
	if !r.Blocking || r.FollowedBy {
		t.Fatalf("block: %+v", r)
	}
	if rb := ts.relationshipTo(t, bTok, aid); !rb.BlockedBy || rb.Following {
		t.Fatalf("the blocked one's view: %+v", rb)
	}
	var acct mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/"+sid(aid), bTok, nil, &acct)
	for _, c := range []struct {
		tok string
		of  int64
	}{{aTok, bid}, {bTok, aid}} {
		if got := ts.mastodonPages(t, "/api/v1/accounts/"+sid(c.of)+"/statuses", c.tok); len(got) != 0 {
			t.Fatalf("statuses of %d across a block: %v", c.of, got)
		}
	}
	ts.mastodonError(t, "POST", "/api/v1/accounts/"+sid(aid)+"/follow", bTok, nil, http.StatusForbidden)
	if got := ts.mastodonPages(t, "/api/v1/blocks", aTok); !slices.Equal(got, []string{sid(bid)}) {
		t.Fatalf("blocks: %v", got)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/unblock", aTok, nil, &r)
	if r.Blocking {
		t.Fatalf("unblock: %+v", r)
	}
	if got := ts.mastodonPages(t, "/api/v1/accounts/"+sid(aid)+"/statuses", bTok); len(got) != 1 {
		t.Fatalf("statuses after the unblock: %v", got)
	}

	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/mute", aTok, nil, &r)
	if !r.Muting {
		t.Fatalf("mute: %+v", r)
	}
	if got := ts.mastodonPages(t, "/api/v1/mutes", aTok); !slices.Equal(got, []string{sid(bid)}) {
		t.Fatalf("mutes: %v", got)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+sid(bid)+"/unmute", aTok, nil, &r)
	if r.Muting || len(ts.mastodonPages(t, "/api/v1/mutes", aTok)) != 0 {
		t.Fatalf("unmute: %+v", r)
	}
	ts.mastodonError(t, "POST", "/api/v1/accounts/"+sid(aid)+"/block", aTok, nil, http.StatusUnprocessableEntity)
	ts.mastodonError(t, "POST", "/api/v1/accounts/999999/mute", aTok, nil, http.StatusNotFound)
}

// An account's statuses page newest first by max_id to the end, and
// above an id by min_id; the filters and the pins answer what they name.
func TestMastodonAccountStatuses(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	aNative, aTok, aid := ts.bothTokens(t, "alice")
	var posts []int64
	for i := range 5 {
		posts = append(posts, ts.post(t, aNative, "post "+strconv.Itoa(i), 0).ID)
	}
	reply := ts.comment(t, aNative, posts[0], "a reply").ID // replies are statuses too, as in Mastodon
	repost := ts.repost(t, aNative, posts[1])
	if status, b := ts.call(t, "PUT", "/api/v1/posts/"+sid(posts[2])+"/pin", aNative, nil); status != http.StatusNoContent {
		t.Fatalf("pin: %d %s", status, b)
	}
	base := "/api/v1/accounts/" + sid(aid) + "/statuses"
	own := []string{sid(posts[4]), sid(posts[3]), sid(posts[2]), sid(posts[1]), sid(posts[0])}
	if got := ts.mastodonPages(t, base+"?limit=2", aTok); !slices.Equal(got, append([]string{sid(repost), sid(reply)}, own...)) {
		t.Fatalf("all statuses: %v", got)
	}
	if got := ts.mastodonPages(t, base+"?exclude_reblogs=1&limit=2", aTok); !slices.Equal(got, append([]string{sid(reply)}, own...)) {
		t.Fatalf("without reblogs: %v", got)
	}
	if got := ts.mastodonPages(t, base+"?exclude_replies=true&exclude_reblogs=1&limit=2", aTok); !slices.Equal(got, own) {
		t.Fatalf("without replies and reblogs: %v", got)
	}
	var page []mastodon.Status
	ts.mastodonJSON(t, "GET", base+"?min_id="+sid(posts[1])+"&limit=2&exclude_reblogs=true&exclude_replies=true", aTok, nil, &page)
	if len(page) != 2 || page[0].ID != sid(posts[3]) || page[1].ID != sid(posts[2]) {
		t.Fatalf("min_id page: %+v", page)
	}
	ts.mastodonJSON(t, "GET", base+"?since_id="+sid(posts[3])+"&exclude_reblogs=true&exclude_replies=true", aTok, nil, &page)
	if len(page) != 1 || page[0].ID != sid(posts[4]) || page[0].Account.ID != sid(aid) {
		t.Fatalf("since_id page: %+v", page)
	}
	ts.mastodonJSON(t, "GET", base+"?pinned=true", "", nil, &page)
	if len(page) != 1 || page[0].ID != sid(posts[2]) {
		t.Fatalf("pinned: %+v", page)
	}
	ts.mastodonJSON(t, "GET", base+"?only_media=true", aTok, nil, &page)
	if len(page) != 0 {
		t.Fatalf("only_media without images: %+v", page)
	}
	ts.mastodonError(t, "GET", base+"?limit=0", aTok, nil, http.StatusUnprocessableEntity)
}

// Bookmarks and favourites list what the caller saved and liked, newest
// first, to their end.
func TestMastodonBookmarksAndFavourites(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	aNative, aTok, _ := ts.bothTokens(t, "alice")
	var liked, saved []string
	for i := range 5 {
		mid := ts.post(t, aNative, "post "+strconv.Itoa(i), 0).ID
		if status, b := ts.call(t, "PUT", "/api/v1/posts/"+sid(mid)+"/like", aNative, nil); status != http.StatusNoContent {
			t.Fatalf("like: %d %s", status, b)
		}
		liked = append([]string{sid(mid)}, liked...)
		if i%2 == 0 {
			ts.call(t, "PUT", "/api/v1/posts/"+sid(mid)+"/bookmark", aNative, nil)
			saved = append([]string{sid(mid)}, saved...)
		}
	}
	if got := ts.mastodonPages(t, "/api/v1/favourites?limit=2", aTok); !slices.Equal(got, liked) {
		t.Fatalf("favourites %v, want %v", got, liked)
	}
	if got := ts.mastodonPages(t, "/api/v1/bookmarks?limit=2", aTok); !slices.Equal(got, saved) {
		t.Fatalf("bookmarks %v, want %v", got, saved)
	}
	var page []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/favourites", aTok, nil, &page)
	if len(page) != 5 || page[0].Favourited == nil || !*page[0].Favourited {
		t.Fatalf("a favourite: %+v", page[0])
	}
	ts.mastodonError(t, "GET", "/api/v1/bookmarks", "", nil, http.StatusUnauthorized)
}

// An image uploaded through either media path is a MediaAttachment a
// status carries; the native upload still answers natively. A report
// answers Mastodon's Report.
func TestMastodonMediaAndReports(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	aNative, aTok, aid := ts.bothTokens(t, "alice")
	bTok, bid := ts.mastodonUser(t, "bobby", "")
	for _, path := range []string{"/api/v2/media", "/api/v1/media"} {
		status, body := ts.mastodonForm(t, "POST", path, aTok, map[string]string{"description": "a gradient"}, "file", pngBytes(testImage(64, 48)))
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		var m mastodon.MediaAttachment
		mustDecode(t, body, &m)
		if _, err := strconv.ParseInt(m.ID, 10, 64); err != nil || m.Type != "image" || m.Description == nil ||
			*m.Description != "a gradient" || m.Meta.Original == nil || m.Meta.Original.Width != 64 {
			t.Fatalf("%s: %s", path, body)
		}
		if r, _ := ts.fetch(t, m.URL[len(ts.URL):]); r.StatusCode != http.StatusOK {
			t.Fatalf("%s: the image %s: %d", path, m.URL, r.StatusCode)
		}
		var described mastodon.MediaAttachment
		ts.mastodonJSON(t, "PUT", "/api/v1/media/"+m.ID, aTok, map[string]string{"description": "said again"}, &described)
		ts.mastodonJSON(t, "GET", "/api/v1/media/"+m.ID, aTok, nil, &m)
		if described.ID != m.ID || m.Description == nil || *m.Description != "said again" {
			t.Fatalf("%s: described %+v, read back %+v", path, described, m)
		}
		ts.mastodonError(t, "GET", "/api/v1/media/"+m.ID, bTok, nil, http.StatusNotFound)
		mid, _ := strconv.ParseInt(m.ID, 10, 64)
		status, b := ts.call(t, "POST", "/api/v1/posts", aNative, map[string]any{"content": "look", "media_ids": []int64{mid}})
		if status != http.StatusCreated {
			t.Fatalf("a post with %s's upload: %d %s", path, status, b)
		}
		ts.mastodonError(t, "PUT", "/api/v1/media/"+m.ID, aTok, map[string]string{"description": "too late"}, http.StatusUnprocessableEntity)
	}
	var withMedia []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/"+sid(aid)+"/statuses?only_media=true", aTok, nil, &withMedia)
	if len(withMedia) != 2 || len(withMedia[0].MediaAttachments) != 1 || withMedia[0].MediaAttachments[0].Type != "image" {
		t.Fatalf("only_media: %+v", withMedia)
	}
	status, body := ts.upload(t, "POST", "/media", aNative, "a.png", pngBytes(testImage(8, 8)), "alt")
	var native store.Media
	mustDecode(t, body, &native)
	if status != http.StatusCreated || native.ID == 0 || native.Alt != "alt" {
		t.Fatalf("native upload: %d %s", status, body)
	}
	status, body = ts.mastodonForm(t, "POST", "/api/v2/media", aTok, map[string]string{"description": "no file"}, "", nil)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("no file: %d %s", status, body)
	}

	cNative, cid := ts.register(t, "carol")
	p := ts.post(t, cNative, "rude", 0)
	var rep mastodon.Report
	ts.mastodonJSON(t, "POST", "/api/v1/reports", aTok, map[string]any{"account_id": sid(cid), "status_ids": []string{sid(p.ID)}, "comment": "rude"}, &rep)
	if rep.ID == "" || rep.TargetAccount.ID != sid(cid) || rep.Comment != "rude" || !slices.Equal(rep.StatusIDs, []string{sid(p.ID)}) || rep.ActionTaken {
		t.Fatalf("report: %+v", rep)
	}
	resp := ts.do(t, "POST", "/api/v1/reports", aTok, "account_id="+sid(bid)+"&category=spam", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	jsonDecode(resp, &rep)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || rep.Category != "spam" || rep.TargetAccount.ID != sid(bid) {
		t.Fatalf("a form report: %d %+v", resp.StatusCode, rep)
	}
	ts.mastodonError(t, "POST", "/api/v1/reports", aTok, map[string]any{"account_id": "999999", "comment": "x"}, http.StatusNotFound)
	ts.mastodonError(t, "POST", "/api/v1/reports", aTok, map[string]any{"comment": "x"}, http.StatusUnprocessableEntity)
}
