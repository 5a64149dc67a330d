package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"microblog/server/mastodon"
	"microblog/store"
)

// nativeOf is the native session token inside a test's Mastodon token.
func nativeOf(tok string) string {
	if native, ok := nativeTokens.Load(tok); ok {
		return native.(string)
	}
	return strings.TrimPrefix(tok, mastodon.TokenPrefix) // refused: the test shows it
}

// nativeTokens maps each Mastodon access token mastodonToken made to the
// native session of its user it was given, for the tests that act through
// both APIs as one user (an OAuth token is not valid on the native API).
var nativeTokens sync.Map

// TestMastodonInstance: instance v1 and v2 tell the streaming URL, the
// service's limits, registrations and the operator as contact; NodeInfo is
// found from /.well-known/nodeinfo.
func TestMastodonInstance(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_ADMINS=boss")
	ts.register(t, "boss")
	host := strings.TrimPrefix(ts.URL, "http://")

	var v1 mastodon.InstanceV1
	ts.mastodonJSON(t, "GET", "/api/v1/instance", "", nil, &v1)
	if v1.URI != host || v1.URLs["streaming_api"] != "ws://"+host || !v1.Registrations ||
		v1.Configuration.Statuses.MaxCharacters != store.MaxContent || v1.ContactAccount == nil || v1.ContactAccount.Username != "boss" {
		t.Errorf("instance v1 = %+v", v1)
	}
	var v2 mastodon.InstanceV2
	ts.mastodonJSON(t, "GET", "/api/v2/instance", "", nil, &v2)
	cfg := v2.Configuration
	if v2.Domain != host || cfg.URLs.Streaming != "ws://"+host || cfg.Statuses.MaxCharacters != 280 ||
		cfg.Statuses.MaxMediaAttachments != 9 || cfg.MediaAttachments.ImageSizeLimit <= 0 ||
		len(cfg.MediaAttachments.SupportedMimeTypes) == 0 || !v2.Registrations.Enabled ||
		v2.Contact.Account == nil || v2.Contact.Account.Username != "boss" || !strings.HasPrefix(v2.Version, "4.") {
		t.Errorf("instance v2 = %+v", v2)
	}
	for _, path := range []string{"/api/v1/instance/peers", "/api/v1/instance/activity"} {
		var list []any
		if ts.mastodonJSON(t, "GET", path, "", nil, &list); list == nil {
			t.Errorf("%s is not a list", path)
		}
	}

	var links struct{ Links []struct{ Rel, Href string } }
	ts.mastodonJSON(t, "GET", "/.well-known/nodeinfo", "", nil, &links)
	if len(links.Links) != 1 || links.Links[0].Rel != "http://nodeinfo.diaspora.software/ns/schema/2.0" {
		t.Fatalf("nodeinfo links = %+v", links)
	}
	u, err := url.Parse(links.Links[0].Href)
	if err != nil || u.Host != host {
		t.Fatalf("nodeinfo href %q", links.Links[0].Href)
	}
	var ni mastodon.NodeInfo
	resp := ts.mastodonJSON(t, "GET", u.Path, "", nil, &ni)
	if ni.Version != "2.0" || ni.Software.Name != "microblog" || !ni.OpenRegistrations || ni.Protocols == nil ||
		!strings.Contains(resp.Header.Get("Content-Type"), "nodeinfo.diaspora.software/ns/schema/2.0") {
		t.Errorf("nodeinfo = %+v (%s)", ni, resp.Header.Get("Content-Type"))
	}
}

// mastodonNotifications lists notifications through the Mastodon API,
// returning them and the Link header.
func (ts *testServer) mastodonNotifications(t testing.TB, tok, query string) ([]mastodon.Notification, string) {
	t.Helper()
	var out []mastodon.Notification
	resp := ts.mastodonJSON(t, "GET", "/api/v1/notifications"+query, tok, nil, &out)
	return out, resp.Header.Get("Link")
}

// TestMastodonNotifications: a follow, a like, a comment and a mention
// are follow, favourite and mention notifications with their statuses,
// filtered by types, paged by id with Link headers; one is dismissed and
// then all are cleared, for the native API too, which still answers its
// own shape on the shared path.
func TestMastodonNotifications(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, bobID := ts.register(t, "bob")
	ts.wantStatus(t, "PUT", "/api/v1/users/alice/follow", bob, nil, http.StatusNoContent, "")
	post := ts.post(t, nativeOf(alice), "hello", 0)
	ts.wantStatus(t, "PUT", postPath(post.ID)+"/like", bob, nil, http.StatusNoContent, "")
	comment := ts.comment(t, bob, post.ID, "nice")
	mention := ts.post(t, bob, "hi @alice", 0)

	var all []mastodon.Notification
	for deadline := time.Now().Add(hangWait); len(all) < 4 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		all, _ = ts.mastodonNotifications(t, alice, "")
	}
	want := []struct{ typ, status string }{{"mention", idStr(mention.ID)}, {"mention", idStr(comment.ID)},
		{"favourite", idStr(post.ID)}, {"follow", ""}}
	if len(all) != len(want) {
		t.Fatalf("notifications = %+v, want 4", all)
	}
	for i, w := range want {
		n := all[i]
		got := ""
		if n.Status != nil {
			got = n.Status.ID
		}
		if n.Type != w.typ || got != w.status || n.Account.ID != idStr(bobID) {
			t.Errorf("notification %d = %s status %q from %s, want %s status %q", i, n.Type, got, n.Account.ID, w.typ, w.status)
		}
	}
	if got, _ := ts.mastodonNotifications(t, alice, "?types[]=mention"); len(got) != 2 {
		t.Errorf("types[]=mention: %d notifications", len(got))
	}
	if got, _ := ts.mastodonNotifications(t, alice, "?exclude_types[]=mention&exclude_types[]=follow"); len(got) != 1 || got[0].Type != "favourite" {
		t.Errorf("excluding mention and follow: %+v", got)
	}

	// Paging: two by two through the Link header, and back up by min_id.
	first, link := ts.mastodonNotifications(t, alice, "?limit=2")
	next := linkURL(t, link, "next")
	if len(first) != 2 || first[0].ID != all[0].ID || next == "" {
		t.Fatalf("first page %+v, Link %q", first, link)
	}
	second, _ := ts.mastodonNotifications(t, alice, next)
	if len(second) != 2 || second[0].ID != all[2].ID || second[1].ID != all[3].ID {
		t.Errorf("second page %+v", second)
	}
	if above, _ := ts.mastodonNotifications(t, alice, "?limit=1&min_id="+all[3].ID); len(above) != 1 || above[0].ID != all[2].ID {
		t.Errorf("min_id: %+v, want %s", above, all[2].ID)
	}
	if newer, _ := ts.mastodonNotifications(t, alice, "?since_id="+all[2].ID); len(newer) != 2 || newer[0].ID != all[0].ID {
		t.Errorf("since_id: %+v", newer)
	}
	var one mastodon.Notification
	ts.mastodonJSON(t, "GET", "/api/v1/notifications/"+all[2].ID, alice, nil, &one)
	if one.Type != "favourite" {
		t.Errorf("notification %s = %+v", all[2].ID, one)
	}

	// Dismiss one, then clear: the native API sees the same.
	ts.mastodonJSON(t, "POST", "/api/v1/notifications/"+all[2].ID+"/dismiss", alice, nil, nil)
	if got, _ := ts.mastodonNotifications(t, alice, ""); len(got) != 3 || got[2].Type != "follow" {
		t.Errorf("after dismissing the favourite: %+v", got)
	}
	if status, _ := ts.call(t, "GET", "/api/v1/notifications/"+all[2].ID, alice, nil); status != http.StatusNotFound {
		t.Errorf("a dismissed notification: %d, want 404", status)
	}
	if native := ts.notifications(t, nativeOf(alice)); len(native) != 3 || native[0].Kind != store.NotifyMention {
		t.Errorf("native notifications after a dismiss: %+v", native)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/notifications/clear", alice, nil, nil)
	if got, _ := ts.mastodonNotifications(t, alice, ""); len(got) != 0 {
		t.Errorf("after clear: %+v", got)
	}
	if native := ts.notifications(t, nativeOf(alice)); len(native) != 0 {
		t.Errorf("native notifications after clear: %+v", native)
	}
}

// idStr is an id as the Mastodon API sends it.
func idStr(id int64) string { return strconv.FormatInt(id, 10) }

// linkURL is the path and query of the rel link of a Link header, "" when
// it has none.
func linkURL(t testing.TB, header, rel string) string {
	t.Helper()
	for _, part := range strings.Split(header, ",") {
		target, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(params) != `rel="`+rel+`"` {
			continue
		}
		u, err := url.Parse(strings.Trim(target, "<>"))
		if err != nil {
			t.Fatalf("Link %q: %v", header, err)
		}
		return "?" + u.RawQuery
	}
	return ""
}

// TestMastodonSearchAndTrends: v2 search finds a user, a tag and a post
// by a Chinese word; trends list the tag with its history; the native
// trends answer their own shape on the shared path.
func TestMastodonSearchAndTrends(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	p := ts.post(t, nativeOf(alice), "今天天气很好 #天气#", 0)
	ts.post(t, nativeOf(alice), "unrelated", 0)
	archiveSettled(t, ts.rdb())

	var res mastodon.SearchResults
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=accounts&q=%40ali", alice, nil, &res)
	if len(res.Accounts) != 1 || res.Accounts[0].Username != "alice" || len(res.Statuses) != 0 || len(res.Hashtags) != 0 {
		t.Errorf("accounts: %+v", res)
	}
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=hashtags&q="+url.QueryEscape("#天"), alice, nil, &res)
	if len(res.Hashtags) != 1 || res.Hashtags[0].Name != "天气" || res.Hashtags[0].History == nil {
		t.Errorf("hashtags: %+v", res.Hashtags)
	}
	ts.mastodonJSON(t, "GET", "/api/v2/search?q="+url.QueryEscape("天气"), "", nil, &res)
	if len(res.Statuses) != 1 || res.Statuses[0].ID != idStr(p.ID) || len(res.Hashtags) != 1 || len(res.Accounts) != 0 {
		t.Errorf("all kinds of 天气: %+v", res)
	}
	ts.mastodonJSON(t, "GET", "/api/v2/search?type=statuses&offset=1&q="+url.QueryEscape("天气"), alice, nil, &res)
	if len(res.Statuses) != 0 {
		t.Errorf("offset past the one post: %+v", res.Statuses)
	}
	if status, _ := ts.call(t, "GET", "/api/v2/search?q=", alice, nil); status != http.StatusUnprocessableEntity {
		t.Errorf("an empty q: %d, want 422", status)
	}

	for _, path := range []string{"/api/v1/trends/tags", "/api/v1/trends"} {
		var tags []mastodon.Tag
		ts.mastodonJSON(t, "GET", path, alice, nil, &tags)
		if len(tags) != 1 || tags[0].Name != "天气" || len(tags[0].History) != 1 || tags[0].History[0].Accounts != "1" || tags[0].History[0].Uses != "1" {
			t.Errorf("%s = %+v", path, tags)
		}
	}
	var statuses []any
	if ts.mastodonJSON(t, "GET", "/api/v1/trends/statuses", "", nil, &statuses); statuses == nil {
		t.Error("trends/statuses is not a list")
	}
	var native struct{ Items []store.Trend }
	ts.getJSON(t, nativeOf(alice), "/api/v1/trends/tags", &native)
	if len(native.Items) != 1 || native.Items[0].Tag != "天气" {
		t.Errorf("native trends = %+v", native)
	}
}

// TestMastodonConversations: a native private message is a conversation
// with a direct status of an id apart from posts', unread until read;
// the native API answers its own shape on the shared paths.
func TestMastodonConversations(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, bobID := ts.register(t, "bob")
	status, body := ts.call(t, "POST", "/api/v1/conversations/alice/messages", bob, map[string]string{"content": "hello @alice"})
	if status != http.StatusCreated {
		t.Fatalf("send: %d %s", status, body)
	}
	var msg store.DM
	mustDecode(t, body, &msg)

	var convs []mastodon.Conversation
	ts.mastodonJSON(t, "GET", "/api/v1/conversations", alice, nil, &convs)
	if len(convs) != 1 {
		t.Fatalf("conversations = %+v", convs)
	}
	c := convs[0]
	if c.ID != idStr(bobID) || !c.Unread || len(c.Accounts) != 1 || c.Accounts[0].Username != "bob" || c.LastStatus == nil {
		t.Fatalf("conversation = %+v", c)
	}
	s := c.LastStatus
	if s.ID != idStr(mastodon.DirectIDBase+msg.ID) || s.Visibility != "direct" || s.Account.Username != "bob" ||
		!strings.Contains(s.Content, "hello") || len(s.Mentions) != 1 || s.Mentions[0].Username != "alice" {
		t.Errorf("last status = %+v", s)
	}

	var read mastodon.Conversation
	ts.mastodonJSON(t, "POST", "/api/v1/conversations/"+c.ID+"/read", alice, nil, &read)
	if read.Unread || read.ID != c.ID || read.LastStatus == nil || read.LastStatus.ID != s.ID {
		t.Errorf("read = %+v", read)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/conversations", alice, nil, &convs)
	if len(convs) != 1 || convs[0].Unread {
		t.Errorf("after read: %+v", convs)
	}
	// A direct status in reply is a private message to the one user it
	// mentions, the mention that opens it left out: bob reads it natively.
	var reply mastodon.Status
	ts.mastodonJSON(t, "POST", "/api/v1/statuses", alice, map[string]any{"status": "@bob hi back", "visibility": "direct",
		"in_reply_to_id": s.ID}, &reply)
	if reply.Visibility != "direct" || reply.Account.Username != "alice" || len(reply.Mentions) != 1 || reply.Mentions[0].Username != "bob" {
		t.Fatalf("direct reply = %+v", reply)
	}
	status, body = ts.call(t, "GET", "/api/v1/conversations/alice/messages", bob, nil)
	var page store.Page[store.DM]
	mustDecode(t, body, &page)
	if status != http.StatusOK || len(page.Items) != 2 || page.Items[0].Content != "hi back" ||
		idStr(mastodon.DirectIDBase+page.Items[0].ID) != reply.ID {
		t.Fatalf("bob's conversation after the direct reply: %d %s", status, body)
	}
	ts.mastodonJSON(t, "DELETE", "/api/v1/conversations/"+c.ID, alice, nil, nil)
	var unread mastodon.Conversation
	ts.mastodonJSON(t, "POST", "/api/v1/conversations/"+c.ID+"/unread", alice, nil, &unread)
	var listed []mastodon.Conversation
	ts.mastodonJSON(t, "GET", "/api/v1/conversations", alice, nil, &listed)
	if !unread.Unread || len(listed) != 1 || !listed[0].Unread {
		t.Errorf("marked unread: %+v, listed %+v; want unread", unread, listed)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/conversations/"+c.ID+"/read", alice, nil, &unread)
	if unread.Unread {
		t.Errorf("read again: %+v", unread)
	}
	if status, _ := ts.call(t, "POST", "/api/v1/conversations/999/unread", alice, nil); status != http.StatusNotFound {
		t.Errorf("unread of no conversation: %d, want 404", status)
	}
	if status, _ := ts.call(t, "POST", "/api/v1/conversations/999/read", alice, nil); status != http.StatusNotFound {
		t.Errorf("read of no conversation: %d, want 404", status)
	}

	var native store.Page[store.Conversation]
	ts.getJSON(t, bob, "/api/v1/conversations", &native)
	if len(native.Items) != 1 || native.Items[0].With.Username != "alice" || native.Items[0].LastDM.ID != page.Items[0].ID {
		t.Errorf("native conversations = %+v", native)
	}
	ts.wantStatus(t, "POST", "/api/v1/conversations/alice/read", bob, map[string]int64{"up_to": page.Items[0].ID}, http.StatusNoContent, "")
}

// TestMastodonMarkers: markers round trip as JSON and as a form, their
// version counting up; the notifications marker moves the native read mark.
func TestMastodonMarkers(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.mastodonUser(t, "alice", "")
	bob, _ := ts.register(t, "bob")
	ts.wantStatus(t, "PUT", "/api/v1/users/alice/follow", bob, nil, http.StatusNoContent, "")
	var notes []mastodon.Notification
	for deadline := time.Now().Add(hangWait); len(notes) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		notes, _ = ts.mastodonNotifications(t, alice, "")
	}
	if len(notes) == 0 || ts.unread(t, nativeOf(alice)) != 1 {
		t.Fatalf("no unread follow notification: %+v", notes)
	}

	var got map[string]mastodon.Marker
	ts.mastodonJSON(t, "GET", "/api/v1/markers?timeline[]=home&timeline[]=notifications", alice, nil, &got)
	if len(got) != 0 {
		t.Errorf("markers before any: %+v", got)
	}
	ts.mastodonJSON(t, "POST", "/api/v1/markers", alice, map[string]any{"home": map[string]any{"last_read_id": "12"}}, &got)
	if got["home"].LastReadID != "12" || got["home"].Version != 1 {
		t.Errorf("set home: %+v", got)
	}
	form := url.Values{"notifications[last_read_id]": {notes[0].ID}, "home[last_read_id]": {"15"}}
	resp := ts.do(t, "POST", "/api/v1/markers", alice, form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("set by form: %d", resp.StatusCode)
	}
	ts.mastodonJSON(t, "GET", "/api/v1/markers?timeline[]=home&timeline[]=notifications", alice, nil, &got)
	if h, n := got["home"], got["notifications"]; h.LastReadID != "15" || h.Version != 2 || n.LastReadID != notes[0].ID || n.Version != 1 || h.UpdatedAt == "" {
		t.Errorf("markers = %+v", got)
	}
	if n := ts.unread(t, nativeOf(alice)); n != 0 {
		t.Errorf("native unread after the notifications marker: %d", n)
	}
	if status, _ := ts.call(t, "POST", "/api/v1/markers", alice, map[string]any{"home": map[string]any{"last_read_id": "x"}}); status != http.StatusUnprocessableEntity {
		t.Errorf("a bad marker: %d, want 422", status)
	}
}

// TestMastodonStartupAnswers: what apps call at start answers 200 with
// the right JSON type; filters show the caller's filtered words; a push
// subscription is 404 with an error.
func TestMastodonStartupAnswers(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, aliceID := ts.mastodonUser(t, "alice", "")
	ts.register(t, "bob")
	lists := []string{"/api/v1/custom_emojis", "/api/v1/filters", "/api/v2/filters", "/api/v1/lists",
		"/api/v1/announcements", "/api/v1/followed_tags", "/api/v1/featured_tags", "/api/v1/endorsements",
		"/api/v1/domain_blocks", "/api/v1/accounts/" + idStr(aliceID) + "/featured_tags",
		"/api/v1/accounts/" + idStr(aliceID) + "/lists", "/api/v1/trends/links"}
	for _, path := range lists {
		var out []json.RawMessage
		if ts.mastodonJSON(t, "GET", path, alice, nil, &out); out == nil || len(out) != 0 {
			t.Errorf("%s = %v, want []", path, out)
		}
	}
	var prefs map[string]any
	ts.mastodonJSON(t, "GET", "/api/v1/preferences", alice, nil, &prefs)
	if prefs["posting:default:visibility"] != "public" {
		t.Errorf("preferences = %v", prefs)
	}
	var v1 []mastodon.Account
	ts.mastodonJSON(t, "GET", "/api/v1/suggestions", alice, nil, &v1)
	var v2 []mastodon.Suggestion
	ts.mastodonJSON(t, "GET", "/api/v2/suggestions", alice, nil, &v2)
	if len(v1) != 1 || v1[0].Username != "bob" || len(v2) != 1 || v2[0].Account.Username != "bob" || v2[0].Source == "" {
		t.Errorf("suggestions v1 %+v v2 %+v", v1, v2)
	}

	ts.wantStatus(t, "PUT", "/api/v1/me/filters", nativeOf(alice), map[string][]string{"words": {"spoiler", "剧透"}}, http.StatusOK, "")
	var f1 []mastodon.FilterV1
	ts.mastodonJSON(t, "GET", "/api/v1/filters", alice, nil, &f1)
	if len(f1) != 2 || f1[0].Phrase != "spoiler" || f1[1].Phrase != "剧透" || len(f1[0].Context) == 0 {
		t.Errorf("filters v1 = %+v", f1)
	}
	var f2 []mastodon.FilterV2
	ts.mastodonJSON(t, "GET", "/api/v2/filters", alice, nil, &f2)
	if len(f2) != 1 || len(f2[0].Keywords) != 2 || f2[0].Keywords[1].Keyword != "剧透" || f2[0].FilterAction != "hide" {
		t.Errorf("filters v2 = %+v", f2)
	}

	status, body := ts.call(t, "GET", "/api/v1/push/subscription", alice, nil)
	var e mastodon.ErrorBody
	if mustDecode(t, body, &e); status != http.StatusNotFound || e.Error == "" {
		t.Errorf("push subscription: %d %s", status, body)
	}
	if status, _ := ts.call(t, "GET", "/api/v1/lists", "", nil); status != http.StatusUnauthorized {
		t.Errorf("lists anonymously: %d, want 401", status)
	}
}
