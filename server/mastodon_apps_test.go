package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"microblog/server/mastodon"
	"microblog/store"
)

// What third-party Mastodon apps read that the client libraries of the
// other tests do not: paths with a trailing slash, the /.well-known
// documents, the default pictures, NodeInfo's upstream, the password grant.

// get fetches path with no token and returns the answer and its body.
func (ts *testServer) get(t *testing.T, path string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	resp := ts.do(t, "GET", path, "", nil, header)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp, body
}

// TestMastodonTrailingSlash: an API path with a trailing slash is the path
// without it (Rails has it so, and apps write it), for reads and writes.
func TestMastodonTrailingSlash(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	var v1 mastodon.InstanceV1
	ts.mastodonJSON(t, "GET", "/api/v1/instance/", "", nil, &v1)
	if !strings.HasPrefix(v1.Version, "4.") {
		t.Errorf("GET /api/v1/instance/ version %q, want Mastodon 4's", v1.Version)
	}
	for _, path := range []string{"/api/v1/conversations/", "/api/v1/timelines/home/", "/api/v1/accounts/verify_credentials/"} {
		ts.mastodonJSON(t, "GET", path, alice, nil, nil)
	}
	var st mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses/", alice, map[string]string{"status": "slash"}, &st)
	if st.ID == "" || !strings.Contains(st.Content, "slash") {
		t.Errorf("POST /api/v1/statuses/ = %+v", st)
	}
	bob, _ := ts.mastodonUser(t, "bob", "")
	var acct mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", bob, nil, &acct)
	ts.mastodonJSON(t, "POST", "/api/v1/reports/", alice, map[string]any{"account_id": acct.ID, "comment": "spam"}, nil)
	// The native API answers the same.
	if status, body := ts.call(t, "GET", "/api/v1/timelines/public/", nativeOf(alice), nil); status != http.StatusOK {
		t.Errorf("native GET /api/v1/timelines/public/: %d %s", status, body)
	}
}

// TestMastodonWellKnown: WebFinger finds a local account by its handle
// (and nobody else), host-meta points at WebFinger, the OAuth server's
// metadata says PKCE S256, every /.well-known path is open to other
// origins, and an unknown one is 404, never the web page.
func TestMastodonWellKnown(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "alice")
	host := strings.TrimPrefix(ts.URL, "http://")
	bare, _, _ := strings.Cut(host, ":")

	for _, res := range []string{"acct:alice@" + host, "acct:alice@" + bare, "acct:@alice@" + host, ts.URL + "/@alice"} {
		resp, body := ts.get(t, "/.well-known/webfinger?resource="+url.QueryEscape(res), nil)
		var jrd mastodon.JRD
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &jrd) != nil {
			t.Fatalf("webfinger %s: %d %s", res, resp.StatusCode, body)
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/jrd+json") || jrd.Subject != "acct:alice@"+host ||
			len(jrd.Links) == 0 || jrd.Links[0].Href != ts.URL+"/@alice" {
			t.Errorf("webfinger %s: %s %+v", res, resp.Header.Get("Content-Type"), jrd)
		}
	}
	for res, want := range map[string]int{
		"acct:nobody@" + host:              http.StatusNotFound,
		"acct:alice@elsewhere.example":     http.StatusNotFound,
		"https://elsewhere.example/@alice": http.StatusNotFound,
		"":                                 http.StatusBadRequest,
	} {
		resp, body := ts.get(t, "/.well-known/webfinger?resource="+url.QueryEscape(res), nil)
		if resp.StatusCode != want || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
			t.Errorf("webfinger %q: %d %s %s, want %d", res, resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
		}
	}

	resp, body := ts.get(t, "/.well-known/host-meta", nil)
	var xrd struct {
		Link struct {
			Rel      string `xml:"rel,attr"`
			Template string `xml:"template,attr"`
		} `xml:"Link"`
	}
	if resp.StatusCode != http.StatusOK || xml.Unmarshal(body, &xrd) != nil ||
		xrd.Link.Template != ts.URL+"/.well-known/webfinger?resource={uri}" || xrd.Link.Rel != "lrdd" {
		t.Errorf("host-meta: %d %s", resp.StatusCode, body)
	}

	var meta mastodon.OAuthMetadata
	ts.mastodonJSON(t, "GET", "/.well-known/oauth-authorization-server", "", nil, &meta)
	if meta.AuthorizationEndpoint != ts.URL+"/oauth/authorize" || meta.TokenEndpoint != ts.URL+"/oauth/token" ||
		len(meta.CodeChallengeMethodsSupported) != 1 || meta.CodeChallengeMethodsSupported[0] != "S256" ||
		!strings.Contains(strings.Join(meta.ScopesSupported, " "), "read:statuses") {
		t.Errorf("oauth-authorization-server = %+v", meta)
	}

	origin := http.Header{"Origin": {"https://app.example"}}
	for _, path := range []string{"/.well-known/nodeinfo", "/nodeinfo/2.0", "/.well-known/webfinger?resource=acct:alice@" + host,
		"/.well-known/host-meta", "/.well-known/oauth-authorization-server"} {
		if resp, _ := ts.get(t, path, origin); resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s from another origin: Access-Control-Allow-Origin %q", path, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	for _, path := range []string{"/.well-known/unknown", "/.well-known/change-password", "/.well-known/"} {
		if resp, body := ts.get(t, path, nil); resp.StatusCode != http.StatusNotFound || strings.Contains(resp.Header.Get("Content-Type"), "html") {
			t.Errorf("GET %s: %d %s %.80s, want 404 and no page", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// TestMastodonDefaultPictures: an account without pictures points at an
// avatar and a header that exist, as PNG (apps on Android draw no SVG),
// and so does the instance's thumbnail.
func TestMastodonDefaultPictures(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	var acct mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", alice, nil, &acct)
	var v2 mastodon.InstanceV2
	ts.mastodonJSON(t, "GET", "/api/v2/instance", "", nil, &v2)
	for what, u := range map[string]string{"avatar": acct.Avatar, "avatar_static": acct.AvatarStatic, "header": acct.Header,
		"header_static": acct.HeaderStatic, "instance thumbnail": v2.Thumbnail.URL} {
		path, ok := strings.CutPrefix(u, ts.URL)
		if !ok {
			t.Errorf("%s %q is not on the service", what, u)
			continue
		}
		resp := ts.do(t, "GET", path, "", nil, nil)
		img, err := png.Decode(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("%s %s: %d %s, decoded: %v", what, u, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
	}
}

// TestMastodonNodeInfoUpstream: NodeInfo names Mastodon as the API the
// service speaks (metadata.upstream), which client libraries read to
// know how to talk to a server whose software they do not know.
func TestMastodonNodeInfoUpstream(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	var ni map[string]any
	ts.mastodonJSON(t, "GET", "/nodeinfo/2.0", "", nil, &ni)
	meta, _ := ni["metadata"].(map[string]any)
	up, _ := meta["upstream"].(map[string]any)
	if up["name"] != "mastodon" || !strings.HasPrefix(up["version"].(string), "4.") {
		t.Errorf("nodeinfo metadata = %v, want upstream mastodon 4", meta)
	}
}

// TestMastodonPasswordGrant: the password grant is refused as Mastodon 4
// refuses it (unsupported_grant_type), and signs no one in.
func TestMastodonPasswordGrant(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.register(t, "alice")
	cfg := ts.mastodonApp(t, "read")
	form := url.Values{"grant_type": {"password"}, "username": {"alice"}, "password": {testPassword},
		"client_id": {cfg.ClientID}, "client_secret": {cfg.ClientSecret}, "scope": {"read"}}
	resp, err := http.PostForm(ts.URL+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error       string `json:"error"`
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != http.StatusBadRequest || e.Error != "unsupported_grant_type" || e.AccessToken != "" {
		t.Errorf("password grant: %d %+v, want 400 unsupported_grant_type", resp.StatusCode, e)
	}
}

// TestMastodonReblogNotification: a reblog notification's status is the
// status that was reblogged, as Mastodon sends it, in the list and live.
func TestMastodonReblogNotification(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, _ := ts.mastodonUser(t, "bob", "")
	var orig, reblog mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]string{"status": "worth a boost"}, &orig)
	ws, _ := ts.dialStream(t, "stream=user:notification", http.Header{"Authorization": {"Bearer " + alice}})
	ts.mastodonJSON(t, "POST", "/api/v1/statuses/"+orig.ID+"/reblog", bob, nil, &reblog)
	var all []mastodon.Notification
	for deadline := time.Now().Add(hangWait); len(all) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		all, _ = ts.mastodonNotifications(t, alice, "?types[]=reblog")
	}
	if len(all) != 1 || all[0].Type != "reblog" || all[0].Status == nil || all[0].Status.ID != orig.ID || all[0].Status.Reblog != nil {
		t.Fatalf("reblog notifications = %+v, want one whose status is %s", all, orig.ID)
	}
	ev := ws.next(t, "notification")
	var n mastodon.Notification
	if err := json.Unmarshal([]byte(ev.Payload), &n); err != nil || n.Type != "reblog" || n.Status == nil || n.Status.ID != orig.ID {
		t.Errorf("live reblog notification = %s (%v), want its status %s", ev.Payload, err, orig.ID)
	}
}

// TestMastodonStatusesByID: GET /api/v1/statuses?id[]= answers the
// statuses asked for that the caller may see, in order, each once; a
// protected account's post stays out for a stranger, as do ids of nothing.
func TestMastodonStatusesByID(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, _ := ts.mastodonUser(t, "bob", "")
	carolNative, _ := ts.register(t, "carol")
	var a1, a2 mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]string{"status": "one"}, &a1)
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]string{"status": "two"}, &a2)
	ts.wantStatus(t, "PATCH", "/api/v1/me", carolNative, map[string]any{"protected": true}, http.StatusOK, "")
	hidden := ts.post(t, carolNative, "for fans only", 0)

	var got []mastodon.Status
	q := "?id[]=" + a2.ID + "&id[]=999999&id[]=" + a1.ID + "&id[]=" + a2.ID + "&id[]=x&id[]=" + idStr(hidden.ID)
	ts.mastodonJSON(t, "GET", "/api/v1/statuses"+q, bob, nil, &got)
	if len(got) != 2 || got[0].ID != a2.ID || got[1].ID != a1.ID {
		t.Errorf("statuses by id = %+v, want %s then %s", got, a2.ID, a1.ID)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/statuses?id[]="+a1.ID, "", nil, &got)
	if len(got) != 1 || got[0].ID != a1.ID {
		t.Errorf("anonymous statuses by id = %+v", got)
	}
	many := ""
	for i := range 21 {
		many += "&id[]=" + strconv.Itoa(i+1)
	}
	if resp := ts.do(t, "GET", "/api/v1/statuses?"+many[1:], bob, nil, nil); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("21 ids: %d, want 422", resp.StatusCode)
	}
}

// TestMastodonSearchFindsWhomYouBlock: an account the caller blocks is
// found by search v2 and the accounts search (so that an app can unblock
// it by name, as on Mastodon); an account that blocks the caller is not.
func TestMastodonSearchFindsWhomYouBlock(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	_, blockedID := ts.register(t, "bobby")
	carol, _ := ts.register(t, "bobcat")
	ts.register(t, "bobsled")
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+idStr(blockedID)+"/block", alice, nil, nil)
	ts.wantStatus(t, "PUT", "/api/v1/users/alice/block", carol, nil, http.StatusNoContent, "")

	names := func(accts []mastodon.Account) []string {
		var out []string
		for _, a := range accts {
			out = append(out, a.Username)
		}
		slices.Sort(out)
		return out
	}
	var res mastodon.SearchResults
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&q=bob", alice, nil, &res)
	if got := names(res.Accounts); !slices.Equal(got, []string{"bobby", "bobsled"}) {
		t.Errorf("search v2 for bob = %v, want bobby (blocked by alice) and bobsled, not bobcat (who blocks alice)", got)
	}
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&q=bobby", alice, nil, &res)
	if len(res.Accounts) != 1 || res.Accounts[0].Username != "bobby" {
		t.Errorf("search v2 for bobby = %v", names(res.Accounts))
	}
	var accts []mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/search?q=bob", alice, nil, &accts)
	if got := names(accts); !slices.Equal(got, []string{"bobby", "bobsled"}) {
		t.Errorf("accounts search for bob = %v, want bobby and bobsled", got)
	}
	// Others still do not meet bobby through alice's block.
	dave, _ := ts.mastodonUser(t, "dave", "")
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&q=bob", dave, nil, &res)
	if got := names(res.Accounts); !slices.Equal(got, []string{"bobby", "bobcat", "bobsled"}) {
		t.Errorf("dave's search for bob = %v, want all three", got)
	}
}

// TestImagesHaveBlurhash: an upload's answer carries its BlurHash, in the
// native API and as the Mastodon attachment's blurhash (one client library
// failed on a null one), and the post's images keep it, read back from
// Redis as from the archive.
func TestImagesHaveBlurhash(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	alice, _ := ts.mastodonUser(t, "alice", "")
	native := nativeOf(alice)

	status, body := ts.upload(t, "POST", "/media", native, "p.png", pngBytes(testImage(40, 30)), "")
	var m store.Media
	if status != http.StatusCreated || json.Unmarshal(body, &m) != nil || len(m.Blurhash) != 28 {
		t.Fatalf("native upload: %d %s, want a blurhash", status, body)
	}
	var att mastodon.MediaAttachment
	status, body = ts.multipart(t, "POST", "/api/v2/media", alice, nil, "file", "q.png", pngBytes(testImage(40, 30)))
	if status/100 != 2 || json.Unmarshal(body, &att) != nil || att.Blurhash == nil || len(*att.Blurhash) != 28 {
		t.Fatalf("Mastodon upload: %d %s, want a blurhash", status, body)
	}
	status, body = ts.call(t, "POST", "/api/v1/posts", native, map[string]any{"content": "with a picture", "media_ids": []int64{m.ID}})
	var p store.Post
	if status != http.StatusCreated || json.Unmarshal(body, &p) != nil || len(p.Media) != 1 || p.Media[0].Blurhash != m.Blurhash {
		t.Fatalf("post with the picture: %d %s", status, body)
	}
	var st mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+idStr(p.ID), alice, nil, &st)
	if len(st.MediaAttachments) != 1 || st.MediaAttachments[0].Blurhash == nil || *st.MediaAttachments[0].Blurhash != m.Blurhash {
		t.Fatalf("status attachments %+v, want blurhash %q", st.MediaAttachments, m.Blurhash)
	}
	for i := range 11 { // past the hot window of 10: the post leaves Redis
		ts.post(t, native, fmt.Sprint("later ", i), 0)
	}
	archiveSettled(t, ts.rdb())
	waitEvicted(t, ts.rdb(), p.ID)
	var got store.Post
	ts.getJSON(t, "", fmt.Sprintf("/api/v1/posts/%d", p.ID), &got)
	if len(got.Media) != 1 || got.Media[0].Blurhash != m.Blurhash {
		t.Errorf("archived post's media %+v, want blurhash %q", got.Media, m.Blurhash)
	}
}

// TestMastodonStatusAccountCreatedAt: the account a status carries says
// when its author signed up, as the account itself does: on a status just
// posted, one read back from a timeline, a reblog's original, and one
// streamed live (apps show it as "joined"; it was 1970 everywhere).
func TestMastodonStatusAccountCreatedAt(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, _ := ts.mastodonUser(t, "bob", "")
	var acct mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", alice, nil, &acct)
	if acct.CreatedAt == "" || strings.HasPrefix(acct.CreatedAt, "1970") {
		t.Fatalf("the account's created_at is %q", acct.CreatedAt)
	}
	var followed mastodon.Relationship
	ts.mastodonJSON(t, "POST", "/api/v1/accounts/"+acct.ID+"/follow", bob, nil, &followed)
	c, _ := ts.dialStream(t, "stream=user", http.Header{"Authorization": {"Bearer " + bob}})
	c.send(t, "", "", "")

	var posted mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]string{"status": "joined long ago"}, &posted)
	var home []mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/timelines/home", bob, nil, &home)
	var reblog mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses/"+posted.ID+"/reblog", bob, nil, &reblog)
	streamed := c.expectStatus(t, []string{"user"}, "update", mustID(t, posted.ID))
	if len(home) == 0 || reblog.Reblog == nil {
		t.Fatalf("home %d statuses, reblog %+v", len(home), reblog)
	}
	for what, s := range map[string]mastodon.Account{"posted": posted.Account, "home": home[0].Account,
		"reblogged original": reblog.Reblog.Account, "streamed": streamed.Account} {
		if s.CreatedAt != acct.CreatedAt {
			t.Errorf("%s status: account created_at %q, want %q", what, s.CreatedAt, acct.CreatedAt)
		}
	}
}

// mustID is a status or account id as a number.
func mustID(t *testing.T, id string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatalf("id %q: %v", id, err)
	}
	return n
}

// TestMastodonAccountStatusesWithReplies: an account's statuses list its
// replies among its posts, newest first, paged with no gap or duplicate
// whatever the page size; exclude_replies=true leaves them out, as in
// Mastodon (they were never listed, so the flag changed nothing).
func TestMastodonAccountStatusesWithReplies(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, _ := ts.mastodonUser(t, "bob", "")
	var me mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/accounts/verify_credentials", alice, nil, &me)
	var all, posts []string // newest last
	for i := range 4 {
		var theirs, mine, reply mastodon.Status
		ts.mastodonJSON(t, "POST", "/api/v1/statuses", bob, map[string]string{"status": fmt.Sprint("bob ", i)}, &theirs)
		ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]string{"status": fmt.Sprint("alice ", i)}, &mine)
		ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]string{"status": fmt.Sprint("re ", i), "in_reply_to_id": theirs.ID}, &reply)
		all, posts = append(all, mine.ID, reply.ID), append(posts, mine.ID)
	}
	slices.Reverse(all)
	slices.Reverse(posts)
	path := "/api/v1/accounts/" + me.ID + "/statuses"
	for _, limit := range []int{1, 3, 20} {
		if got := ts.mastodonPages(t, fmt.Sprint(path, "?limit=", limit), bob); !slices.Equal(got, all) {
			t.Fatalf("limit %d: %v, want posts and replies %v", limit, got, all)
		}
	}
	if got := ts.mastodonPages(t, path+"?limit=3&exclude_replies=true", bob); !slices.Equal(got, posts) {
		t.Fatalf("exclude_replies: %v, want the posts %v", got, posts)
	}
	var page []mastodon.Status
	ts.mastodonJSON(t, "GET", path+"?limit=2", "", nil, &page)
	if len(page) != 2 || page[0].ID != all[0] || page[0].InReplyToID == nil || *page[0].InReplyToID == "" {
		t.Fatalf("the newest status %+v, want the newest reply %s", page, all[0])
	}
}
