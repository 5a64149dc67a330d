package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"microblog/store"
)

// readyDMID reads the ready frame and returns its last_message_id.
func (c *wsClient) readyDMID(t testing.TB) int64 {
	t.Helper()
	f := c.expect(t, "ready", 0)
	var d struct {
		LastDMID *int64 `json:"last_message_id"`
	}
	if err := json.Unmarshal(f.Data, &d); err != nil || d.LastDMID == nil {
		t.Fatalf("ready frame %s lacks last_message_id", f)
	}
	return *d.LastDMID
}

// TestWSDMsReachBothUsers: a message reaches every open socket of its
// sender and its recipient (two devices of one user both get it), a delete
// too; a read reaches the reader's own sockets; no one else hears of them.
func TestWSDMsReachBothUsers(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, aliceID := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	old := ts.sendDM(t, bob, "alice", "before anyone connected")
	phone, laptop, bobWS, carolWS := ts.dialWS(t, alice, ""), ts.dialWS(t, alice, ""), ts.dialWS(t, bob, ""), ts.dialWS(t, carol, "")
	for _, c := range []*wsClient{phone, laptop, bobWS} {
		if last := c.readyDMID(t); last != old.ID {
			t.Fatalf("ready last_message_id %d, want %d", last, old.ID)
		}
	}
	carolWS.readyDMID(t)

	start := time.Now()
	m := ts.sendDM(t, alice, "bob", "在吗？")
	for _, c := range []*wsClient{phone, laptop, bobWS} {
		f := c.expect(t, store.EventDM, m.ID)
		var got store.DM
		if json.Unmarshal(f.Data, &got); got.Content != "在吗？" || got.Sender.ID != aliceID || got.Recipient.Username != "bob" {
			t.Fatalf("message frame %s", f)
		}
	}
	t.Logf("the message reached all three sockets %s after it was sent", time.Since(start))
	ts.wantStatus(t, "POST", "/api/v1/conversations/alice/read", bob, map[string]any{"up_to": m.ID}, 204, "")
	f := bobWS.expect(t, store.EventConversationRead, 0)
	var read store.ConversationReadData
	if json.Unmarshal(f.Data, &read); read.With != (store.Party{ID: aliceID, Username: "alice"}) || read.UpTo != m.ID {
		t.Fatalf("conversation_read frame %s", f)
	}
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/messages/%d", m.ID), alice, nil, 204, "")
	for _, c := range []*wsClient{phone, laptop, bobWS} {
		c.expect(t, store.EventDMDelete, m.ID)
	}
	// Carol heard of none of it: her next frame is her own message.
	own := ts.sendDM(t, carol, "bob", "hi bob")
	carolWS.expect(t, store.EventDM, own.ID)
	bobWS.expect(t, store.EventDM, own.ID)
	// Alice's sockets heard no read: their next frame is bob's answer.
	answer := ts.sendDM(t, bob, "alice", "here")
	phone.expect(t, store.EventDM, answer.ID)
	laptop.expect(t, store.EventDM, answer.ID)
}

// TestWSDMsReplay: a client that reconnects with ?messages_after= gets
// the messages it missed, sent and received, once, oldest first, before
// ready; then the live ones.
func TestWSDMsReplay(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	seen := ts.sendDM(t, alice, "bob", "seen")
	missed := []int64{
		ts.sendDM(t, alice, "bob", "missed 1").ID,
		ts.sendDM(t, bob, "alice", "sent from another device").ID,
		ts.sendDM(t, alice, "bob", "missed 2").ID,
	}
	c := ts.dialWS(t, bob, fmt.Sprintf("messages_after=%d", seen.ID))
	for _, id := range missed {
		c.expect(t, store.EventDM, id)
	}
	if last := c.readyDMID(t); last != missed[2] {
		t.Fatalf("ready last_message_id %d, want %d", last, missed[2])
	}
	live := ts.sendDM(t, alice, "bob", "live")
	c.expect(t, store.EventDM, live.ID)
	ts.wantStatus(t, "GET", "/ws?messages_after=x", bob, nil, 400, "invalid_after")
}

// TestWSDMsDuringReconnect: while alice writes 150 messages, bob's
// client keeps dropping its connection after a few frames and reconnects
// with ?messages_after= the last message it got. Together its connections
// get every message once, in order: none written during a reconnect is
// lost or doubled.
func TestWSDMsDuringReconnect(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	const total = 150
	var sent []int64
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range total {
			m := ts.sendDM(t, alice, "bob", fmt.Sprint("message ", i))
			mu.Lock()
			sent = append(sent, m.ID)
			mu.Unlock()
			if i%10 == 0 {
				time.Sleep(2 * time.Millisecond)
			}
		}
	}()
	var got []int64
	var last int64
	reconnects := 0
	for ; len(got) < total; reconnects++ {
		if reconnects > 1000 {
			t.Fatalf("after 1000 reconnects bob has %d of %d messages", len(got), total)
		}
		c := ts.dialWS(t, bob, fmt.Sprintf("messages_after=%d", last))
		// A few frames, then the connection drops without reading the rest.
		for n := 0; n < 1+reconnects%7 && len(got) < total; {
			f := c.Next(t, hangWait)
			if f.Event != store.EventDM {
				continue
			}
			got, last = append(got, f.ID()), f.ID()
			n++
		}
		c.Conn.Close()
	}
	<-done
	t.Logf("%d messages over %d connections", total, reconnects)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, sent) {
		t.Fatalf("bob's connections got %d messages, want the %d sent once each in order;\n got %v\nsent %v", len(got), len(sent), got, sent)
	}
}

// TestConversationUnread: a read conversation marked unread counts its
// newest message unread again, in the list, in /me and on the user's
// sockets (conversation_unread), and reads as before afterwards; marking
// one with something unread changes nothing; one with no messages is 404.
func TestConversationUnread(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, aliceID := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	ts.register(t, "carol")
	ts.sendDM(t, alice, "bob", "one")
	m := ts.sendDM(t, alice, "bob", "two")
	ts.wantStatus(t, "POST", "/api/v1/conversations/alice/read", bob, map[string]any{"up_to": m.ID}, 204, "")
	ws := ts.dialWS(t, bob, "")
	ws.readyDMID(t)

	unread := func(want int64) {
		t.Helper()
		var page store.Page[store.Conversation]
		ts.getJSON(t, bob, "/api/v1/conversations", &page)
		var me store.User
		ts.getJSON(t, bob, "/api/v1/me", &me)
		if len(page.Items) != 1 || page.Items[0].UnreadCount != want || me.UnreadDMs == nil || *me.UnreadDMs != min(want, 1) {
			t.Fatalf("bob's conversations %+v, /me unread_messages %v; want %d unread", page.Items, me.UnreadDMs, want)
		}
	}
	unread(0)
	var got struct {
		UnreadCount int64 `json:"unread_count"`
	}
	markUnread := func(name string) {
		t.Helper()
		status, body := ts.call(t, "POST", "/api/v1/conversations/"+name+"/unread", bob, nil)
		if status != 200 {
			t.Fatalf("unread %s: %d %s", name, status, body)
		}
		mustDecode(t, body, &got)
	}
	markUnread("ALICE")
	if got.UnreadCount != 1 {
		t.Fatalf("unread_count %d, want 1", got.UnreadCount)
	}
	f := ws.expect(t, store.EventConversationUnread, 0)
	var d store.ConversationUnreadData
	if json.Unmarshal(f.Data, &d); d.With != (store.Party{ID: aliceID, Username: "alice"}) || d.UnreadCount != 1 {
		t.Fatalf("conversation_unread frame %s", f)
	}
	unread(1)
	ts.sendDM(t, alice, "bob", "three")
	unread(2)
	markUnread("alice")
	if got.UnreadCount != 2 {
		t.Fatalf("marking a conversation with 2 unread: unread_count %d", got.UnreadCount)
	}
	unread(2)
	ts.wantStatus(t, "POST", "/api/v1/conversations/carol/unread", bob, nil, 404, "message_not_found")
	ts.wantStatus(t, "POST", "/api/v1/conversations/nobody/unread", bob, nil, 404, "user_not_found")
}
