package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/hub"
	"microblog/hub/wstest"
	"microblog/store"
	"microblog/store/storetest"
)

// A master fails over under load (issue 27): a cluster of 3 masters with a
// replica each, two server processes, authors posting through both with
// Idempotency-Keys and retrying as the contract asks, fans on live sockets
// that resume as it asks. One master is SIGKILLed mid-load and its replica
// takes over. Afterwards every acknowledged post is on every fan's home
// timeline once, every fan's live feed got every acknowledged post once and
// each author's in order, nothing unacknowledged went out live, and the
// authors' post counts are right.

// failoverAuthor posts n posts through its process, each with an
// Idempotency-Key of its own, and retries a post that failed with the same
// key until it is acknowledged (or the run's context ends).
type failoverAuthor struct {
	ts    *testServer
	token string
	name  string
	acked []int64 // in the order posted
	// tries counts the attempts that failed, by status (0: no answer).
	tries map[int]int
	err   error
}

func (a *failoverAuthor) run(ctx context.Context, n int, pause time.Duration) {
	for i := range n {
		key := fmt.Sprintf("%s-%d", a.name, i)
		for {
			id, status, err := a.post(ctx, key, fmt.Sprintf("%s post %d", a.name, i))
			if err == nil && status == http.StatusCreated {
				a.acked = append(a.acked, id)
				break
			}
			a.tries[status]++
			if ctx.Err() != nil {
				a.err = fmt.Errorf("post %s not acknowledged before the end: last %d %v", key, status, err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(pause)
	}
}

// post sends one attempt: the post's id and the answer's status, or the
// error when no answer came.
func (a *failoverAuthor) post(ctx context.Context, key, content string) (int64, int, error) {
	body, _ := json.Marshal(map[string]string{"content": content})
	req, err := http.NewRequestWithContext(ctx, "POST", a.ts.URL+"/api/v1/posts", bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	var p struct{ ID int64 }
	if resp.StatusCode == http.StatusCreated {
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			return 0, resp.StatusCode, err
		}
	}
	return p.ID, resp.StatusCode, nil
}

// failoverFan reads a fan's live feed into a log, and when the server
// closes it (1012: a catch-up failed while the cluster was not whole; 4008:
// the fan fell a send queue behind, which the burst after a catch-up can do
// to a reader on a busy machine) or the connection drops, resumes it as a
// client does (store.ResumePoint, and web/js/core/live.js):
// ?after= a post it holds written store.ResumeWindow before its newest, and
// ?seen= those it holds above that.
type failoverFan struct {
	ts      *testServer
	token   string
	mu      sync.Mutex
	log     []int64 // post ids in the order received
	resumes int
	afters  []int64 // the ?after= of each resume
	err     error
}

func (f *failoverFan) run(t *testing.T, ctx context.Context, ws *wsClient) {
	var floor int64 // the last_id of the first ready: the fan holds what is below
	var held []store.Held
	for {
		select {
		case fr, ok := <-ws.Frames():
			if !ok {
				var ce *websocket.CloseError
				if err := ws.Err(); !errors.As(err, &ce) || ce.Code != websocket.CloseServiceRestart && ce.Code != hub.CloseTooSlow {
					f.setErr(fmt.Errorf("live feed closed: %v, want 1012 or 4008", err))
					return
				}
				after, seen := store.ResumePoint(floor, held)
				if ws = f.resume(t, ctx, after, seen); ws == nil {
					return
				}
				continue
			}
			switch fr.Event {
			case "ready":
				if floor == 0 {
					var d struct {
						LastID int64 `json:"last_id"`
					}
					json.Unmarshal(fr.Data, &d)
					floor = d.LastID
				}
			case "post":
				f.mu.Lock()
				f.log = append(f.log, fr.ID())
				f.mu.Unlock()
				held = append(held, fr.Held())
			}
		case <-ctx.Done():
			return
		}
	}
}

func (f *failoverFan) resume(t *testing.T, ctx context.Context, after int64, seen []int64) *wsClient {
	q := "after=" + strconv.FormatInt(after, 10)
	if len(seen) > 0 {
		ids := make([]string, len(seen))
		for i, id := range seen {
			ids[i] = strconv.FormatInt(id, 10)
		}
		q += "&seen=" + strings.Join(ids, ",")
	}
	for ctx.Err() == nil {
		if c, _, _ := wstest.TryDial(t, f.ts.wsURL(q), bearer(f.token)); c != nil {
			f.mu.Lock()
			f.resumes++
			f.afters = append(f.afters, after)
			f.mu.Unlock()
			return &wsClient{c}
		}
		time.Sleep(100 * time.Millisecond) // refused while the cluster is not whole
	}
	return nil
}

// failed is why the fan stopped reading, nil while it reads.
func (f *failoverFan) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *failoverFan) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// received is a copy of the log.
func (f *failoverFan) received() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

func TestClusterFailover(t *testing.T) {
	parallel(t)
	c := storetest.StartReplicatedCluster(t)
	b := storetest.ClusterBackend(t, c)
	// A short send queue makes the catch-up after the failover's gap too
	// long to queue (it takes half of it), so that the fans are closed with
	// 1012 and resume, as they do with the default queue when more posts
	// fall in the gap: the resume must not skip the gap's posts.
	env := []string{"MICROBLOG_LOG_LEVEL=info", "MICROBLOG_WS_QUEUE=20"}
	procs := []*testServer{startOn(t, b, env...), startOn(t, b, env...)}
	const nAuthors, nFans, perAuthor = 6, 4, 30

	var authors []*failoverAuthor
	for i := range nAuthors {
		ts := procs[i%2]
		name := fmt.Sprintf("author%d", i)
		tok, _ := ts.register(t, name)
		authors = append(authors, &failoverAuthor{ts: ts, token: tok, name: name, tries: map[int]int{}})
	}
	var fans []*failoverFan
	for i := range nFans {
		ts := procs[i%2]
		tok, _ := ts.register(t, fmt.Sprintf("fan%d", i))
		for _, a := range authors {
			ts.follow(t, tok, a.name, true)
		}
		fans = append(fans, &failoverFan{ts: ts, token: tok})
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	readCtx, stopReading := context.WithCancel(context.Background())
	defer stopReading()
	var readers sync.WaitGroup
	for _, f := range fans {
		ws := f.ts.dialWS(t, f.token, "")
		ws.ready(t)
		readers.Go(func() { f.run(t, readCtx, ws) })
	}
	var writers sync.WaitGroup
	for _, a := range authors {
		writers.Go(func() { a.run(ctx, perAuthor, 30*time.Millisecond) })
	}

	// The kill, once every author has had a few posts acknowledged. (Only
	// the authors' goroutines write acked; the count is read racily for
	// pacing only, so it is read through the fans' logs instead.)
	deadline := time.Now().Add(time.Minute)
	for len(fans[0].received()) < nAuthors*5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	c.Fail(0)
	took := c.FailedOver(0)
	writers.Wait()

	var acked []int64
	ackedSet := map[int64]bool{}
	for _, a := range authors {
		if a.err != nil {
			t.Fatal(a.err)
		}
		if len(a.acked) != perAuthor {
			t.Fatalf("%s: %d posts acknowledged, want %d", a.name, len(a.acked), perAuthor)
		}
		for _, id := range a.acked {
			if ackedSet[id] {
				t.Fatalf("%s: post %d acknowledged for two keys", a.name, id)
			}
			ackedSet[id] = true
		}
		acked = append(acked, a.acked...)
		t.Logf("%s: failed attempts by status %v", a.name, a.tries)
	}

	// Live: every acknowledged post once, each author's in order, nothing
	// unacknowledged.
	authorOf := map[int64]int{}
	for i, a := range authors {
		for _, id := range a.acked {
			authorOf[id] = i
		}
	}
	for _, f := range fans {
		waitUntil := time.Now().Add(time.Minute)
		for len(f.received()) < len(acked) && time.Now().Before(waitUntil) && f.failed() == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
	stopReading()
	readers.Wait()
	for i, f := range fans {
		if f.err != nil {
			t.Errorf("fan %d: %v", i, f.err)
		}
		got := f.received()
		seen := map[int64]int{}
		last := make([]int64, nAuthors)
		for _, id := range got {
			seen[id]++
			if !ackedSet[id] {
				t.Errorf("fan %d got post %d live, which was never acknowledged", i, id)
				continue
			}
			if a := authorOf[id]; id < last[a] {
				t.Errorf("fan %d got post %d of %s after its post %d", i, id, authors[a].name, last[a])
			} else {
				last[a] = id
			}
		}
		var missing, twice []int64
		for _, id := range acked {
			switch seen[id] {
			case 0:
				missing = append(missing, id)
			case 1:
			default:
				twice = append(twice, id)
			}
		}
		if len(missing) > 0 || len(twice) > 0 {
			logListeners(t, c, authors)
			byAuthor := map[string]int{}
			for _, id := range missing {
				byAuthor[authors[authorOf[id]].name]++
			}
			t.Logf("fan %d misses posts of %v", i, byAuthor)
			t.Errorf("fan %d live: %d of %d acknowledged posts missing %v, %d twice %v (%d resumes, after %v)", i, len(missing), len(acked), missing, len(twice), twice, f.resumes, f.afters)
		}
	}

	// Home timelines and counters, read through either process.
	for i, f := range fans {
		home := procs[(i+1)%2].homeIDs(t, f.token, 100, "")
		count := map[int64]int{}
		for _, id := range home {
			count[id]++
		}
		for _, id := range acked {
			if count[id] != 1 {
				t.Errorf("fan %d: acknowledged post %d is %d times on its home timeline", i, id, count[id])
			}
		}
		if len(home) != len(acked) {
			t.Errorf("fan %d: %d posts on its home timeline, want the %d acknowledged", i, len(home), len(acked))
		}
	}
	for _, a := range authors {
		status, body := a.ts.call(t, "GET", "/api/v1/users/"+a.name, "", nil)
		var u struct {
			PostsCount int64 `json:"posts_count"`
		}
		mustDecode(t, body, &u)
		if status != http.StatusOK || u.PostsCount != perAuthor {
			t.Errorf("%s: posts_count %d (%d), want %d", a.name, u.PostsCount, status, perAuthor)
		}
	}
	resumes := 0
	for _, f := range fans {
		resumes += f.resumes
	}
	t.Logf("failover took %v; %d posts acknowledged; %d live resumes", took, len(acked), resumes)
}

// logListeners logs how many connections listen to each author's channel
// on each master: what a fan that misses posts live needs looked at.
func logListeners(t *testing.T, c *storetest.Cluster, authors []*failoverAuthor) {
	for _, a := range authors {
		status, body := a.ts.call(t, "GET", "/api/v1/users/"+a.name, "", nil)
		var u struct{ ID int64 }
		mustDecode(t, body, &u)
		ch := shardChannel(u.ID)
		var on []string
		for i, m := range c.Masters {
			n, err := m.Client().Do(context.Background(), "PUBSUB", "SHARDNUMSUB", ch).Slice()
			on = append(on, fmt.Sprintf("master %d (%s): %v %v", i, m.Addr(), n, err))
		}
		t.Logf("%s (%d) %s: %s listeners %v", a.name, u.ID, ch, http.StatusText(status), on)
	}
	for i, m := range c.Masters {
		stats, _ := m.Client().Info(context.Background(), "commandstats").Result()
		for _, line := range strings.Split(stats, "\n") {
			if strings.Contains(line, "spublish") || strings.Contains(line, "ssubscribe") {
				t.Logf("master %d: %s", i, strings.TrimSpace(line))
			}
		}
	}
}
