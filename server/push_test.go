package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/mastodon"
	"microblog/store"
	"microblog/store/redisdb/schema"
)

// pushEnv makes failed pushes retried at once, for the tests.
var pushEnv = []string{"MICROBLOG_PUSH_RETRY_BASE=20ms"}

// subscribe makes token's Mastodon push subscription for d at path of ps
// with data (alerts, policy) and returns it.
func (ts *testServer) subscribe(t testing.TB, ps *pushService, token, path string, d *device, data map[string]any) mastodon.WebPushSubscription {
	t.Helper()
	var sub mastodon.WebPushSubscription
	ts.mastodonJSON(t, "POST", "/api/v1/push/subscription", token, map[string]any{
		"subscription": map[string]any{"endpoint": ps.endpoint(path, d),
			"keys": map[string]any{"p256dh": d.p256dh(), "auth": d.authKey()}},
		"data": data,
	}, &sub)
	return sub
}

// vapidKey is the server's VAPID public key, as /api/v2/instance shows it.
func (ts *testServer) vapidKey(t testing.TB) string {
	t.Helper()
	var inst mastodon.InstanceV2
	ts.mastodonJSON(t, "GET", "/api/v2/instance", "", nil, &inst)
	if inst.Configuration.Vapid.PublicKey == "" {
		t.Fatal("no configuration.vapid.public_key")
	}
	return inst.Configuration.Vapid.PublicKey
}

var allAlerts = map[string]any{"mention": true, "status": true, "reblog": true, "follow": true,
	"follow_request": true, "favourite": true, "poll": true, "update": true}

// TestPushDelivery: a mention, a like, a follow, a private message, a
// repost and a comment each reach the user's device as one push, encrypted to
// it and signed with the server's VAPID key, with Mastodon's payload and
// no access token in it.
func TestPushDelivery(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	alice, _ := ts.mastodonUser(t, "alice", "")
	aliceNative := nativeOf(alice)
	bob, _ := ts.register(t, "bob")
	d := newDevice(t)
	sub := ts.subscribe(t, ps, alice, "/alice", d, map[string]any{"alerts": allAlerts, "policy": "all"})
	if sub.ServerKey != ps.serverKey || !sub.Standard || sub.Policy != "all" || !sub.Alerts.Mention || sub.Alerts.AdminReport {
		t.Fatalf("subscription %+v", sub)
	}
	mine := ts.post(t, aliceNative, "hello there", 0)

	steps := []struct {
		do           func()
		typ, title   string
		body         string
		urgency      string
		notification bool
	}{
		{func() { ts.post(t, bob, "hi @alice how are you", 0) }, "mention", "@bob mentioned you", "hi @alice how are you", "high", true},
		{func() {
			ts.wantStatus(t, "PUT", "/api/v1/posts/"+strconv.FormatInt(mine.ID, 10)+"/like", bob, nil, 204, "")
		}, "favourite", "@bob liked your post", "hello there", "normal", true},
		{func() { ts.follow(t, bob, "alice", true) }, "follow", "@bob followed you", "", "normal", true},
		{func() { ts.sendDM(t, bob, "alice", "a secret between us") }, "mention", "@bob sent you a message", "a secret between us", "high", false},
		{func() { ts.post(t, bob, "", mine.ID) }, "reblog", "@bob reposted your post", "hello there", "normal", true},
		{func() { ts.comment(t, bob, mine.ID, "nice one") }, "mention", "@bob commented on your post", "nice one", "high", true},
	}
	for i, s := range steps {
		s.do()
		got := ps.waitPushes(t, "/alice", i+1)
		if len(got) != i+1 {
			t.Fatalf("step %d: %d pushes, want %d", i, len(got), i+1)
		}
		p := got[i]
		if p.Payload["notification_type"] != s.typ || p.Payload["title"] != s.title || p.Payload["body"] != s.body {
			t.Errorf("step %d: payload %v, want %s %q %q", i, p.Payload, s.typ, s.title, s.body)
		}
		if p.Payload["preferred_locale"] != "en" || !strings.HasPrefix(p.Payload["icon"].(string), ts.URL+"/") {
			t.Errorf("step %d: payload %v", i, p.Payload)
		}
		if _, ok := p.Payload["access_token"]; ok {
			t.Errorf("step %d: the payload carries an access token: %v", i, p.Payload)
		}
		if p.Urgency != s.urgency || p.TTL != strconv.Itoa(48*3600) {
			t.Errorf("step %d: Urgency %q TTL %q", i, p.Urgency, p.TTL)
		}
		id, _ := p.Payload["notification_id"].(string)
		if s.notification {
			// The id is the notification's, as the Mastodon API lists it.
			var n mastodon.Notification
			ts.mastodonJSON(t, "GET", "/api/v1/notifications/"+id, alice, nil, &n)
			if n.Type != s.typ {
				t.Errorf("step %d: notification %s is a %s", i, id, n.Type)
			}
		} else if !strings.HasPrefix(id, "dm-") || p.Payload["conversation"] != "bob" {
			t.Errorf("step %d: a message's push %v", i, p.Payload)
		}
	}
	// Nothing more came (one push each).
	time.Sleep(300 * time.Millisecond)
	if n := len(ps.pushes("/alice")); n != len(steps) {
		t.Fatalf("%d pushes, want %d", n, len(steps))
	}
}

// TestPushAlertsAndPolicy: a subscription hears only the alerts it asked
// for, and only from whom its policy lets through.
func TestPushAlertsAndPolicy(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	cara, _ := ts.mastodonUser(t, "cara", "")
	caraNative := nativeOf(cara)
	dan, _ := ts.register(t, "dan")
	erin, _ := ts.register(t, "erin")
	mine := ts.post(t, caraNative, "cara's post", 0)
	like := "/api/v1/posts/" + strconv.FormatInt(mine.ID, 10) + "/like"

	// Follows only: dan's like is not pushed, his follow is.
	ts.subscribe(t, ps, cara, "/cara", newDevice(t), map[string]any{"alerts": map[string]any{"follow": true}})
	ts.wantStatus(t, "PUT", like, dan, nil, 204, "")
	ts.follow(t, dan, "cara", true)
	got := ps.waitPushes(t, "/cara", 1)
	if len(got) != 1 || got[0].Payload["notification_type"] != "follow" {
		t.Fatalf("pushes %v, want dan's follow alone", got)
	}

	// PUT changes the alerts and the policy: mentions, from whom cara
	// follows (erin), not from dan, who follows her but whom she does not.
	var sub mastodon.WebPushSubscription
	ts.mastodonJSON(t, "PUT", "/api/v1/push/subscription", cara, map[string]any{
		"data": map[string]any{"alerts": map[string]any{"mention": true, "follow": false}, "policy": "followed"}}, &sub)
	if !sub.Alerts.Mention || sub.Alerts.Follow || sub.Policy != "followed" {
		t.Fatalf("updated subscription %+v", sub)
	}
	ts.follow(t, caraNative, "erin", true)
	ts.post(t, dan, "@cara from dan", 0)
	ts.post(t, erin, "@cara from erin", 0)
	got = ps.waitPushes(t, "/cara", 2)
	time.Sleep(300 * time.Millisecond)
	got = ps.pushes("/cara")
	if len(got) != 2 || got[1].Payload["body"] != "@cara from erin" {
		t.Fatalf("pushes %v, want erin's mention alone after the follow", got)
	}

	// follower: dan (a follower) is heard, erin (not one) is not.
	ts.mastodonJSON(t, "PUT", "/api/v1/push/subscription", cara, map[string]any{"data": map[string]any{"policy": "follower"}}, &sub)
	ts.post(t, erin, "@cara erin again", 0)
	ts.post(t, dan, "@cara dan again", 0)
	got = ps.waitPushes(t, "/cara", 3)
	time.Sleep(300 * time.Millisecond)
	got = ps.pushes("/cara")
	if len(got) != 3 || got[2].Payload["body"] != "@cara dan again" {
		t.Fatalf("pushes %v, want dan's mention alone under follower", got)
	}

	// none: nothing.
	ts.mastodonJSON(t, "PUT", "/api/v1/push/subscription", cara, map[string]any{"data": map[string]any{"policy": "none"}}, &sub)
	ts.post(t, dan, "@cara dan once more", 0)
	time.Sleep(500 * time.Millisecond)
	if n := len(ps.pushes("/cara")); n != 3 {
		t.Fatalf("%d pushes under policy none, want still 3", n)
	}
}

// TestPushBlockedAndMuted: what a user blocks or mutes is not pushed to
// it: only the next allowed action's push comes.
func TestPushBlockedAndMuted(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	fay, _ := ts.mastodonUser(t, "fay", "")
	fayNative := nativeOf(fay)
	gus, _ := ts.register(t, "gus")
	hal, _ := ts.register(t, "hal")
	ivy, _ := ts.register(t, "ivy")
	ts.subscribe(t, ps, fay, "/fay", newDevice(t), map[string]any{"alerts": allAlerts})
	ts.wantStatus(t, "PUT", "/api/v1/users/gus/block", fayNative, nil, 204, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/hal/mute", fayNative, nil, 204, "")
	ts.post(t, gus, "@fay from a blocked user", 0)
	ts.post(t, hal, "@fay from a muted user", 0)
	ts.sendDM(t, hal, "fay", "a message from a muted user")
	ts.post(t, ivy, "@fay from ivy", 0)
	ps.waitPushes(t, "/fay", 1)
	time.Sleep(300 * time.Millisecond)
	got := ps.pushes("/fay")
	if len(got) != 1 || got[0].Payload["body"] != "@fay from ivy" {
		t.Fatalf("pushes %v, want ivy's alone", got)
	}
}

// TestPushGoneAndRetried: a push service that answers 410 ends the
// subscription; one that fails twice and then takes the push gets it
// once.
func TestPushGoneAndRetried(t *testing.T) {
	ts := newTestServer(t, pushEnv...)
	ps := newPushService(t, ts.vapidKey(t))
	jo, _ := ts.mastodonUser(t, "jo", "")
	kim, _ := ts.mastodonUser(t, "kim", "")
	lee, _ := ts.register(t, "lee")

	ts.subscribe(t, ps, jo, "/jo", newDevice(t), map[string]any{"alerts": allAlerts})
	ps.answer("/jo", http.StatusGone)
	ts.post(t, lee, "@jo are you there", 0)
	deadline := time.Now().Add(hangWait)
	for {
		status, _ := ts.call(t, "GET", "/api/v1/push/subscription", jo, nil)
		if status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscription stayed after its push service answered 410")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := ps.triesOf("/jo"); n != 1 {
		t.Fatalf("a gone subscription was tried %d times, want 1", n)
	}

	ts.subscribe(t, ps, kim, "/kim", newDevice(t), map[string]any{"alerts": allAlerts})
	ps.answer("/kim", http.StatusInternalServerError, http.StatusServiceUnavailable)
	ts.post(t, lee, "@kim hello", 0)
	got := ps.waitPushes(t, "/kim", 1)
	time.Sleep(300 * time.Millisecond)
	if got = ps.pushes("/kim"); len(got) != 1 || got[0].Payload["body"] != "@kim hello" || ps.triesOf("/kim") != 3 {
		t.Fatalf("pushes %v after %d tries, want one after 3", got, ps.triesOf("/kim"))
	}
	var sub mastodon.WebPushSubscription
	ts.mastodonJSON(t, "GET", "/api/v1/push/subscription", kim, nil, &sub) // still there
}

// TestPushTakenOverAfterACrash: a push job that a process took and never
// finished (it died) is taken over by the next process after the claim's
// idle time, and delivered: nothing is lost.
func TestPushTakenOverAfterACrash(t *testing.T) {
	env := append(pushEnv, "MICROBLOG_FANOUT_CLAIM_IDLE=300ms")
	r := startRedis(t)
	ts := startServer(t, r, env...)
	ps := newPushService(t, ts.vapidKey(t))
	qi, qiID := ts.mastodonUser(t, "qi", "")
	_, renID := ts.register(t, "ren")
	ts.subscribe(t, ps, qi, "/qi", newDevice(t), map[string]any{"alerts": allAlerts})
	ts.Stop()

	// A process took the job of a message's push and died before pushing.
	ctx := context.Background()
	rdb, keys := ts.rdb(), keysOf(ts.rdb())
	rdb.XGroupCreateMkStream(ctx, keys.PushQueue(), schema.PushGroup, "0")
	job := store.PushJob{UID: qiID, DM: 99, Actor: renID, Text: "left by a dead process"}
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: keys.PushQueue(), Values: schema.PushEntry(job)}).Err(); err != nil {
		t.Fatal(err)
	}
	taken, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: schema.PushGroup, Consumer: "dead",
		Streams: []string{keys.PushQueue(), ">"}, Count: 10, Block: -1}).Result()
	if err != nil || len(taken) != 1 || len(taken[0].Messages) != 1 {
		t.Fatalf("the dead process's read: %v %v", taken, err)
	}

	startServer(t, r, env...)
	got := ps.waitPushes(t, "/qi", 1)
	time.Sleep(500 * time.Millisecond)
	if got = ps.pushes("/qi"); len(got) != 1 || got[0].Payload["body"] != "left by a dead process" || got[0].Payload["notification_id"] != "dm-99" {
		t.Fatalf("pushes %v, want the dead process's job delivered once", got)
	}
	deadline := time.Now().Add(hangWait)
	for rdb.XLen(ctx, keys.PushQueue()).Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the job stays on the queue after its push")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
