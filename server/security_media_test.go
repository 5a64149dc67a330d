package main

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"microblog/store/media/mediatest"
)

// bombAnswerTime is how soon an upload of a decompression bomb must be
// refused: from its headers, without decoding a pixel.
const bombAnswerTime = 2 * time.Second

// imageBombs are the uploads of the security probe (issue 28): files of a
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
// media_too_large within a second or two, and three at once hardly grow the
// server's memory (the probe saw 2.4 GB for the GIF and 2.96 GB for three
// PNGs).
func TestSecurityImageBombs(t *testing.T) {
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	bombs := imageBombs()
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
	}

	const budget = 256 << 20
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
