package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"microblog/server/mastodon"
)

// TestPushSubscriptionBadInput: a subscription the service could not push
// to is refused with 422 and changes nothing; the push scope is required.
func TestPushSubscriptionBadInput(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	tok, _ := ts.mastodonUser(t, "mo", "")
	d := newDevice(t)
	good := ts.subscribe(t, ps, tok, "/mo", d, map[string]any{"alerts": map[string]any{"mention": true}})
	short := make([]byte, 15)
	for name, body := range map[string]map[string]any{
		"http elsewhere":      {"endpoint": "http://push.example/x", "p256dh": d.p256dh(), "auth": d.authKey()},
		"not a URL":           {"endpoint": "push service", "p256dh": d.p256dh(), "auth": d.authKey()},
		"ftp":                 {"endpoint": "ftp://push.example/x", "p256dh": d.p256dh(), "auth": d.authKey()},
		"no endpoint":         {"p256dh": d.p256dh(), "auth": d.authKey()},
		"key not a point":     {"endpoint": "https://push.example/x", "p256dh": b64(append([]byte{4}, make([]byte, 64)...)), "auth": d.authKey()},
		"key too short":       {"endpoint": "https://push.example/x", "p256dh": b64([]byte("short")), "auth": d.authKey()},
		"key not base64":      {"endpoint": "https://push.example/x", "p256dh": "not*base64!", "auth": d.authKey()},
		"auth of 15 bytes":    {"endpoint": "https://push.example/x", "p256dh": d.p256dh(), "auth": b64(short)},
		"no auth":             {"endpoint": "https://push.example/x", "p256dh": d.p256dh()},
		"policy of no kind":   {"endpoint": "https://push.example/x", "p256dh": d.p256dh(), "auth": d.authKey(), "policy": "friends"},
		"legacy aesgcm asked": {"endpoint": "https://push.example/x", "p256dh": d.p256dh(), "auth": d.authKey(), "standard": false},
	} {
		sub := map[string]any{"endpoint": body["endpoint"], "keys": map[string]any{"p256dh": body["p256dh"], "auth": body["auth"]}}
		if s, ok := body["standard"]; ok {
			sub["standard"] = s
		}
		req := map[string]any{"subscription": sub}
		if p, ok := body["policy"]; ok {
			req["data"] = map[string]any{"policy": p}
		}
		status, b := ts.call(t, "POST", "/api/v1/push/subscription", tok, req)
		var e mastodon.ErrorBody
		json.Unmarshal(b, &e)
		if status != http.StatusUnprocessableEntity || e.Error == "" {
			t.Errorf("%s: %d %s, want 422 with an error", name, status, b)
		}
	}
	status, b := ts.call(t, "PUT", "/api/v1/push/subscription", tok, map[string]any{"data": map[string]any{"policy": "some"}})
	if status != http.StatusUnprocessableEntity {
		t.Errorf("PUT a bad policy: %d %s", status, b)
	}
	var now mastodon.WebPushSubscription
	ts.mastodonJSON(t, "GET", "/api/v1/push/subscription", tok, nil, &now)
	if now != good {
		t.Errorf("the subscription changed: %+v, was %+v", now, good)
	}

	// Without the push scope: 403, for every method; anonymous: 401.
	readOnly := ts.mastodonToken(t, "mo", "", "read write follow")
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		if status, b := ts.call(t, m, "/api/v1/push/subscription", readOnly, nil); status != http.StatusForbidden {
			t.Errorf("%s without the push scope: %d %s", m, status, b)
		}
		if status, _ := ts.call(t, m, "/api/v1/push/subscription", "", nil); status != http.StatusUnauthorized {
			t.Errorf("%s anonymous: %d", m, status)
		}
	}

	// One subscription per token: another token of mo's has none, and
	// deleting it leaves the first.
	other := ts.mastodonToken(t, "mo", "", "")
	if status, _ := ts.call(t, "GET", "/api/v1/push/subscription", other, nil); status != http.StatusNotFound {
		t.Errorf("another token's subscription: %d, want 404", status)
	}
	ts.mastodonJSON(t, "DELETE", "/api/v1/push/subscription", other, nil, nil)
	ts.mastodonJSON(t, "GET", "/api/v1/push/subscription", tok, nil, &now)
	ts.mastodonJSON(t, "DELETE", "/api/v1/push/subscription", tok, nil, nil)
	if status, _ := ts.call(t, "GET", "/api/v1/push/subscription", tok, nil); status != http.StatusNotFound {
		t.Errorf("after DELETE: %d, want 404", status)
	}
}

// TestVAPIDKeys: without settings, the first process makes a key pair and
// every process on the same Redis uses it; the public key is shown by the
// instance, apps and subscriptions, the private key never. An operator's
// pair is used as set, and a bad one stops the server at start.
func TestVAPIDKeys(t *testing.T) {
	r := startRedis(t)
	one := startServer(t, r, pushEnv...)
	two := startServer(t, r, pushEnv...)
	key := one.vapidKey(t)
	if got := two.vapidKey(t); got != key {
		t.Fatalf("two processes, two keys: %q and %q", key, got)
	}
	raw, err := one.rdb().Get(context.Background(), keysOf(one.rdb()).VAPIDKeys()).Result()
	if err != nil {
		t.Fatal(err)
	}
	var pair struct{ Public, Private string }
	json.Unmarshal([]byte(raw), &pair)
	if pair.Public != key || len(pair.Private) < 40 {
		t.Fatalf("stored pair %q", raw)
	}
	tok, _ := one.mastodonUser(t, "nia", "")
	var app mastodon.RegisteredApp
	one.mastodonJSON(t, "GET", "/api/v1/apps/verify_credentials", tok, nil, &app)
	if app.VapidKey != key {
		t.Errorf("app vapid_key %q, want %q", app.VapidKey, key)
	}
	ps := newPushService(t, key)
	one.subscribe(t, ps, tok, "/nia", newDevice(t), nil)
	for _, path := range []string{"/api/v2/instance", "/api/v1/instance", "/api/v1/push/subscription", "/api/v1/apps/verify_credentials"} {
		_, b := one.call(t, "GET", path, tok, nil)
		if strings.Contains(string(b), pair.Private) {
			t.Errorf("%s shows the private key", path)
		}
	}
	if strings.Contains(one.logs.String(), pair.Private) {
		t.Error("the log holds the private key")
	}

	const pub = "BKBpE40hqUjvsdvv24x1jViW6g0Sh4ut8iyf5sbErqEZ0chOFEQIgd5ZYwP0bkALGzjZMmMYxWsXZphaGWBfLCQ"
	const priv = "gFXrNEOUPMRXMnCTxuQi2u0ACC320MhWfJeWPLvB4_I" // a test pair, no secret
	own := newTestServer(t, "MICROBLOG_VAPID_PUBLIC_KEY="+pub, "MICROBLOG_VAPID_PRIVATE_KEY="+priv, "MICROBLOG_VAPID_SUBJECT=mailto:ops@example.org")
	if got := own.vapidKey(t); got != pub {
		t.Errorf("the operator's key is not used: %q", got)
	}
	for _, env := range [][]string{
		{"MICROBLOG_VAPID_PUBLIC_KEY=" + pub},
		{"MICROBLOG_VAPID_PUBLIC_KEY=" + key, "MICROBLOG_VAPID_PRIVATE_KEY=" + priv},
		{"MICROBLOG_VAPID_PUBLIC_KEY=" + pub, "MICROBLOG_VAPID_PRIVATE_KEY=short"},
		{"MICROBLOG_VAPID_SUBJECT=ops@example.org"},
	} {
		vars := map[string]string{}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		_, err := loadConfig(nil, func(k string) string { return vars[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "MICROBLOG_VAPID") || strings.Contains(err.Error(), priv) {
			t.Errorf("%v: %v, want an error naming the setting (and no private key)", env, err)
		}
	}
}
