package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fed/httpsig"

	"microblog/store"
)

// BenchmarkFedInInbound is the inbound side of issue 43's figures: signed
// Create activities (draft-cavage, each checked against its actor's key
// and its Digest) sent into the shared inbox at a steady rate from 20
// remote accounts that one local user follows, with her live socket open.
// It reports the rate the inbox kept, the CPU of this process (the server,
// and the test's own client sending the pre-signed requests and reading
// the socket; Redis runs apart) per activity, and the delay from the
// inbox's 202 to the post's frame on the socket (p50, p99, max; a frame
// that came before the 202 counts 0), and from the request's sending to
// the frame.
//
//	go test -count=1 -run '^$' -bench FedInInbound -benchtime 1x ./server
func BenchmarkFedInInbound(b *testing.B) {
	const (
		actors  = 20
		rate    = 1000 // activities a second
		total   = 5000
		senders = 64
	)
	ts := newFedServer(b)
	peer := newFakePeer(b)
	tok, _ := ts.register(b, "alice")
	for i := range actors {
		name := "r" + strconv.Itoa(i)
		peer.addActor(name)
		ts.follow(b, tok, url.PathEscape(peer.handle(name)), true)
	}
	ws := ts.dialWS(b, tok, "")
	ws.ready(b)

	// Every request is signed before the clock starts.
	type job struct {
		req  *http.Request
		body []byte
	}
	jobs := make([]job, total)
	for i := range jobs {
		name := "r" + strconv.Itoa(i%actors)
		id := peer.actor(name) + "/notes/b" + strconv.Itoa(i)
		body, _ := json.Marshal(map[string]any{"@context": "https://www.w3.org/ns/activitystreams",
			"id": id + "/activity", "type": "Create", "actor": peer.actor(name),
			"object": map[string]any{"id": id, "type": "Note", "attributedTo": peer.actor(name),
				"content": "<p>bench " + strconv.Itoa(i) + "</p>", "to": []string{"https://www.w3.org/ns/activitystreams#Public"}}})
		req, _ := http.NewRequest("POST", ts.URL+"/ap/inbox", nil)
		req.Header.Set("Content-Type", "application/activity+json")
		req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
		req.Header.Set("Host", req.URL.Host)
		s, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
			[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.SignRequest(peer.key(name), peer.actor(name)+"#main-key", req, body); err != nil {
			b.Fatal(err)
		}
		jobs[i] = job{req, body}
	}

	var mu sync.Mutex
	accepted := make(map[int]time.Time, total)
	sentAt := make(map[int]time.Time, total)
	arrived := make(map[int]time.Time, total)
	done := make(chan struct{})
	go func() { // the socket's reader
		defer close(done)
		for len(arrived) < total {
			f := ws.Next(b, hangWait)
			if f.Event != store.EventPost {
				continue
			}
			var p store.Post
			json.Unmarshal(f.Data, &p)
			n, err := strconv.Atoi(strings.TrimPrefix(p.Content, "bench "))
			if err != nil {
				continue
			}
			mu.Lock()
			arrived[n] = time.Now()
			mu.Unlock()
		}
	}()

	queue := make(chan int, total)
	failed := 0
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	for range senders {
		wg.Go(func() {
			for i := range queue {
				j := jobs[i]
				req := j.req.Clone(j.req.Context())
				req.Body = io.NopCloser(bytes.NewReader(j.body))
				req.ContentLength = int64(len(j.body))
				mu.Lock()
				sentAt[i] = time.Now()
				mu.Unlock()
				resp, err := client.Do(req)
				now := time.Now()
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				if err == nil && resp.StatusCode == http.StatusAccepted {
					accepted[i] = now
				} else {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	startCPU, start := cpuTime(b), time.Now()
	tick := time.Second / rate
	for i := range total {
		if wait := time.Until(start.Add(time.Duration(i) * tick)); wait > 0 {
			time.Sleep(wait)
		}
		queue <- i
	}
	close(queue)
	wg.Wait()
	sent := time.Since(start)
	select {
	case <-done:
	case <-time.After(hangWait):
		b.Fatalf("only %d of %d posts reached the socket", len(arrived), total)
	}
	cpu := cpuTime(b) - startCPU
	var delays, whole []time.Duration
	mu.Lock()
	for i, at := range arrived {
		if acc, ok := accepted[i]; ok {
			delays = append(delays, max(0, at.Sub(acc)))
			whole = append(whole, at.Sub(sentAt[i]))
		}
	}
	mu.Unlock()
	slices.Sort(delays)
	slices.Sort(whole)
	pct := func(p float64) time.Duration { return delays[int(p*float64(len(delays)-1))] }
	wpct := func(p float64) time.Duration { return whole[int(p*float64(len(whole)-1))] }
	b.ReportMetric(float64(total)/sent.Seconds(), "activities/s")
	b.ReportMetric(float64(cpu.Microseconds())/total, "cpu-µs/activity")
	b.ReportMetric(float64(pct(0.99).Milliseconds()), "p99-ms")
	b.ReportMetric(float64(wpct(0.99).Milliseconds()), "sent-p99-ms")
	fmt.Printf("inbound: %d signed Creates from %d accounts at %d/s asked: %.0f/s kept, %d refused; CPU %.0f µs/activity (server and client); "+
		"delay 202 → socket p50 %v p99 %v max %v; request sent → socket p50 %v p99 %v max %v\n",
		total, actors, rate, float64(total)/sent.Seconds(), failed, float64(cpu.Microseconds())/total,
		pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), delays[len(delays)-1].Round(time.Millisecond),
		wpct(0.5).Round(time.Millisecond), wpct(0.99).Round(time.Millisecond), whole[len(whole)-1].Round(time.Millisecond))
}
