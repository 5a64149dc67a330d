package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// BenchmarkTimelinePage compares a home timeline page of 20 posts read
// through the Mastodon API with the same page through the native API,
// side by side in one run, by the CPU time of this process (the server and
// the client that calls it; Redis runs apart) per page. The goal:
// the Mastodon page costs at most 1.3 times the native one.
//
//	go test -run '^$' -bench TimelinePage ./server
func BenchmarkTimelinePage(b *testing.B) {
	ts := newTestServer(b)
	mst, _ := ts.mastodonUser(b, "reader", "")
	native := ts.loginToken(b, "reader", testPassword)
	star, _ := ts.register(b, "star")
	ts.follow(b, native, "star", true)
	for i := range 20 {
		ts.newPost(b, star, fmt.Sprintf("post %d with #tag and @reader", i))
	}
	pages := []struct {
		name, path, token string
	}{
		{"native", "/api/v1/timelines/home?limit=20", native},
		{"mastodon", "/api/v1/timelines/home?limit=20&max_id=9223372036854775807", mst},
	}
	read := func(path, token string) {
		resp := ts.do(b, http.MethodGet, path, token, nil, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	for _, p := range pages { // warm both (caches, connections)
		for range 50 {
			read(p.path, p.token)
		}
	}
	spent := make([]time.Duration, len(pages))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, p := range pages { // interleaved, so that both see the same machine
			start := cpuTime(b)
			read(p.path, p.token)
			spent[j] += cpuTime(b) - start
		}
	}
	b.StopTimer()
	for j, p := range pages {
		b.ReportMetric(float64(spent[j].Microseconds())/float64(b.N), p.name+"-cpu-µs/page")
	}
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "mastodon/native")
}
