package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/storetest"
)

// archiveSettled waits until the fan-out and archive queues are empty.
func archiveSettled(t testing.TB, rdb redis.UniversalClient) {
	t.Helper()
	settle(t, rdb)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		n, err := rdb.XLen(context.Background(), keysOf(rdb).ArchiveQueue()).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the archive queue still holds %d entries (%v)", n, err)
		}
	}
}

// TestArchiveThroughTheAPI: with a hot window of 10, 40 posts page through
// the API past the window, the oldest opens by id, its hash has left Redis,
// and /readyz and /metrics report the archive.
func TestArchiveThroughTheAPI(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	rdb := ts.rdb()
	tok, _ := ts.register(t, "writer")
	var want []int64
	for i := range 40 {
		want = append(want, ts.post(t, tok, fmt.Sprint("post ", i), 0).ID)
	}
	archiveSettled(t, rdb)
	slices.Reverse(want)
	var got []int64
	for path := "/api/v1/users/writer/posts?limit=15"; ; {
		page := ts.page(t, tok, path)
		got = append(got, ids(page.Items)...)
		if page.NextCursor == nil {
			break
		}
		path = "/api/v1/users/writer/posts?limit=15&cursor=" + *page.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Fatalf("user posts through the API: %v, want %v", got, want)
	}
	oldest := want[len(want)-1]
	if rdb.Exists(context.Background(), keysOf(rdb).Post(oldest)).Val() != 0 {
		t.Fatal("the oldest post's hash is still in Redis")
	}
	status, body := ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", oldest), tok, nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"post 0"`) {
		t.Fatalf("oldest post by id: %d %s", status, body)
	}
	status, body = ts.call(t, "GET", "/readyz", "", nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"archive":"ok"`) {
		t.Fatalf("/readyz: %d %s", status, body)
	}
	_, body = ts.call(t, "GET", "/metrics", "", nil)
	if !strings.Contains(string(body), "microblog_archive_rows_total 40") ||
		!strings.Contains(string(body), "microblog_archive_queue_length 0") {
		t.Fatalf("/metrics lacks the archive's figures:\n%s", grepLines(string(body), "microblog_archive"))
	}
}

func grepLines(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestArchiveSurvivesSIGKILL: a server process is killed with SIGKILL while
// eight clients post as fast as they can; another process started on the
// same Redis and archive finishes the archiving, and every post that was
// acknowledged is in the archive exactly once.
func TestArchiveSurvivesSIGKILL(t *testing.T) {
	parallel(t)
	bin := serverBinary(t)
	r := storetest.NewBackend(t)
	rdb := r.Client()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "archive.db")
	env := []string{"MICROBLOG_ARCHIVE=" + dsn, "MICROBLOG_HOT_WINDOW=20"}
	a := startProcess(t, bin, r, env...)
	ts := &testServer{t: t, URL: a.URL}
	var mu sync.Mutex
	var acked []int64
	var wg sync.WaitGroup
	for w := range 8 {
		tok, _ := ts.register(t, fmt.Sprint("writer", w))
		wg.Go(func() {
			for i := 0; ; i++ {
				resp, err := postOnce(ts.URL, tok, fmt.Sprintf("burst %d-%d", w, i))
				if err != nil {
					return // the server is gone
				}
				if resp.ID != 0 {
					mu.Lock()
					acked = append(acked, resp.ID)
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	a.cmd.Process.Signal(syscall.SIGKILL)
	a.cmd.Wait()
	wg.Wait()
	pending := rdb.XLen(context.Background(), keysOf(rdb).ArchiveQueue()).Val()
	t.Logf("killed after %d acknowledged posts, %d archive entries queued", len(acked), pending)

	b := startProcess(t, bin, r, append(env, "MICROBLOG_FANOUT_CLAIM_IDLE=300ms")...)
	archiveSettled(t, rdb)
	db, err := archive.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Posts(context.Background(), acked)
	if err != nil {
		t.Fatal(err)
	}
	var missing []int64
	for _, mid := range acked {
		if a, ok := rows[mid]; !ok || a.Deleted || !strings.HasPrefix(a.Content, "burst ") {
			missing = append(missing, mid)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged posts are not in the archive: %v\n%s", len(missing), len(acked), missing[:min(10, len(missing))], b.logs.String())
	}
	// Every acknowledged post still opens by id, wherever it lives now.
	bt := &testServer{t: t, URL: b.URL}
	for _, mid := range []int64{acked[0], acked[len(acked)/2], acked[len(acked)-1]} {
		if status, body := bt.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", mid), "", nil); status != http.StatusOK {
			t.Fatalf("post %d after the restart: %d %s", mid, status, body)
		}
	}
}

// postOnce posts content; a post the server refused has ID 0, and err is
// set only when the server could not be reached.
func postOnce(url, token, content string) (store.Post, error) {
	req, _ := http.NewRequest("POST", url+"/api/v1/posts", strings.NewReader(fmt.Sprintf(`{"content":%q}`, content)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return store.Post{}, err
	}
	defer resp.Body.Close()
	var p store.Post
	if resp.StatusCode == http.StatusCreated {
		if err := jsonDecode(resp, &p); err != nil {
			return store.Post{}, nil // cut off mid-answer: not acknowledged
		}
	}
	return p, nil
}
