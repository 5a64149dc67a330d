package main

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"microblog/server/mastodon"
	"microblog/store"
)

// toot posts a status through the Mastodon API.
func (ts *testServer) toot(t testing.TB, token string, body map[string]any) mastodon.Status {
	t.Helper()
	var s mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", token, body, &s)
	return s
}

// readerFlag reads one of a Status's reader flags, failing when it is absent.
func readerFlag(t testing.TB, name string, b *bool) bool {
	t.Helper()
	if b == nil {
		t.Fatalf("status has no %s for a signed-in reader", name)
	}
	return *b
}

// TestMastodonStatusCreate: a status is a post of the native API and back;
// Idempotency-Key makes a retry the same status; forms are read as JSON
// is; what the service has not is refused with 422.
func TestMastodonStatusCreate(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, uid := ts.mastodonUser(t, "tess", "")
	native, _ := ts.register(t, "nate")

	h := http.Header{"Idempotency-Key": {"abc-123"}}
	var first, again mastodon.Status
	for _, out := range []*mastodon.Status{&first, &again} {
		resp := ts.do(t, "POST", "/api/v1/statuses", tok, map[string]any{"status": "hello #Go"}, h)
		if resp.StatusCode != 200 || jsonDecode(resp, out) != nil {
			t.Fatalf("post with Idempotency-Key: %d", resp.StatusCode)
		}
		resp.Body.Close()
	}
	if first.ID == "" || first.ID != again.ID {
		t.Fatalf("the same Idempotency-Key gave statuses %q and %q", first.ID, again.ID)
	}
	if first.Account.ID != strconv.FormatInt(uid, 10) || first.Visibility != "public" ||
		!strings.Contains(first.Content, `class="mention hashtag"`) || len(first.Tags) != 1 || first.Tags[0].Name != "go" {
		t.Errorf("status = %+v", first)
	}
	if readerFlag(t, "favourited", first.Favourited) || readerFlag(t, "reblogged", first.Reblogged) ||
		readerFlag(t, "bookmarked", first.Bookmarked) || readerFlag(t, "pinned", first.Pinned) || readerFlag(t, "muted", first.Muted) {
		t.Errorf("a new status has reader flags set: %+v", first)
	}
	var mine []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/home", tok, nil, &mine)
	if len(mine) != 1 {
		t.Errorf("home timeline after two posts with one key: %d statuses, want 1", len(mine))
	}

	// The same post on the native API, and a native post on this one.
	var p store.Post
	ts.getJSON(t, native, "/api/v1/posts/"+first.ID, &p)
	if p.Content != "hello #Go" || p.Author.ID != uid {
		t.Errorf("native view of the status: %+v", p)
	}
	np := ts.post(t, native, "from the web", 0)
	var s mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+strconv.FormatInt(np.ID, 10), tok, nil, &s)
	if s.Content != "<p>from the web</p>" || s.Account.Username != "nate" {
		t.Errorf("Mastodon view of a native post: %+v", s)
	}

	// A form, as most apps send it.
	form := url.Values{"status": {"by form"}, "visibility": {"unlisted"}}
	resp := ts.do(t, "POST", "/api/v1/statuses", tok, form.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	if err := jsonDecode(resp, &s); err != nil || resp.StatusCode != 200 || s.Content != "<p>by form</p>" {
		t.Errorf("form post: %d %+v", resp.StatusCode, s)
	}
	resp.Body.Close()

	ts.mastodonError(t, "POST", "/api/v1/statuses", tok, map[string]any{"status": "cw", "spoiler_text": strings.Repeat("x", 101)}, 422)
	ts.mastodonError(t, "POST", "/api/v1/statuses", tok, map[string]any{"status": "no one to send it to", "visibility": "direct"}, 422)
	ts.mastodonError(t, "POST", "/api/v1/statuses", tok, map[string]any{"status": "hi", "visibility": "private"}, 422)
	ts.mastodonError(t, "POST", "/api/v1/statuses", tok, map[string]any{"status": ""}, 422)
	ts.mastodonError(t, "POST", "/api/v1/statuses", "", map[string]any{"status": "anon"}, 401)
	readOnly := ts.mastodonToken(t, "tess", nativeOf(tok), "read")
	if readOnly != tok { // once the OAuth helper's tokens carry scopes
		ts.mastodonError(t, "POST", "/api/v1/statuses", readOnly, map[string]any{"status": "no"}, 403)
	}
}

// TestMastodonStatusMedia: images are attached by media_ids[], as a form
// sends them, and an edit cannot change them. (The upload is the native
// POST /api/v1/media, a path both APIs share.)
func TestMastodonStatusMedia(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.mastodonUser(t, "tess", "")
	code, b := ts.upload(t, "POST", uploadPath, nativeOf(tok), "a.png", pngBytes(testImage(40, 30)), "")
	var m store.Media
	if code != 201 {
		t.Fatalf("upload: %d %s", code, b)
	}
	mustDecode(t, b, &m)
	form := url.Values{"status": {"a picture"}, "media_ids[]": {strconv.FormatInt(m.ID, 10)}}
	resp := ts.do(t, "POST", "/api/v1/statuses", tok, form.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	var pic mastodon.Status
	if err := jsonDecode(resp, &pic); err != nil || resp.StatusCode != 200 || len(pic.MediaAttachments) != 1 ||
		pic.MediaAttachments[0].Type != "image" || pic.MediaAttachments[0].Meta.Original == nil {
		t.Errorf("post with media_ids[]: %d %+v", resp.StatusCode, pic)
	}
	resp.Body.Close()
	ts.mastodonJSON(t, "PUT", "/api/v1/statuses/"+pic.ID, tok,
		map[string]any{"status": "a picture, edited", "media_ids": []string{pic.MediaAttachments[0].ID}}, nil)
	ts.mastodonError(t, "PUT", "/api/v1/statuses/"+pic.ID, tok, map[string]any{"status": "no picture", "media_ids": []string{}}, 422)

}

// TestMastodonStatusThread: a reply is a comment on the native API and
// shows in the context; an edit shows in the history and the source; a
// delete answers the text.
func TestMastodonStatusThread(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ann, annID := ts.mastodonUser(t, "ann", "")
	bob, _ := ts.mastodonUser(t, "bob", "")
	root := ts.toot(t, ann, map[string]any{"status": "root"})
	reply := ts.toot(t, bob, map[string]any{"status": "@ann a reply", "in_reply_to_id": root.ID})
	deeper := ts.toot(t, ann, map[string]any{"status": "deeper", "in_reply_to_id": reply.ID})
	second := ts.toot(t, bob, map[string]any{"status": "second reply", "in_reply_to_id": root.ID})
	if reply.InReplyToID == nil || *reply.InReplyToID != root.ID ||
		reply.InReplyToAccountID == nil || *reply.InReplyToAccountID != strconv.FormatInt(annID, 10) {
		t.Errorf("reply's in_reply_to: %v %v", reply.InReplyToID, reply.InReplyToAccountID)
	}
	var comments store.Page[store.Post]
	ts.getJSON(t, nativeOf(ann), "/api/v1/posts/"+root.ID+"/comments", &comments)
	if len(comments.Items) != 2 {
		t.Errorf("native comments of the root: %d, want 2", len(comments.Items))
	}

	var ctx mastodon.Context
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+root.ID+"/context", bob, nil, &ctx)
	if got := statusIDs(ctx.Descendants); got != reply.ID+","+deeper.ID+","+second.ID || len(ctx.Ancestors) != 0 {
		t.Errorf("root's context: ancestors %d, descendants %s", len(ctx.Ancestors), got)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+deeper.ID+"/context", "", nil, &ctx)
	if got := statusIDs(ctx.Ancestors); got != root.ID+","+reply.ID || len(ctx.Descendants) != 0 {
		t.Errorf("deeper's context: ancestors %s, descendants %d", got, len(ctx.Descendants))
	}
	var s mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+root.ID, ann, nil, &s)
	if s.RepliesCount != 2 {
		t.Errorf("replies_count = %d, want 2", s.RepliesCount)
	}

	ts.mastodonJSON(t, "PUT", "/api/v1/statuses/"+root.ID, ann, map[string]any{"status": "root, edited"}, &s)
	if s.Content != "<p>root, edited</p>" || s.EditedAt == nil {
		t.Errorf("edited status: %+v", s)
	}
	ts.mastodonError(t, "PUT", "/api/v1/statuses/"+root.ID, bob, map[string]any{"status": "not mine"}, 403)
	var history []mastodon.StatusEdit
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+root.ID+"/history", bob, nil, &history)
	if len(history) != 2 || history[0].Content != "<p>root</p>" || history[1].Content != "<p>root, edited</p>" ||
		history[0].Account.Username != "ann" {
		t.Errorf("history = %+v", history)
	}
	var src mastodon.StatusSource
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+root.ID+"/source", ann, nil, &src)
	if src.ID != root.ID || src.Text != "root, edited" {
		t.Errorf("source = %+v", src)
	}

	ts.mastodonError(t, "DELETE", "/api/v1/statuses/"+second.ID, ann, nil, 403)
	ts.mastodonJSON(t, "DELETE", "/api/v1/statuses/"+second.ID, bob, nil, &s)
	if s.ID != second.ID || s.Text == nil || *s.Text != "second reply" {
		t.Errorf("deleted status: %+v", s)
	}
	ts.mastodonError(t, "GET", "/api/v1/statuses/"+second.ID, bob, nil, 404)
}

// statusIDs joins the ids of statuses, for comparing orders.
func statusIDs(ss []mastodon.Status) string {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return strings.Join(ids, ",")
}

// TestMastodonStatusActions: favourites, reblogs, bookmarks and pins set
// the counts and the reader's flags, and show who did them.
func TestMastodonStatusActions(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ann, _ := ts.mastodonUser(t, "ann", "")
	bob, bobID := ts.mastodonUser(t, "bob", "")
	st := ts.toot(t, ann, map[string]any{"status": "like me"})
	path := "/api/v1/statuses/" + st.ID

	var s mastodon.Status
	ts.mastodonJSON(t, "POST", path+"/favourite", bob, nil, &s)
	if s.FavouritesCount != 1 || !readerFlag(t, "favourited", s.Favourited) {
		t.Errorf("after favourite: %d %v", s.FavouritesCount, *s.Favourited)
	}
	var people []mastodon.Account
	ts.mastodonJSON(t, "GET", path+"/favourited_by", "", nil, &people)
	if len(people) != 1 || people[0].ID != strconv.FormatInt(bobID, 10) {
		t.Errorf("favourited_by = %+v", people)
	}

	var rb, rb2 mastodon.Status
	ts.mastodonJSON(t, "POST", path+"/reblog", bob, nil, &rb)
	if rb.Reblog == nil || rb.Reblog.ID != st.ID || rb.Account.Username != "bob" || rb.Reblog.ReblogsCount != 1 ||
		!readerFlag(t, "reblogged", rb.Reblog.Reblogged) || !readerFlag(t, "favourited", rb.Reblog.Favourited) {
		t.Fatalf("reblog = %+v", rb)
	}
	ts.mastodonJSON(t, "POST", path+"/reblog", bob, nil, &rb2)
	if rb2.ID != rb.ID {
		t.Errorf("a second reblog made %s, want the first, %s", rb2.ID, rb.ID)
	}
	ts.mastodonJSON(t, "GET", path, bob, nil, &s)
	if !readerFlag(t, "reblogged", s.Reblogged) || s.ReblogsCount != 1 {
		t.Errorf("reblogged status as its reblogger sees it: %+v", s)
	}
	ts.mastodonJSON(t, "GET", path, ann, nil, &s)
	if readerFlag(t, "reblogged", s.Reblogged) || readerFlag(t, "favourited", s.Favourited) || s.FavouritesCount != 1 {
		t.Errorf("ann's flags on her own status: %+v", s)
	}
	ts.mastodonJSON(t, "GET", path+"/reblogged_by", ann, nil, &people)
	if len(people) != 1 || people[0].Username != "bob" {
		t.Errorf("reblogged_by = %+v", people)
	}
	var home []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/home", bob, nil, &home)
	if len(home) != 1 || home[0].ID != rb.ID || home[0].Reblog == nil || !readerFlag(t, "reblogged", home[0].Reblog.Reblogged) {
		t.Errorf("bob's home after the reblog: %s", statusIDs(home))
	}

	ts.mastodonJSON(t, "POST", path+"/unreblog", bob, nil, &s)
	if s.ID != st.ID || readerFlag(t, "reblogged", s.Reblogged) || s.ReblogsCount != 0 {
		t.Errorf("after unreblog: %+v", s)
	}
	ts.mastodonJSON(t, "GET", path+"/reblogged_by", ann, nil, &people)
	if len(people) != 0 {
		t.Errorf("reblogged_by after unreblog = %+v", people)
	}
	ts.mastodonJSON(t, "POST", path+"/unfavourite", bob, nil, &s)
	if s.FavouritesCount != 0 || readerFlag(t, "favourited", s.Favourited) {
		t.Errorf("after unfavourite: %+v", s)
	}

	ts.mastodonJSON(t, "POST", path+"/bookmark", bob, nil, &s)
	if !readerFlag(t, "bookmarked", s.Bookmarked) {
		t.Error("bookmark did not set bookmarked")
	}
	ts.mastodonJSON(t, "POST", path+"/unbookmark", bob, nil, &s)
	if readerFlag(t, "bookmarked", s.Bookmarked) {
		t.Error("unbookmark did not clear bookmarked")
	}
	ts.mastodonJSON(t, "POST", path+"/pin", ann, nil, &s)
	if !readerFlag(t, "pinned", s.Pinned) {
		t.Error("pin did not set pinned")
	}
	var seen mastodon.Status // fresh: decoding leaves absent fields as they were
	ts.mastodonJSON(t, "GET", path, bob, nil, &seen)
	if seen.Pinned != nil || seen.Favourited == nil {
		t.Errorf("another's status tells pinned %v, favourited %v; want pinned absent", seen.Pinned, seen.Favourited)
	}
	ts.mastodonError(t, "POST", path+"/pin", bob, nil, 422)
	ts.mastodonJSON(t, "POST", path+"/unpin", ann, nil, &s)
	if readerFlag(t, "pinned", s.Pinned) {
		t.Error("unpin did not clear pinned")
	}
}

// nextLink is the path and query of a Link header's rel, "" when absent.
func nextLink(t testing.TB, header, rel string) string {
	t.Helper()
	for _, part := range strings.Split(header, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.Contains(params, `rel="`+rel+`"`) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err != nil {
			t.Fatalf("Link %q: %v", header, err)
		}
		return u.RequestURI()
	}
	return ""
}

// timelinePage GETs a page of statuses and its Link header.
func (ts *testServer) timelinePage(t testing.TB, token, path string) ([]mastodon.Status, string) {
	t.Helper()
	var out []mastodon.Status
	resp := ts.mastodonJSON(t, "GET", path, token, nil, &out)
	return out, resp.Header.Get("Link")
}

// TestMastodonHomeTimelinePaging: max_id, since_id and min_id page the home
// timeline as Mastodon does, and the Link header leads through all of it,
// each post once.
func TestMastodonHomeTimelinePaging(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.mastodonUser(t, "pat", "")
	var ids []string // oldest first
	for i := range 25 {
		ids = append(ids, ts.toot(t, tok, map[string]any{"status": "post " + strconv.Itoa(i)}).ID)
	}
	newestFirst := func(from, to int) string { // ids[from..to] newest first
		var out []string
		for i := to; i >= from; i-- {
			out = append(out, ids[i])
		}
		return strings.Join(out, ",")
	}

	seen := map[string]int{}
	path, pages := "/api/v1/timelines/home?limit=10", 0
	for path != "" && pages < 10 {
		page, link := ts.timelinePage(t, tok, path)
		for _, s := range page {
			seen[s.ID]++
		}
		if pages == 0 && (statusIDs(page) != newestFirst(15, 24) || nextLink(t, link, "prev") == "") {
			t.Errorf("first page %s, Link %q", statusIDs(page), link)
		}
		path, pages = nextLink(t, link, "next"), pages+1
	}
	if len(seen) != 25 {
		t.Errorf("following next links saw %d posts, want 25", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("post %s seen %d times", id, n)
		}
	}

	page, _ := ts.timelinePage(t, tok, "/api/v1/timelines/home?limit=5&max_id="+ids[10])
	if got := statusIDs(page); got != newestFirst(5, 9) {
		t.Errorf("max_id page %s, want %s", got, newestFirst(5, 9))
	}
	page, _ = ts.timelinePage(t, tok, "/api/v1/timelines/home?limit=5&since_id="+ids[10])
	if got := statusIDs(page); got != newestFirst(20, 24) {
		t.Errorf("since_id page %s, want the newest, %s", got, newestFirst(20, 24))
	}
	page, link := ts.timelinePage(t, tok, "/api/v1/timelines/home?limit=5&min_id="+ids[10])
	if got := statusIDs(page); got != newestFirst(11, 15) {
		t.Errorf("min_id page %s, want the ones right above, %s", got, newestFirst(11, 15))
	}
	// Going up by prev from there reaches the newest, each once.
	up := statusIDs(page)
	for prev := nextLink(t, link, "prev"); prev != ""; prev = nextLink(t, link, "prev") {
		if page, link = ts.timelinePage(t, tok, prev); len(page) > 0 {
			up = statusIDs(page) + "," + up
		}
	}
	if up != newestFirst(11, 24) {
		t.Errorf("prev links from min_id gave %s, want %s", up, newestFirst(11, 24))
	}
	page, _ = ts.timelinePage(t, tok, "/api/v1/timelines/home?min_id="+ids[20]+"&max_id="+ids[23])
	if got := statusIDs(page); got != newestFirst(21, 22) {
		t.Errorf("min_id with max_id %s, want %s", got, newestFirst(21, 22))
	}
}

// TestMastodonTimelineRules: the tag and public timelines keep the
// service's rules (blocks, protection), and the shared paths still answer
// the native API with a native token.
func TestMastodonTimelineRules(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ann, _ := ts.mastodonUser(t, "ann", "")
	bob, _ := ts.mastodonUser(t, "bob", "")
	pia, _ := ts.mastodonUser(t, "pia", "")
	annNative := nativeOf(ann)
	fromAnn := ts.toot(t, ann, map[string]any{"status": "ann on #redis"})
	fromBob := ts.toot(t, bob, map[string]any{"status": "bob on #redis"})
	ts.toot(t, bob, map[string]any{"status": "nothing tagged"})

	tagged, _ := ts.timelinePage(t, "", "/api/v1/timelines/tag/redis")
	if got := statusIDs(tagged); got != fromBob.ID+","+fromAnn.ID {
		t.Errorf("tag timeline %s, want %s", got, fromBob.ID+","+fromAnn.ID)
	}

	ts.wantStatus(t, "PUT", "/api/v1/users/bob/block", annNative, nil, 204, "")
	for _, path := range []string{"/api/v1/timelines/tag/redis", "/api/v1/timelines/public"} {
		page, _ := ts.timelinePage(t, ann, path)
		for _, s := range page {
			if s.Account.Username == "bob" {
				t.Errorf("%s shows the blocked bob's status %s to ann", path, s.ID)
			}
		}
		if len(page) == 0 {
			t.Errorf("%s shows ann nothing", path)
		}
	}
	ts.mastodonError(t, "GET", "/api/v1/statuses/"+fromBob.ID, ann, nil, 404)

	ts.wantStatus(t, "PATCH", "/api/v1/me", nativeOf(pia), map[string]any{"protected": true}, 200, "")
	hidden := ts.toot(t, pia, map[string]any{"status": "for fans #redis", "visibility": "private"})
	if hidden.Visibility != "private" {
		t.Errorf("a protected account's status has visibility %q", hidden.Visibility)
	}
	ts.mastodonError(t, "GET", "/api/v1/statuses/"+hidden.ID, bob, nil, 404)
	ts.mastodonError(t, "GET", "/api/v1/statuses/"+hidden.ID, "", nil, 404)
	ts.mastodonError(t, "POST", "/api/v1/statuses/"+hidden.ID+"/reblog", bob, nil, 404) // unseen, as on the native API
	tagged, _ = ts.timelinePage(t, bob, "/api/v1/timelines/tag/redis")
	if got := statusIDs(tagged); got != fromBob.ID {
		t.Errorf("tag timeline as bob (blocked by ann, pia protected): %s, want %s", got, fromBob.ID)
	}
	var s mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+hidden.ID, pia, nil, &s)

	// The shared paths: a native token gets the native Page.
	var native store.Page[store.Post]
	ts.getJSON(t, annNative, "/api/v1/timelines/home", &native)
	if len(native.Items) != 1 || native.Items[0].Content != "ann on #redis" {
		t.Errorf("native home timeline: %+v", native)
	}
	ts.getJSON(t, "", "/api/v1/timelines/public", &native)
	if len(native.Items) == 0 {
		t.Error("native public timeline is empty")
	}
	var remote []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/public?remote=true", "", nil, &remote)
	if remote == nil || len(remote) != 0 {
		t.Errorf("remote public timeline: %v, want []", remote)
	}
	ts.mastodonError(t, "GET", "/api/v1/timelines/home?max_id=1", "", nil, 401)
}
