package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nativePush is what GET and PUT /api/v1/me/push answer.
type nativePush struct {
	VAPIDPublicKey string `json:"vapid_public_key"`
	Subscription   *struct {
		Endpoint string `json:"endpoint"`
		Lang     string `json:"lang"`
	} `json:"subscription"`
}

// pushSubscribe subscribes a native session's device at path of ps.
func (ts *testServer) pushSubscribe(t testing.TB, ps *pushService, token, path, lang string, d *device) nativePush {
	t.Helper()
	status, b := ts.call(t, "PUT", "/api/v1/me/push", token, map[string]any{"endpoint": ps.endpoint(path, d),
		"keys": map[string]string{"p256dh": d.p256dh(), "auth": d.authKey()}, "lang": lang})
	if status != http.StatusOK {
		t.Fatalf("PUT /me/push: %d %s", status, b)
	}
	var out nativePush
	mustDecode(t, b, &out)
	return out
}

// TestNativePush: the mobile app's session subscribes its device with the
// server's VAPID key, in its language; the pushes are written in it; the
// subscription ends with the session (logout, a new password, the account
// deleted) and with DELETE.
func TestNativePush(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	ola, olaID := ts.register(t, "ola")
	pia, _ := ts.register(t, "pia")
	var before nativePush
	ts.getJSON(t, ola, "/api/v1/me/push", &before)
	if before.VAPIDPublicKey != ps.serverKey || before.Subscription != nil {
		t.Fatalf("before subscribing: %+v", before)
	}
	out := ts.pushSubscribe(t, ps, ola, "/ola", "zh-CN", newDevice(t))
	if out.Subscription == nil || out.Subscription.Lang != "zh" || out.VAPIDPublicKey != ps.serverKey {
		t.Fatalf("subscribed: %+v", out)
	}
	mine := ts.post(t, ola, "你好", 0)
	ts.wantStatus(t, "PUT", "/api/v1/posts/"+strconv.FormatInt(mine.ID, 10)+"/like", pia, nil, 204, "")
	ts.sendDM(t, pia, "ola", "悄悄话")
	got := ps.waitPushes(t, "/ola", 2)
	if got[0].Payload["title"] != "@pia 赞了你的帖子" || got[0].Payload["body"] != "你好" || got[0].Payload["preferred_locale"] != "zh" {
		t.Errorf("like push %v", got[0].Payload)
	}
	if got[1].Payload["title"] != "@pia 给你发了私信" || got[1].Payload["body"] != "悄悄话" {
		t.Errorf("message push %v", got[1].Payload)
	}

	// Bad input: 400, nothing changed.
	d := newDevice(t)
	for name, body := range map[string]map[string]any{
		"http elsewhere": {"endpoint": "http://push.example/x", "keys": map[string]string{"p256dh": d.p256dh(), "auth": d.authKey()}},
		"bad key":        {"endpoint": "https://push.example/x", "keys": map[string]string{"p256dh": "AAAA", "auth": d.authKey()}},
		"no auth":        {"endpoint": "https://push.example/x", "keys": map[string]string{"p256dh": d.p256dh()}},
	} {
		ts.wantStatus(t, "PUT", "/api/v1/me/push", ola, body, http.StatusBadRequest, "invalid_field")
		_ = name
	}
	var now nativePush
	ts.getJSON(t, ola, "/api/v1/me/push", &now)
	if now.Subscription == nil || now.Subscription.Endpoint != ps.srv.URL+"/ola" {
		t.Fatalf("after bad input: %+v", now)
	}
	ts.wantStatus(t, "GET", "/api/v1/me/push", "", nil, http.StatusUnauthorized, "")

	// Each way a session ends removes its subscription.
	subs := keysOf(ts.rdb()).PushSubscriptions(olaID)
	count := func() int64 { return ts.rdb().HLen(context.Background(), subs).Val() }
	ts.wantStatus(t, "DELETE", "/api/v1/me/push", ola, nil, http.StatusNoContent, "")
	if n := count(); n != 0 {
		t.Fatalf("after DELETE: %d subscriptions", n)
	}
	ts.pushSubscribe(t, ps, ola, "/ola", "en", newDevice(t))
	ts.wantStatus(t, "DELETE", "/api/v1/sessions/current", ola, nil, http.StatusNoContent, "")
	if n := count(); n != 0 {
		t.Fatalf("after logout: %d subscriptions", n)
	}
	ola = ts.loginToken(t, "ola", testPassword)
	ts.pushSubscribe(t, ps, ola, "/ola", "en", newDevice(t))
	other := ts.loginToken(t, "ola", testPassword)
	ts.pushSubscribe(t, ps, other, "/ola2", "en", newDevice(t))
	ts.wantStatus(t, "PUT", "/api/v1/me/password", ola, map[string]string{"old_password": testPassword, "new_password": testPassword + "2"}, http.StatusNoContent, "")
	if n := count(); n != 1 {
		t.Fatalf("after a new password: %d subscriptions, want the changing session's alone", n)
	}
	ts.wantStatus(t, "DELETE", "/api/v1/me", ola, map[string]string{"password": testPassword + "2"}, http.StatusNoContent, "")
	if n := count(); n != 0 {
		t.Fatalf("after the account's deletion: %d subscriptions", n)
	}
}

// TestPushEndsWithItsToken: a Mastodon token's subscription ends with the
// token: at once when it is revoked, and, when its session expires (which
// names no user), at the next push due to it, which is not sent.
func TestPushEndsWithItsToken(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	_, uid := ts.register(t, "sam")
	tia, _ := ts.register(t, "tia")
	ctx := context.Background()
	subs := keysOf(ts.rdb()).PushSubscriptions(uid)
	count := func() int64 { return ts.rdb().HLen(ctx, subs).Val() }

	cfg := ts.mastodonApp(t, "read write follow push")
	tok := ts.oauthLogin(t, cfg, "sam").AccessToken
	ts.subscribe(t, ps, tok, "/sam", newDevice(t), map[string]any{"alerts": allAlerts})
	ts.revoke(t, cfg, tok)
	if n := count(); n != 0 {
		t.Fatalf("after the token's revocation: %d subscriptions", n)
	}

	tok = ts.oauthLogin(t, cfg, "sam").AccessToken
	ts.subscribe(t, ps, tok, "/sam", newDevice(t), map[string]any{"alerts": allAlerts})
	owners := ts.rdb().HKeys(ctx, subs).Val()
	if len(owners) != 1 || !strings.HasPrefix(owners[0], "m:") {
		t.Fatalf("owners %v", owners)
	}
	// The session's key expires (as its TTL would have it).
	ts.rdb().Del(ctx, keysOf(ts.rdb()).Session(strings.TrimPrefix(owners[0], "m:")))
	ts.post(t, tia, "@sam still there?", 0)
	deadline := time.Now().Add(hangWait)
	for count() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("an expired token's subscription stays")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := ps.triesOf("/sam"); n != 0 {
		t.Fatalf("an ended token's device was pushed to %d times", n)
	}
}
