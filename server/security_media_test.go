package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"microblog/store/media/mediatest"
)

// bombAnswerTime is how long an upload of a decompression bomb may take to
// be refused before the test calls it a hang. It is not the measure of
// "from its headers, without decoding a pixel": the heap's growth is (a
// decoded bomb takes gigabytes); a busy machine took over 2 s to answer
// one, in 80 to 260 ms when quiet.
const bombAnswerTime = 60 * time.Second

// imageBombs are the uploads of the security probe: files of a
// few hundred kilobytes that decode to gigabytes.
func imageBombs() []struct {
	name string
	file []byte
} {
	return []struct {
		name string
		file []byte
	}{
		{"frames.gif", mediatest.GIF(8000, 8000, 32)},  // 1.4 MB, 2 GB of frames
		{"deep.png", mediatest.PNG(8000, 8000, 16, 2)}, // 373 KB, 512 MB of 16-bit pixels
	}
}

// uploadWithin uploads file and fails t unless the answer comes within limit.
func (ts *testServer) uploadWithin(t *testing.T, tok, name string, file []byte, limit time.Duration) (int, []byte, time.Duration) {
	t.Helper()
	type answer struct {
		status int
		body   []byte
	}
	start := time.Now()
	done := make(chan answer, 1)
	go func() {
		status, body := ts.upload(t, "POST", "/media", tok, name, file, "")
		done <- answer{status, body}
	}()
	select {
	case a := <-done:
		return a.status, a.body, time.Since(start)
	case <-time.After(limit):
		t.Fatalf("upload of %s (%d KB) not answered within %v", name, len(file)>>10, limit)
		return 0, nil, 0
	}
}

// TestSecurityImageBombs: each bomb of the probe is refused with 413
// media_too_large, growing the heap by megabytes, and three at once hardly grow the
// server's memory (the probe saw 2.4 GB for the GIF and 2.96 GB for three
// PNGs).
//
// Not parallel: it measures this process's heap, which tests running
// beside it would grow.
func TestSecurityImageBombs(t *testing.T) {
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	bombs := imageBombs()
	const budget = 256 << 20
	for _, b := range bombs {
		var status int
		var body []byte
		var took time.Duration
		g := mediatest.Measure(func() { status, body, took = ts.uploadWithin(t, tok, b.name, b.file, bombAnswerTime) })
		t.Logf("%s (%d KB): %d in %v, heap peak +%.1f MiB, allocated %.1f MiB",
			b.name, len(b.file)>>10, status, took.Round(time.Millisecond), mediatest.MiB(g.Peak), mediatest.MiB(g.Allocated))
		if status != 413 || errorCode(t, body) != "media_too_large" {
			t.Errorf("upload of %s: %d %s, want 413 media_too_large", b.name, status, body)
		}
		if g.Peak >= budget {
			t.Errorf("an upload of %s grew the heap by %.0f MiB, want less than %d MiB", b.name, mediatest.MiB(g.Peak), budget>>20)
		}
	}

	for _, b := range bombs {
		g := mediatest.Measure(func() {
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Go(func() {
					status, body, _ := ts.uploadWithin(t, tok, fmt.Sprint(i, b.name), b.file, bombAnswerTime)
					if status != 413 {
						t.Errorf("one of three uploads of %s at once: %d %s", b.name, status, body)
					}
				})
			}
			wg.Wait()
		})
		t.Logf("three %s at once: heap peak +%.1f MiB, allocated %.1f MiB", b.name, mediatest.MiB(g.Peak), mediatest.MiB(g.Allocated))
		if g.Peak >= budget {
			t.Errorf("three uploads of %s at once grew the heap by %.0f MiB, want less than %d MiB", b.name, mediatest.MiB(g.Peak), budget>>20)
		}
	}
	if n := ts.mediaFiles(t); n != 0 {
		t.Errorf("refused uploads left %d files", n)
	}
}

// cpuTime is the CPU time this process (the test and its server) has used.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSecurityUploadStopsWhenClientLeaves: a client that gives up on an
// upload stops the work on it (the probe's client that left after 0.5 s
// still cost the server 7 s of CPU): from the moment it leaves until its
// request has ended (as 499, aborted), the server spends a fraction of the
// second of CPU the image would take.
//
// Not parallel: it counts this process's CPU time, which tests running
// beside it would spend too.
func TestSecurityUploadStopsWhenClientLeaves(t *testing.T) {
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "big.png")
	part.Write(mediatest.PNG(8000, 8000, 8, 3)) // accepted, and a second of CPU to re-encode
	mw.Close()
	// The client leaves 100 ms after the last byte of the upload is out, so
	// the server has it all, whatever the machine's load, and is at work on it.
	sent := &sentReader{r: bytes.NewReader(form.Bytes()), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/media", sent)
	req.ContentLength = int64(form.Len())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	answered := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case <-sent.done:
	case status := <-answered:
		t.Fatalf("answered %d before the upload was sent", status)
	}
	select {
	case <-time.After(100 * time.Millisecond):
		cancel()
	case status := <-answered:
		t.Fatalf("answered %d within 100ms: the test needs an upload that takes longer", status)
	}
	<-answered
	left := cpuTime(t)
	deadline := time.Now().Add(hangWait)
	for {
		_, body := ts.call(t, "GET", "/metrics", "", nil)
		if strings.Contains(string(body), `microblog_http_requests_total{method="POST",route="/api/v1/media",status="499"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the abandoned upload never ended as aborted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if spent := cpuTime(t) - left; spent > 300*time.Millisecond {
		t.Errorf("after the client left, its upload cost %v of CPU", spent)
	} else {
		t.Logf("after the client left, its upload cost %v of CPU", spent)
	}
}

// sentReader is a request body that says when its last byte has been read.
type sentReader struct {
	r    *bytes.Reader
	done chan struct{}
	once sync.Once
}

func (s *sentReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil {
		s.once.Do(func() { close(s.done) })
	}
	return n, err
}

// TestUploadCutShortIsAborted: a client that leaves half way through
// sending its upload is counted as gone (499), not as a bad request.
func TestUploadCutShortIsAborted(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "big.png")
	part.Write(mediatest.PNG(2000, 2000, 8, 3))
	mw.Close()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/media", pr)
	req.ContentLength = int64(form.Len())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			t.Errorf("answered %d to an upload cut short", resp.StatusCode)
		}
	}()
	if _, err := pw.Write(form.Bytes()[:form.Len()/2]); err != nil {
		t.Fatal(err)
	}
	cancel()
	pw.CloseWithError(context.Canceled)
	<-done
	deadline := time.Now().Add(hangWait)
	for {
		_, body := ts.call(t, "GET", "/metrics", "", nil)
		if strings.Contains(string(body), `microblog_http_requests_total{method="POST",route="/api/v1/media",status="499"}`) {
			break
		}
		if strings.Contains(string(body), `route="/api/v1/media",status="4`) {
			t.Fatalf("an upload cut short was counted as a bad request:\n%s", grepLines(string(body), "microblog_http_requests_total{method=\"POST\",route=\"/api/v1/media\""))
		}
		if time.Now().After(deadline) {
			t.Fatal("the upload cut short never ended as aborted")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
