package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"microblog/store"
	"microblog/store/storetest"
)

// BenchmarkPollVotes votes in one poll at a steady 1,000 votes a second
// (POLL_BENCH_RATE) for a bounded time (POLL_BENCH_SECONDS, default 5),
// each vote by a user of its own, against the built server binary on its
// own redis-server, while the poll's author and 20 fans watch it live over
// WebSockets. It prints its own table (Go's ns/op line means nothing here)
// and runs once, whatever b.N:
//
//	go test -run '^$' -bench BenchmarkPollVotes -benchtime 1x -timeout 10m ./server
//
// Server CPU per vote is the server process's CPU time (/proc) over the
// votes, Redis's the redis-server's (INFO cpu); live events are the poll
// frames the author's socket got and the server's
// microblog_poll_events_total. The load tool, the server and Redis share
// the machine's cores.
func BenchmarkPollVotes(b *testing.B) {
	rate, seconds := benchEnv(b, "POLL_BENCH_RATE", 1000), benchEnv(b, "POLL_BENCH_SECONDS", 5)
	bin := serverBinary(b)
	r := storetest.Start(b)
	p := startProcess(b, bin, storetest.SingleBackend(b, r), "MICROBLOG_ARCHIVE=off", "MICROBLOG_LOG_LEVEL=warn",
		"MICROBLOG_MAX_CONNS_PER_IP=0", "MICROBLOG_WS_MAX_PER_IP=0", "MICROBLOG_WS_MAX_PER_USER=0")
	ts := &testServer{t: b, URL: p.URL}
	author, _ := ts.register(b, "pollster")
	votes := rate * seconds
	voters := make([]string, votes)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(votes); i = next.Add(1) - 1 {
				voters[i], _ = ts.register(b, fmt.Sprintf("voter%d", i))
			}
		})
	}
	wg.Wait()
	const fans = 20
	var frames atomic.Int64 // poll frames on every watching socket
	var authorFrames atomic.Int64
	var lastVoters atomic.Int64
	watch := func(tok string, own bool) *websocket.Conn {
		conn, _, err := websocket.DefaultDialer.Dial(ts.wsURL(""), http.Header{"Authorization": {"Bearer " + tok}})
		if err != nil {
			b.Fatalf("dial: %v", err)
		}
		go func() {
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				var fr struct {
					Event string
					Data  store.PollData
				}
				if json.Unmarshal(msg, &fr) == nil && fr.Event == store.EventPoll {
					frames.Add(1)
					if own {
						authorFrames.Add(1)
						lastVoters.Store(fr.Data.Poll.VotersCount)
					}
				}
			}
		}()
		return conn
	}
	conns := []*websocket.Conn{watch(author, true)}
	for i := range fans {
		tok, _ := ts.register(b, fmt.Sprintf("watcher%d", i))
		ts.follow(b, tok, "pollster", true)
		conns = append(conns, watch(tok, false))
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	poll := ts.pollPost(b, author, "Which one?", map[string]any{"options": []string{"a", "b", "c", "d"}, "expires_in": 3600})
	time.Sleep(500 * time.Millisecond) // every socket subscribed

	serverBefore, redisBefore := processesCPU([]*process{p}), redisCPU(b, []*storetest.Redis{r})
	lat := make([]time.Duration, votes)
	var failed atomic.Int64
	jobs := make(chan int, votes)
	start := time.Now()
	for range 64 {
		wg.Go(func() {
			for i := range jobs {
				at := time.Now()
				status, _, _ := ts.vote(b, voters[i], poll.ID, i%4)
				lat[i] = time.Since(at)
				if status != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	for i := range votes { // each vote at its time, at once when behind
		if wait := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); wait > 0 {
			time.Sleep(wait)
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	serverCPU, redisUsed := processesCPU([]*process{p})-serverBefore, redisCPU(b, []*storetest.Redis{r})-redisBefore
	for deadline := time.Now().Add(5 * time.Second); lastVoters.Load() < int64(votes) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	_, body := ts.call(b, "GET", "/metrics", "", nil)
	published := metricValue(string(body), "microblog_poll_events_total")
	slices.Sort(lat)
	pct := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }

	fmt.Printf("\n### One poll, %d votes a second for %d s, %d live watchers (the author and %d fans)\n\n", rate, seconds, fans+1, fans)
	fmt.Println("| votes | votes/s | failed | vote p50 | p99 | server CPU per vote | Redis CPU per vote | poll events published | events per watcher | last event's voters |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	fmt.Printf("| %d | %.0f | %d | %s | %s | %s | %s | %.0f | %d | %d |\n", votes, float64(votes)/elapsed.Seconds(), failed.Load(),
		pct(0.5).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond),
		(serverCPU / time.Duration(votes)).Round(time.Microsecond), (redisUsed / time.Duration(votes)).Round(time.Microsecond),
		published, authorFrames.Load(), lastVoters.Load())
	fmt.Printf("\nframes delivered to all watchers: %d in %.1f s (at most %.0f a second per watcher)\n", frames.Load(), elapsed.Seconds(), float64(authorFrames.Load())/elapsed.Seconds())
	fmt.Printf("Reproduce with: go test -run '^$' -bench BenchmarkPollVotes -benchtime 1x -timeout 10m ./server\n")
}

// benchEnv reads a positive whole number from the environment, or def.
func benchEnv(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
