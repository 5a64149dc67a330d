package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"microblog/store"
	"microblog/store/storetest"
)

// sendDM sends a private message as token's user to name and returns it.
func (ts *testServer) sendDM(t testing.TB, token, name, content string) store.DM {
	t.Helper()
	status, b := ts.call(t, "POST", "/api/v1/conversations/"+name+"/messages", token, map[string]any{"content": content})
	if status != http.StatusCreated {
		t.Fatalf("message to %s: %d %s", name, status, b)
	}
	var m store.DM
	mustDecode(t, b, &m)
	return m
}

// conversationIDs pages token's conversation with name through the API, 7
// at a time, and returns every message id, newest first.
func (ts *testServer) conversationIDs(t testing.TB, token, name string) []int64 {
	t.Helper()
	var out []int64
	path := "/api/v1/conversations/" + name + "/messages?limit=7"
	for range 1000 {
		var page store.Page[store.DM]
		ts.getJSON(t, token, path, &page)
		for _, m := range page.Items {
			out = append(out, m.ID)
		}
		if page.NextCursor == nil {
			return out
		}
		path = "/api/v1/conversations/" + name + "/messages?limit=7&cursor=" + *page.NextCursor
	}
	t.Fatal("conversation pages without end")
	return nil
}

// conversationList is token's first page of conversations.
func (ts *testServer) conversationList(t testing.TB, token string) []store.Conversation {
	t.Helper()
	var page store.Page[store.Conversation]
	ts.getJSON(t, token, "/api/v1/conversations", &page)
	return page.Items
}

// me is token's /me.
func (ts *testServer) me(t testing.TB, token string) store.User {
	t.Helper()
	var u store.User
	ts.getJSON(t, token, "/api/v1/me", &u)
	return u
}

// TestDMsAPI: the routes of §9 with their answers and errors: sending,
// the list with unread counts, /me's unread_messages, paging and ?after=,
// reading, deleting by the sender only, who may write, blocks both ways.
func TestDMsAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, aliceID := ts.register(t, "alice")
	bob, bobID := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")

	m1 := ts.sendDM(t, alice, "BOB", "你好 bob 👋") // names in any case
	if m1.Sender != (store.Party{ID: aliceID, Username: "alice"}) || m1.Recipient != (store.Party{ID: bobID, Username: "bob"}) ||
		m1.Content != "你好 bob 👋" || m1.CreatedAt == 0 || m1.Media == nil {
		t.Fatalf("sent %+v", m1)
	}
	m2 := ts.sendDM(t, alice, "bob", "still there?")
	list := ts.conversationList(t, bob)
	if len(list) != 1 || list[0].With.Username != "alice" || list[0].LastDM.ID != m2.ID ||
		list[0].UnreadCount != 2 || list[0].UpdatedAt != m2.CreatedAt {
		t.Fatalf("bob's conversations = %+v", list)
	}
	if u := ts.me(t, bob); u.UnreadDMs == nil || *u.UnreadDMs != 1 || u.DMsFrom != "everyone" {
		t.Fatalf("bob's /me: unread_messages %v, messages_from %q", u.UnreadDMs, u.DMsFrom)
	}
	if got := ts.conversationIDs(t, bob, "alice"); !slices.Equal(got, []int64{m2.ID, m1.ID}) {
		t.Fatalf("bob's conversation = %v", got)
	}
	var after store.Page[store.DM]
	ts.getJSON(t, alice, fmt.Sprintf("/api/v1/conversations/bob/messages?after=%d", m1.ID), &after)
	if len(after.Items) != 1 || after.Items[0].ID != m2.ID {
		t.Fatalf("?after=%d: %+v", m1.ID, after.Items)
	}
	ts.wantStatus(t, "POST", "/api/v1/conversations/alice/read", bob, map[string]any{"up_to": m2.ID}, 204, "")
	if u := ts.me(t, bob); *u.UnreadDMs != 0 || ts.conversationList(t, bob)[0].UnreadCount != 0 {
		t.Fatalf("after reading, bob's unread_messages = %d", *u.UnreadDMs)
	}

	// Errors, as the contract names them.
	long := strings.Repeat("字", store.MaxDM+1)
	for _, c := range []struct {
		method, path, token string
		body                any
		status              int
		code                string
	}{
		{"POST", "/api/v1/conversations/alice/messages", alice, map[string]any{"content": "hi me"}, 400, "cannot_message_self"},
		{"POST", "/api/v1/conversations/nobody/messages", alice, map[string]any{"content": "hi"}, 404, "user_not_found"},
		{"POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "  "}, 400, "content_empty"},
		{"POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": long}, 400, "content_too_long"},
		{"POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "x", "media_ids": []int64{999}}, 400, "invalid_media"},
		{"POST", "/api/v1/conversations/bob/messages", "", map[string]any{"content": "hi"}, 401, "unauthorized"},
		{"GET", "/api/v1/conversations", "", nil, 401, "unauthorized"},
		{"GET", "/api/v1/conversations/nobody/messages", alice, nil, 404, "user_not_found"},
		{"GET", "/api/v1/conversations/bob/messages?cursor=bm9wZQ", alice, nil, 400, "invalid_cursor"},
		{"POST", "/api/v1/conversations/bob/read", alice, map[string]any{}, 400, "invalid_field"},
		{"POST", "/api/v1/conversations/bob/read", alice, map[string]any{"up_to": 0}, 400, "invalid_field"},
		{"DELETE", fmt.Sprintf("/api/v1/messages/%d", m1.ID), bob, nil, 403, "not_author"},
		{"DELETE", fmt.Sprintf("/api/v1/messages/%d", m1.ID), carol, nil, 404, "message_not_found"},
		{"DELETE", "/api/v1/messages/abc", alice, nil, 404, "message_not_found"},
		{"PATCH", "/api/v1/me", bob, map[string]any{"messages_from": "friends"}, 400, "invalid_field"},
	} {
		ts.wantStatus(t, c.method, c.path, c.token, c.body, c.status, c.code)
	}

	// Deleted by its sender, gone for both.
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/messages/%d", m2.ID), alice, nil, 204, "")
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/messages/%d", m2.ID), alice, nil, 404, "message_not_found")
	for _, c := range []struct{ token, other string }{{alice, "bob"}, {bob, "alice"}} {
		if got := ts.conversationIDs(t, c.token, c.other); !slices.Equal(got, []int64{m1.ID}) {
			t.Fatalf("after the delete, a conversation holds %v", got)
		}
	}

	// Who may write: only the people bob follows.
	var me store.User
	if status, b := ts.call(t, "PATCH", "/api/v1/me", bob, map[string]any{"messages_from": "following"}); status != 200 {
		t.Fatalf("PATCH /me: %d %s", status, b)
	} else if mustDecode(t, b, &me); me.DMsFrom != "following" {
		t.Fatalf("PATCH /me answered messages_from %q", me.DMsFrom)
	}
	ts.wantStatus(t, "POST", "/api/v1/conversations/bob/messages", carol, map[string]any{"content": "hi"}, 403, "messages_closed")
	// Closed to alice too, though they talked before.
	ts.wantStatus(t, "POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "hi"}, 403, "messages_closed")
	ts.follow(t, bob, "carol", true)
	ts.sendDM(t, carol, "bob", "now you follow me")

	// Blocks, both ways.
	ts.wantStatus(t, "PUT", "/api/v1/users/carol/block", bob, nil, 204, "")
	ts.wantStatus(t, "POST", "/api/v1/conversations/bob/messages", carol, map[string]any{"content": "hi"}, 403, "blocked")
	ts.wantStatus(t, "POST", "/api/v1/conversations/carol/messages", bob, map[string]any{"content": "hi"}, 403, "blocked")
}

// TestDMsBadInputWritesNothing: what the rules refuse before the
// claim (the body, the path) writes nothing at all, not even an id; what
// the claim's round trip refuses (a block, a closed door, another's image)
// writes no message and no conversation, and leaves its Idempotency-Key
// free for a retry.
func TestDMsBadInputWritesNothing(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	ts.register(t, "carol")
	ts.sendDM(t, alice, "bob", "hello")
	ts.wantStatus(t, "PUT", "/api/v1/users/carol/block", bob, nil, 204, "")
	rdb, k, ctx := ts.rdb(), keysOf(ts.rdb()), context.Background()
	archiveSettled(t, rdb)
	snapshot := func() string {
		return fmt.Sprint(storetest.Keys(t, rdb, "*"), rdb.Get(ctx, k.LastDMID()).Val())
	}
	before := snapshot()
	for _, c := range []struct {
		path, body  string
		status      int
		code        string
		contentType string
	}{
		{"/api/v1/conversations/bob/messages", `{"content": "x"`, 400, "invalid_json", ""},
		{"/api/v1/conversations/bob/messages", `{"content": 42}`, 400, "invalid_field", ""},
		{"/api/v1/conversations/bob/messages", `{"content": "x", "media_ids": "1"}`, 400, "invalid_field", ""},
		{"/api/v1/conversations/bob/messages", "{\"content\": \"bad \xff\"}", 400, "invalid_utf8", ""},
		{"/api/v1/conversations/bob/messages", `content=hi`, 415, "unsupported_media_type", "text/plain"},
		{"/api/v1/conversations/bob/messages", `{"content": ""}`, 400, "content_empty", ""},
		{"/api/v1/conversations/bob/messages", `{"content": "a\u0000b"}`, 400, "invalid_content", ""},
		{"/api/v1/conversations/bob/messages", `{"content": "x", "media_ids": [1,2,3,4,5]}`, 400, "invalid_media", ""},
		{"/api/v1/conversations/alice/messages", `{"content": "me"}`, 400, "cannot_message_self", ""},
		{"/api/v1/conversations/nobody/messages", `{"content": "x"}`, 404, "user_not_found", ""},
		{"/api/v1/conversations/bob/read", `{"up_to": "1"}`, 400, "invalid_field", ""},
	} {
		header := http.Header{"Content-Type": {"application/json"}}
		if c.contentType != "" {
			header.Set("Content-Type", c.contentType)
		}
		resp := ts.do(t, "POST", c.path, alice, []byte(c.body), header)
		b := readAll(t, resp)
		if resp.StatusCode != c.status || errorCode(t, b) != c.code {
			t.Errorf("%s %s: %d %s, want %d %s", c.path, c.body, resp.StatusCode, b, c.status, c.code)
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("bad input wrote:\nbefore %s\n after %s", before, after)
	}
	// Refused in the claim: only ids are used up.
	conversations := func() string {
		return fmt.Sprint(storetest.Keys(t, rdb, "*conv*"), storetest.Keys(t, rdb, "pm:*"), storetest.Keys(t, rdb, "idem:*"))
	}
	before = conversations()
	key := http.Header{idempotencyHeader: {"try-1"}}
	for _, c := range []struct {
		from, to string
		code     string
	}{{bob, "carol", "blocked"}, {alice, "carol", "invalid_media"}} {
		body := map[string]any{"content": "hi"}
		if c.code == "invalid_media" {
			body["media_ids"] = []int64{1}
		}
		resp := ts.do(t, "POST", "/api/v1/conversations/"+c.to+"/messages", c.from, body, key)
		if b := readAll(t, resp); resp.StatusCode >= 300 && errorCode(t, b) != c.code {
			t.Errorf("to %s: %d %s, want %s", c.to, resp.StatusCode, b, c.code)
		}
	}
	if after := conversations(); after != before {
		t.Fatalf("refused messages wrote:\nbefore %s\n after %s", before, after)
	}
}

// TestDMIdempotencyAPI: a retry with the same Idempotency-Key gets the
// first message (201, the same id) and no second one is written; the key
// with another body is 400.
func TestDMIdempotencyAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	key := http.Header{idempotencyHeader: {"retry-me"}}
	var ids []int64
	for range 3 {
		resp := ts.do(t, "POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "once"}, key)
		b := readAll(t, resp)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("send: %d %s", resp.StatusCode, b)
		}
		var m store.DM
		mustDecode(t, b, &m)
		ids = append(ids, m.ID)
	}
	if ids[0] != ids[1] || ids[1] != ids[2] {
		t.Fatalf("retries made messages %v", ids)
	}
	if got := ts.conversationIDs(t, bob, "alice"); len(got) != 1 {
		t.Fatalf("bob's conversation holds %v", got)
	}
	resp := ts.do(t, "POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "other"}, key)
	if b := readAll(t, resp); resp.StatusCode != 400 || errorCode(t, b) != "idempotency_key_reused" {
		t.Fatalf("the key with another body: %d %s", resp.StatusCode, b)
	}
}

// TestDMsRateLimited: past the "message" limit a sender gets 429 with
// Retry-After, and nothing is written.
func TestDMsRateLimited(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_RATE_LIMITS=message=3/1h") // limits count in fixed windows: a minute's could end mid-test
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	for i := range 3 {
		ts.sendDM(t, alice, "bob", fmt.Sprint("message ", i))
	}
	resp := ts.do(t, "POST", "/api/v1/conversations/bob/messages", alice, map[string]any{"content": "one too many"}, nil)
	if b := readAll(t, resp); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth message: %d %s (Retry-After %q)", resp.StatusCode, b, resp.Header.Get("Retry-After"))
	}
	if got := ts.conversationIDs(t, bob, "alice"); len(got) != 3 {
		t.Fatalf("bob's conversation holds %d messages, want 3", len(got))
	}
	ts.sendDM(t, bob, "alice", "bob has his own limit")
}

// TestConversationThroughArchive: with a hot window of 10, a conversation
// of 60 messages pages through the API back to its first message, from
// either side, while Redis holds about 10 of them; a message past the
// window is deleted for both.
func TestConversationThroughArchive(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	var sent []int64
	for i := range 60 {
		from, to := alice, "bob"
		if i%4 == 3 {
			from, to = bob, "alice"
		}
		sent = append(sent, ts.sendDM(t, from, to, fmt.Sprint("message ", i)).ID)
	}
	rdb, k := ts.rdb(), keysOf(ts.rdb())
	archiveSettled(t, rdb)
	slices.Reverse(sent)
	for _, c := range []struct{ token, other string }{{alice, "bob"}, {bob, "alice"}} {
		if got := ts.conversationIDs(t, c.token, c.other); !slices.Equal(got, sent) {
			t.Fatalf("conversation with %s: %d ids, want the %d newest first", c.other, len(got), len(sent))
		}
	}
	hot := 0
	for _, id := range sent {
		if rdb.Exists(context.Background(), k.DM(id)).Val() == 1 {
			hot++
		}
	}
	if hot > 15 {
		t.Fatalf("Redis holds %d of the 60 messages, want about 10", hot)
	}
	oldest := sent[len(sent)-1]
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/messages/%d", oldest), alice, nil, 204, "")
	if got := ts.conversationIDs(t, bob, "alice"); slices.Contains(got, oldest) || len(got) != 59 {
		t.Fatalf("after deleting the first message bob's conversation holds %d", len(got))
	}
}

// readAll reads and closes a response's body.
func readAll(t testing.TB, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A private message waits on Redis four times at most, its session's check
// included (three once the session is remembered): the recipient's name,
// the claim and the write; on a cluster two more: the message's hash and
// its two sides live on different masters, so the sides follow the hash,
// and its live event waits until both sides and its Idempotency-Key's
// result are written (a message is never shown live unless it stands).
func TestDMRoundTrips(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	ts.register(t, "bob")
	perMessage := 4.0
	if storetest.ClusterMode() {
		perMessage = 6
	}
	const route = "/api/v1/conversations/:username/messages"
	before := ts.roundTrips(t, "POST", route)
	const messages = 20
	for i := range messages {
		ts.sendDM(t, alice, "bob", fmt.Sprint("message ", i))
	}
	if n := (ts.roundTrips(t, "POST", route) - before) / messages; n > perMessage {
		t.Fatalf("%v round trips per message, want at most %v", n, perMessage)
	}
}
