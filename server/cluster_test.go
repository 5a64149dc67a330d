package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub/wstest"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// The live feed across server processes on a Redis Cluster of the test's
// own (its masters are killed and restarted): events go by sharded pub/sub,
// each user's channels in one of 64 partitions ({p<uid % 64>}author:<uid>,
// see docs/redis-keys.md), and a fan on one process hears posts made through
// another, every one once, whatever happens to a master.

// clusterPair starts a cluster of its own and two server processes on it.
func clusterPair(t *testing.T) (*storetest.Cluster, *testServer, *testServer) {
	t.Helper()
	c := storetest.StartCluster(t)
	t.Cleanup(func() { noCrossSlot(t, c) }) // once the servers have stopped
	b := storetest.ClusterBackend(t, c)
	return c, startOn(t, b), startOn(t, b)
}

// noCrossSlot fails the test if any master refused a command with CROSSSLOT
// (Redis counts every error reply by its prefix, whether or not the server
// logged it).
func noCrossSlot(t *testing.T, c *storetest.Cluster) {
	t.Helper()
	for _, m := range c.Masters {
		stats, err := m.Client().Info(context.Background(), "errorstats").Result()
		if err != nil {
			t.Errorf("errorstats of %s: %v", m.Addr(), err)
		} else if strings.Contains(stats, "errorstat_CROSSSLOT") {
			t.Errorf("master %s answered CROSSSLOT:\n%s", m.Addr(), stats)
		}
	}
}

// shardChannel is the author channel of uid as a cluster spells it.
func shardChannel(uid int64) string { return schema.NewKeys("", true).AuthorChannel(uid) }

// channelMaster is the index of the master that serves channel's slot.
func channelMaster(t *testing.T, c *storetest.Cluster, channel string) int {
	t.Helper()
	ctx := context.Background()
	slot, err := c.Masters[0].Client().ClusterKeySlot(ctx, channel).Result()
	if err != nil {
		t.Fatal(err)
	}
	slots, err := c.Masters[0].Client().ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range slots {
		if int(slot) >= r.Start && int(slot) <= r.End {
			for i, m := range c.Masters {
				if r.Nodes[0].Addr == m.Addr() {
					return i
				}
			}
		}
	}
	t.Fatalf("no master serves %s (slot %d)", channel, slot)
	return -1
}

// stars registers n stars on ts and has fanTok follow them all.
func stars(t *testing.T, ts *testServer, fanTok string, n int) (toks []string, ids []int64) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("star%d", i)
		tok, id := ts.register(t, name)
		ts.follow(t, fanTok, name, true)
		toks, ids = append(toks, tok), append(ids, id)
	}
	return toks, ids
}

// TestClusterCrossProcess: on a cluster, a fan connected to one process sees
// posts made through the other, from stars in many partitions, each once.
func TestClusterCrossProcess(t *testing.T) {
	parallel(t)
	c, ts1, ts2 := clusterPair(t)
	fanTok, _ := ts1.register(t, "fan")
	toks, starIDs := stars(t, ts2, fanTok, 8)
	ws := ts1.dialWS(t, fanTok, "")
	ws.ready(t)
	masters := map[int]bool{}
	var ids []int64
	for round := range 3 {
		for i, tok := range toks {
			ids = append(ids, ts2.newPost(t, tok, fmt.Sprintf("round %d from process 2", round)))
			masters[channelMaster(t, c, shardChannel(starIDs[i]))] = true
		}
	}
	newCollector(t, ws).waitFor(ids, 30*time.Second)
	if len(masters) < 2 {
		t.Errorf("the stars' channels are all on master %v: the test spreads nothing", masters)
	}
	// Following through process 2 while connected to process 1.
	otherTok, _ := ts2.register(t, "other")
	ts2.follow(t, fanTok, "other", true)
	oid := ts2.newPost(t, otherTok, "new star, other process")
	ws.expect(t, "post", oid)
}

// TestClusterSubscriberKilled: the sharded subscriber connections on one
// master are killed again and again while stars post through the other
// process; the fan still gets every post once.
func TestClusterSubscriberKilled(t *testing.T) {
	parallel(t)
	c, ts1, ts2 := clusterPair(t)
	fanTok, _ := ts1.register(t, "fan")
	toks, starIDs := stars(t, ts2, fanTok, 6)
	ws := ts1.dialWS(t, fanTok, "")
	ws.ready(t)
	victim := c.Masters[channelMaster(t, c, shardChannel(starIDs[0]))].Client()
	ctx := context.Background()
	var ids []int64
	killed := int64(0)
	for i := range 36 {
		if i%3 == 0 {
			n, err := victim.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
			// "No such client": the subscriber is still reconnecting.
			if err != nil && !strings.Contains(err.Error(), "No such client") {
				t.Fatal(err)
			}
			killed += n
		}
		ids = append(ids, ts2.newPost(t, toks[i%len(toks)], fmt.Sprintf("post %d", i)))
	}
	if killed == 0 {
		t.Fatal("no subscriber connection was killed: the test proved nothing")
	}
	c1 := newCollector(t, ws)
	c1.waitFor(ids, 30*time.Second)
	last := ts2.newPost(t, toks[0], "after the storm")
	c1.waitFor([]int64{last}, 30*time.Second)
	if n := metric(t, ts1, "microblog_live_subscriber_gaps_total"); n < 1 {
		t.Errorf("process 1 noticed %v gaps, want at least 1", n)
	}
	t.Logf("killed %d sharded connections", killed)
}

// resumingFan is a live-feed client that does what the contract asks of
// one: when the server closes with 1012 (its catch-up after a gap failed,
// as it does while a restarted master still answers CLUSTERDOWN), it
// reconnects with ?after=<newest post it has>. Its collector checks that
// every post arrives once over all its connections.
type resumingFan struct {
	*collector
	ts    *testServer
	token string
}

func newResumingFan(t *testing.T, ts *testServer, token string) *resumingFan {
	f := &resumingFan{collector: newCollector(t, ts.dialWS(t, token, "")), ts: ts, token: token}
	f.reconnect = f.resume
	f.ws.ready(t)
	return f
}

// resume reconnects after a 1012, with ?after=<newest post it has>.
func (f *resumingFan) resume() *wsClient {
	f.t.Helper()
	err := f.ws.Err()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseServiceRestart {
		f.t.Fatalf("live feed closed: %v, want 1012", err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if c, _, _ := wstest.TryDial(f.t, f.ts.wsURL("after="+strconv.FormatInt(f.newest, 10)), bearer(f.token)); c != nil {
			return &wsClient{c}
		}
		time.Sleep(100 * time.Millisecond) // refused while the cluster is not whole
	}
	f.t.Fatal("could not reconnect within a minute")
	return nil
}

// TestClusterMasterRestart: the master serving a star's partition restarts
// while the stars post through the other process; every post reaches the
// fan once. Posts made while nobody listened to the star's channel can only
// arrive through the hub's catch-up or the client's ?after, as the metrics
// must show.
func TestClusterMasterRestart(t *testing.T) {
	parallel(t)
	c, ts1, ts2 := clusterPair(t)
	fanTok, _ := ts1.register(t, "fan")
	toks, starIDs := stars(t, ts2, fanTok, 6)
	fan := newResumingFan(t, ts1, fanTok)
	before := []int64{ts2.newPost(t, toks[0], "before")}
	fan.waitFor(before, 30*time.Second)

	channel := shardChannel(starIDs[0])
	master := c.Masters[channelMaster(t, c, channel)]
	unheard := func() bool { // nobody listens to star 0's channel
		n, err := master.Client().Do(context.Background(), "PUBSUB", "SHARDNUMSUB", channel).Slice()
		return err == nil && len(n) == 2 && fmt.Sprint(n[1]) == "0"
	}
	var after, lost []int64
	refused := 0
	for attempt := 0; attempt < 3 && len(lost) == 0; attempt++ {
		// Down long enough for the subscriber's reconnection back-off to
		// grow past the time the first posts after the restart take.
		master.RestartAfter(1500 * time.Millisecond)
		deadline := time.Now().Add(hangWait)
		for n := 0; n < 6*(attempt+1) && time.Now().Before(deadline); {
			tok := toks[n%2] // star 0, whose partition was down, and another
			silent := unheard()
			status, body := ts2.call(t, "POST", "/api/v1/posts", tok, map[string]string{"content": "after restart " + strconv.Itoa(n)})
			// A master that restarts answers CLUSTERDOWN for a while,
			// which the server answers with 500 today (checked below).
			if status == http.StatusServiceUnavailable || status == http.StatusInternalServerError {
				refused++
				time.Sleep(20 * time.Millisecond)
				continue
			}
			if status != http.StatusCreated {
				t.Fatalf("post after restart: %d %s", status, body)
			}
			var p struct{ ID int64 }
			mustDecode(t, body, &p)
			after = append(after, p.ID)
			if tok == toks[0] && silent && unheard() {
				lost = append(lost, p.ID)
			}
			n++
		}
	}
	for _, line := range strings.Split(ts2.logs.String(), "\n") {
		if strings.Contains(line, `msg="request failed"`) && !strings.Contains(line, "CLUSTERDOWN") {
			t.Errorf("a request failed for another reason than the cluster being down: %s", line)
		}
	}
	fan.waitFor(append(before, after...), 30*time.Second)
	if n := metric(t, ts1, "microblog_live_subscriber_gaps_total"); n < 1 {
		t.Errorf("the hub noticed %v gaps, want at least 1", n)
	}
	t.Logf("%d posts after the restart (%d refused while the cluster was not whole), %d of them published while nobody listened; %d reconnections with ?after",
		len(after), refused, len(lost), fan.reconnects)
}
