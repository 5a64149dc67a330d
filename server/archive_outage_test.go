package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
)

// archiveOutage is how long TestArchiveOutageUnderLoad keeps the archive
// away: MICROBLOG_TEST_ARCHIVE_OUTAGE (a Go duration, such as 5m for the
// issue's run), 3 s by default.
func archiveOutage(t *testing.T) time.Duration {
	v := os.Getenv("MICROBLOG_TEST_ARCHIVE_OUTAGE")
	if v == "" {
		return 3 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("MICROBLOG_TEST_ARCHIVE_OUTAGE=%q: want a Go duration such as 5m", v)
	}
	return d
}

// TestArchiveOutageUnderLoad takes the archive's MariaDB away while writers
// post, like and read: killed (a crash or an operator's stop, restarted on
// the same data) and frozen (SIGSTOP: a hung machine that holds its
// connections and answers nothing). Throughout, posts, likes and hot reads
// succeed; a read past the hot window answers 503 archive_unavailable
// within seconds, never 500; /readyz stays 200 and says the archive is not
// answering; /metrics shows microblog_archive_up 0 and a growing queue.
// Once the database is back the queue drains, and every acknowledged post
// is in the archive exactly once, with its likes.
func TestArchiveOutageUnderLoad(t *testing.T) {
	outage := archiveOutage(t)
	for _, mode := range []string{"kill", "freeze"} {
		t.Run(mode, func(t *testing.T) {
			parallel(t)
			db := archivetest.StartMariaDB(t)
			dsn := db.NewDatabase(t)
			ts := newTestServer(t, "MICROBLOG_ARCHIVE="+dsn, "MICROBLOG_HOT_WINDOW=10")
			down, up := db.Kill, func() { db.Restart(t) }
			if mode == "freeze" {
				down, up = func() { db.Freeze(t) }, func() { db.Thaw(t) }
			}
			archiveOutageRun(t, ts, dsn, outage, down, up)
		})
	}
}

// outageLoad is the steady load of archiveOutageRun: writers posting,
// liking each other's posts and reading hot pages, and what they were told.
type outageLoad struct {
	ts      *testServer
	names   []string
	tokens  []string
	mu      sync.Mutex
	posts   map[string][]int64        // acknowledged posts by author, oldest first
	likes   map[int64]map[string]bool // acknowledged likes: mid → likers
	failure []string                  // requests that failed, for the report
}

func (l *outageLoad) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failure) < 20 {
		l.failure = append(l.failure, fmt.Sprintf(format, args...))
	}
}

// step is one round of writer w: a post, a like of another writer's
// recent post, and a hot read of each timeline.
func (l *outageLoad) step(w, n int) {
	tok, name := l.tokens[w], l.names[w]
	key := fmt.Sprintf("%s-%d", name, n)
	resp := l.ts.do(l.ts.t, "POST", "/api/v1/posts", tok, map[string]string{"content": "load " + key},
		http.Header{"Idempotency-Key": {key}})
	var p store.Post
	err := jsonDecode(resp, &p)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil {
		l.fail("post %s: %d %v", key, resp.StatusCode, err)
		return
	}
	l.mu.Lock()
	l.posts[name] = append(l.posts[name], p.ID)
	other := l.names[(w+1+rand.IntN(len(l.names)-1))%len(l.names)]
	var like int64
	if ps := l.posts[other]; len(ps) > 0 {
		like = ps[max(0, len(ps)-1-rand.IntN(5))]
	}
	l.mu.Unlock()
	if like != 0 {
		if status, body := l.ts.call(l.ts.t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", like), tok, nil); status != http.StatusNoContent {
			l.fail("like %d by %s: %d %s", like, name, status, body)
		} else {
			l.mu.Lock()
			if l.likes[like] == nil {
				l.likes[like] = map[string]bool{}
			}
			l.likes[like][name] = true
			l.mu.Unlock()
		}
	}
	for _, path := range []string{"/api/v1/users/" + name + "/posts?limit=5", "/api/v1/timelines/home?limit=5", "/api/v1/timelines/public?limit=5"} {
		if status, body := l.ts.call(l.ts.t, "GET", path, tok, nil); status != http.StatusOK {
			l.fail("GET %s: %d %s", path, status, body)
		}
	}
}

// archiveOutageRun is TestArchiveOutageUnderLoad on one server whose
// archive (dsn) down takes away and up brings back.
func archiveOutageRun(t *testing.T, ts *testServer, dsn string, outage time.Duration, down, up func()) {
	rdb := ts.rdb()
	ctx := context.Background()
	l := &outageLoad{ts: ts, posts: map[string][]int64{}, likes: map[int64]map[string]bool{}}
	for i := range 4 {
		name := fmt.Sprint("writer", i)
		tok, _ := ts.register(t, name)
		l.names, l.tokens = append(l.names, name), append(l.tokens, tok)
	}
	for i := range l.names {
		for _, other := range l.names {
			if other != l.names[i] {
				ts.call(t, "PUT", "/api/v1/users/"+other+"/follow", l.tokens[i], nil)
			}
		}
	}
	for n := range 15 { // past the hot window of 10, so that some posts leave Redis
		for w := range l.names {
			l.step(w, n)
		}
	}
	archiveSettled(t, rdb)
	oldest := l.posts["writer0"][0]
	cold := coldCursor(t, ts, l.tokens[0])

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range l.names {
		wg.Go(func() {
			for n := 1000; ; n++ {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				l.step(w, n)
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	waitEvicted(t, rdb, oldest)
	before, memBefore := len(l.snapshot()), usedMemory(ts)
	down()
	began := time.Now()
	peak, back := make(chan int64, 1), make(chan struct{})
	go func() { // the archive queue's length, sampled until the database is back
		var most int64
		for !closed(back) {
			if n, err := rdb.XLen(ctx, keysOf(rdb).ArchiveQueue()).Result(); err == nil {
				most = max(most, n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		peak <- most
	}()
	// What a reader of cold posts, a load balancer and a scrape see.
	for _, path := range []string{fmt.Sprintf("/api/v1/posts/%d", oldest), "/api/v1/users/writer0/posts?limit=5&cursor=" + cold} {
		start := time.Now()
		status, body := ts.call(t, "GET", path, l.tokens[0], nil)
		if status != http.StatusServiceUnavailable || errorCode(t, body) != string(store.CodeArchiveUnavailable) {
			hot, _ := rdb.Exists(ctx, keysOf(rdb).Post(oldest)).Result()
			t.Errorf("GET %s with the archive down (%v after it went down; post %d's hash in Redis now: %v): %d %s, want 503 archive_unavailable",
				path, time.Since(began), oldest, hot == 1, status, body)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("GET %s with the archive down took %v", path, took)
		}
	}
	if status, body := ts.call(t, "GET", "/readyz", "", nil); status != http.StatusOK || !strings.Contains(string(body), `"archive":"not answering`) {
		t.Errorf("/readyz with the archive down: %d %s, want 200 saying it is not answering", status, body)
	}
	time.Sleep(outage - time.Since(began))
	_, metrics := ts.call(t, "GET", "/metrics", "", nil)
	if !strings.Contains(string(metrics), "\nmicroblog_archive_up 0\n") || metricValue(string(metrics), "microblog_archive_queue_length") == 0 ||
		metricValue(string(metrics), "microblog_archive_lag_seconds") == 0 {
		t.Errorf("/metrics with the archive down:\n%s", grepLines(string(metrics), "microblog_archive"))
	}
	close(back)
	most := <-peak
	during, grown := len(l.snapshot())-before, usedMemory(ts)-memBefore
	up()
	restored := time.Now()
	away := restored.Sub(began)
	drainArchiveQueue(t, rdb, restored, max(time.Minute, 2*outage))
	drained := time.Since(restored)
	close(stop)
	wg.Wait()
	archiveSettled(t, rdb)
	if len(l.failure) > 0 {
		t.Errorf("requests failed under load with the archive away:\n%s", strings.Join(l.failure, "\n"))
	}
	if during == 0 {
		t.Fatal("no post was made while the archive was away: the test proves nothing")
	}
	t.Logf("archive away %v: %d posts acknowledged meanwhile, archive queue up to %d entries, Redis grew by %d KB (%d bytes a post), drained %v after the database came back",
		away.Round(time.Millisecond), during, most, grown>>10, grown/int64(max(1, during)), drained.Round(time.Millisecond))

	_, metrics = ts.call(t, "GET", "/metrics", "", nil)
	if !strings.Contains(string(metrics), "\nmicroblog_archive_up 1\n") {
		t.Errorf("/metrics once the archive is back:\n%s", grepLines(string(metrics), "microblog_archive"))
	}
	if status, body := ts.call(t, "GET", "/readyz", "", nil); status != http.StatusOK || !strings.Contains(string(body), `"archive":"ok"`) {
		t.Errorf("/readyz once the archive is back: %d %s", status, body)
	}
	l.checkArchived(t, dsn)
}

// snapshot is every acknowledged post id.
func (l *outageLoad) snapshot() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var all []int64
	for _, ps := range l.posts {
		all = append(all, ps...)
	}
	return all
}

// checkArchived checks that the archive holds every acknowledged post once
// and nothing else, that each writer's posts page through the API in order,
// and that each liked post counts its likers.
func (l *outageLoad) checkArchived(t *testing.T, dsn string) {
	ctx := context.Background()
	db, err := archive.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := l.snapshot()
	rows, err := db.Posts(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	var missing []int64
	for _, mid := range all {
		if _, ok := rows[mid]; !ok {
			missing = append(missing, mid)
		}
	}
	n, tombstones, err := db.Count(ctx)
	if err != nil || len(missing) > 0 || n != int64(len(all)) || tombstones != 0 {
		t.Fatalf("the archive holds %d messages and %d tombstones (%v); %d posts acknowledged, missing %v",
			n, tombstones, err, len(all), missing)
	}
	for _, name := range l.names {
		want := slices.Clone(l.posts[name])
		slices.Reverse(want)
		var got []int64
		for path := "/api/v1/users/" + name + "/posts?limit=50"; ; {
			page := l.ts.page(t, l.tokens[0], path)
			got = append(got, ids(page.Items)...)
			if page.NextCursor == nil {
				break
			}
			path = "/api/v1/users/" + name + "/posts?limit=50&cursor=" + *page.NextCursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s's posts through the API after the outage: %d posts, want %d", name, len(got), len(want))
		}
	}
	for mid, likers := range l.likes {
		var p store.Post
		l.ts.getJSON(t, l.tokens[0], fmt.Sprintf("/api/v1/posts/%d", mid), &p)
		if p.LikesCount != int64(len(likers)) {
			t.Errorf("post %d counts %d likes, want %d", mid, p.LikesCount, len(likers))
		}
	}
}

// coldCursor is the cursor of writer0's third page of 5, past the hot
// window of 10: reading it needs the archive.
func coldCursor(t *testing.T, ts *testServer, tok string) string {
	path := "/api/v1/users/writer0/posts?limit=5"
	for range 2 {
		page := ts.page(t, tok, path)
		if page.NextCursor == nil {
			t.Fatal("writer0 has fewer than 3 pages")
		}
		path = "/api/v1/users/writer0/posts?limit=5&cursor=" + *page.NextCursor
	}
	return strings.TrimPrefix(path, "/api/v1/users/writer0/posts?limit=5&cursor=")
}

// waitEvicted waits up to hangWait for message mid to leave Redis: the archiver
// moves it out with the batch that saves its author's next post past the
// hot window (or its last like), a batch that may come after the queue
// looked empty once, while a cluster's write of that post was still landing.
func waitEvicted(t *testing.T, rdb redis.UniversalClient, mid int64) {
	t.Helper()
	keys := keysOf(rdb)
	for deadline := time.Now().Add(hangWait); ; time.Sleep(20 * time.Millisecond) {
		n, err := rdb.Exists(context.Background(), keys.Post(mid)).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			h, _ := rdb.HGetAll(context.Background(), keys.Post(mid)).Result()
			likers, _ := rdb.ZRange(context.Background(), keys.Likes(mid), 0, -1).Result()
			t.Fatalf("message %d is still in Redis past its hot window, its archive batch long done: %v, likers %v (%v)", mid, h, likers, err)
		}
	}
}

// drainArchiveQueue waits up to within for the archive queue to catch up:
// no entry left that was queued before since (the writers go on adding).
func drainArchiveQueue(t *testing.T, rdb redis.UniversalClient, since time.Time, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		first, err := rdb.XRangeN(context.Background(), keysOf(rdb).ArchiveQueue(), "-", "+", 1).Result()
		if err == nil && (len(first) == 0 || first[0].ID > fmt.Sprint(since.UnixMilli())) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the archive queue still holds entries from before the archive came back, %v after (%v)", within, err)
		}
	}
}

// metricValue is the value of an unlabelled metric in a scrape, 0 if absent.
func metricValue(scrape, name string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(scrape)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// closed tells whether c is closed.
func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// usedMemory is the used_memory of the server's Redis; 0 on a cluster.
func usedMemory(ts *testServer) int64 {
	if ts.Redis == nil {
		return 0
	}
	n, _ := strconv.ParseInt(infoField(ts.rdb().Info(context.Background(), "memory").Val(), "used_memory"), 10, 64)
	return n
}

// TestArchiveBacklogRefusesNewPosts: with the archive away long enough that
// its queue holds MICROBLOG_ARCHIVE_QUEUE_MAX entries, a new post, comment,
// repost or private message answers 503 archive_backlog and writes nothing,
// while likes, follows and reads go on; the metric counts the refusals, and
// once the archive is back and the queue drains, posting works again.
func TestArchiveBacklogRefusesNewPosts(t *testing.T) {
	parallel(t)
	db := archivetest.StartMariaDB(t)
	ts := newTestServer(t, "MICROBLOG_ARCHIVE="+db.NewDatabase(t), "MICROBLOG_ARCHIVE_QUEUE_MAX=100")
	rdb := ts.rdb()
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	ts.follow(t, bob, "alice", true)
	first := ts.newPost(t, alice, "before")
	archiveSettled(t, rdb)

	db.Kill()
	var n int
	for ; n < 200; n++ {
		status, body := ts.call(t, "POST", "/api/v1/posts", alice, map[string]string{"content": fmt.Sprint("post ", n)})
		if status == http.StatusServiceUnavailable {
			if code := errorCode(t, body); code != string(store.CodeArchiveBacklog) {
				t.Fatalf("post %d with the archive queue full: 503 %s, want archive_backlog", n, body)
			}
			break
		}
		if status != http.StatusCreated {
			t.Fatalf("post %d with the archive away: %d %s", n, status, body)
		}
	}
	queued, _ := rdb.XLen(context.Background(), keysOf(rdb).ArchiveQueue()).Result()
	if n == 200 || queued < 100 {
		t.Fatalf("%d posts acknowledged with the archive away (queue %d), none refused", n, queued)
	}
	t.Logf("refused after %d posts, with %d entries queued", n, queued)
	wantPosts := func(want int) {
		t.Helper()
		page := ts.page(t, alice, "/api/v1/users/alice/posts?limit=1")
		if len(page.Items) == 0 || page.Items[0].Content != fmt.Sprint("post ", want-1) {
			t.Fatalf("alice's newest post is %v, want post %d", page.Items, want-1)
		}
	}
	wantPosts(n) // the refused post wrote nothing

	for _, w := range []struct {
		what, path string
		body       any
	}{
		{"comment", fmt.Sprintf("/api/v1/posts/%d/comments", first), map[string]string{"content": "a comment"}},
		{"repost", "/api/v1/posts", map[string]any{"content": "", "repost_of": first}},
		{"private message", "/api/v1/conversations/bob/messages", map[string]string{"content": "hi"}},
	} {
		tok := bob
		if w.what == "private message" {
			tok = alice // to a fan
		}
		if status, body := ts.call(t, "POST", w.path, tok, w.body); status != http.StatusServiceUnavailable || errorCode(t, body) != string(store.CodeArchiveBacklog) {
			t.Errorf("%s with the archive queue full: %d %s, want 503 archive_backlog", w.what, status, body)
		}
	}
	if status, body := ts.call(t, "PUT", fmt.Sprintf("/api/v1/posts/%d/like", first), bob, nil); status != http.StatusNoContent {
		t.Errorf("like with the archive queue full: %d %s", status, body)
	}
	if status, body := ts.call(t, "GET", "/api/v1/timelines/home?limit=5", bob, nil); status != http.StatusOK {
		t.Errorf("home with the archive queue full: %d %s", status, body)
	}
	_, metrics := ts.call(t, "GET", "/metrics", "", nil)
	if metricValue(string(metrics), "microblog_archive_backlog_refusals_total") < 4 {
		t.Errorf("/metrics with the archive queue full:\n%s", grepLines(string(metrics), "microblog_archive"))
	}

	db.Restart(t)
	drainArchiveQueue(t, rdb, time.Now(), time.Minute)
	if status, body := ts.call(t, "POST", "/api/v1/posts", alice, map[string]string{"content": fmt.Sprint("post ", n)}); status != http.StatusCreated {
		t.Fatalf("a post once the archive queue drained: %d %s", status, body)
	}
	wantPosts(n + 1)
}
