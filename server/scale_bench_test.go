package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"microblog/store/storetest"
)

// BenchmarkScaleOut posts and delivers live on one Redis and on a Redis
// Cluster of 3 masters, with 1, 2 and 4 server processes, side by side in
// one run, and prints its own table (Go's ns/op line means nothing here).
// It runs once, whatever b.N:
//
//	go test -run '^$' -bench BenchmarkScaleOut -benchtime 1x -timeout 30m ./server
//
// Environment: SCALE_BENCH_SECONDS (default 8) of posting per cell.
//
// Each cell starts its own Redis (or cluster) and server processes (the
// built binary, archive off, limits off), signs up 20 authors and 500
// fans (25 per author), connects every fan's WebSocket to process
// fan % procs, then 16 clients post for the set time, each post through
// process post % procs. Delivery latency is from the post request's start
// to the fan's receipt of the event; lost counts the deliveries expected
// but not seen 3 s after the last post. Everything runs on this machine:
// the load tool, the server processes and Redis share its cores.
func BenchmarkScaleOut(b *testing.B) {
	seconds := 8
	if v := os.Getenv("SCALE_BENCH_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("SCALE_BENCH_SECONDS=%q: want a positive number", v)
		}
		seconds = n
	}
	bin := serverBinary(b)
	var rows []scaleRow
	for _, backend := range []string{"one Redis", "cluster (3 masters)"} {
		for _, procs := range []int{1, 2, 4} {
			rows = append(rows, scaleRun(b, bin, backend, procs, time.Duration(seconds)*time.Second))
		}
	}
	fmt.Printf("\n### Scale-out: %d s of posting per cell, 16 posting clients, 20 authors × 25 fans on WebSockets\n\n", seconds)
	fmt.Println("| Redis | server processes | posts/s | deliveries/s | delivery p50 | p99 | lost | Redis CPU per post | servers' CPU per post |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %.0f | %.0f | %s | %s | %d | %s | %s |\n", r.backend, r.procs, r.postsPerSec, r.deliveriesPerSec,
			r.p50.Round(100*time.Microsecond), r.p99.Round(100*time.Microsecond), r.lost, r.redisCPU.Round(time.Microsecond), r.serverCPU.Round(time.Microsecond))
	}
	fmt.Printf("\nReproduce with: go test -run '^$' -bench BenchmarkScaleOut -benchtime 1x -timeout 30m ./server\n")
}

type scaleRow struct {
	backend                       string
	procs                         int
	postsPerSec, deliveriesPerSec float64
	p50, p99                      time.Duration
	lost                          int
	redisCPU, serverCPU           time.Duration // per post
}

func scaleRun(b *testing.B, bin, backend string, procs int, d time.Duration) scaleRow {
	var be *storetest.Backend
	var masters []*storetest.Redis
	if strings.HasPrefix(backend, "cluster") {
		c := storetest.StartCluster(b)
		be, masters = storetest.ClusterBackend(b, c), c.Masters
	} else {
		r := storetest.Start(b)
		be, masters = storetest.SingleBackend(b, r), []*storetest.Redis{r}
	}
	env := []string{"MICROBLOG_ARCHIVE=off", "MICROBLOG_LOG_LEVEL=warn", "MICROBLOG_MAX_CONNS_PER_IP=0",
		"MICROBLOG_WS_MAX_PER_IP=0", "MICROBLOG_WS_MAX_PER_USER=0"}
	servers := make([]*testServer, procs)
	ps := make([]*process, procs)
	for i := range procs {
		ps[i] = startProcess(b, bin, be, env...)
		servers[i] = &testServer{t: b, URL: ps[i].URL}
	}
	const authors, fansEach, posters = 20, 25, 16
	tokens := make([]string, authors)
	fansOf := make([]int, authors)
	for a := range authors {
		tokens[a], _ = servers[0].register(b, fmt.Sprintf("author%d", a))
	}
	// Receipts: post id → when each delivery arrived.
	var mu sync.Mutex
	received := map[int64][]time.Time{}
	var conns []*websocket.Conn
	for f := range authors * fansEach {
		a := f % authors
		tok, _ := servers[0].register(b, fmt.Sprintf("fan%d", f))
		servers[0].follow(b, tok, fmt.Sprintf("author%d", a), true)
		fansOf[a]++
		ts := servers[f%procs]
		conn, _, err := websocket.DefaultDialer.Dial(ts.wsURL(""), http.Header{"Authorization": {"Bearer " + tok}})
		if err != nil {
			b.Fatalf("dial fan %d: %v", f, err)
		}
		conns = append(conns, conn)
		go func() {
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				at := time.Now()
				var fr struct {
					Event string
					Data  struct{ ID int64 }
				}
				if json.Unmarshal(msg, &fr) == nil && fr.Event == "post" {
					mu.Lock()
					received[fr.Data.ID] = append(received[fr.Data.ID], at)
					mu.Unlock()
				}
			}
		}()
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	time.Sleep(500 * time.Millisecond) // every socket subscribed

	redisBefore, serversBefore := redisCPU(b, masters), processesCPU(ps)
	sent := map[int64]struct {
		at     time.Time
		author int
	}{}
	var seq atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range posters {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				n := seq.Add(1)
				a := int(n % authors)
				at := time.Now()
				p, err := postOnce(servers[int(n)%procs].URL, tokens[a], "scale "+strconv.FormatInt(n, 10))
				if err != nil || p.ID == 0 {
					continue
				}
				mu.Lock()
				sent[p.ID] = struct {
					at     time.Time
					author int
				}{at, a}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	redisAfter, serversAfter := redisCPU(b, masters), processesCPU(ps)
	time.Sleep(3 * time.Second) // the last deliveries

	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	expected := 0
	for id, s := range sent {
		expected += fansOf[s.author]
		for _, at := range received[id] {
			lat = append(lat, at.Sub(s.at))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	n := max(1, len(sent))
	return scaleRow{backend: backend, procs: procs,
		postsPerSec: float64(len(sent)) / elapsed.Seconds(), deliveriesPerSec: float64(len(lat)) / elapsed.Seconds(),
		p50: pct(0.50), p99: pct(0.99), lost: expected - len(lat),
		redisCPU: (redisAfter - redisBefore) / time.Duration(n), serverCPU: (serversAfter - serversBefore) / time.Duration(n)}
}

// redisCPU is the CPU time the masters have used (INFO cpu, user + system).
func redisCPU(b *testing.B, masters []*storetest.Redis) time.Duration {
	var total time.Duration
	for _, m := range masters {
		c := redis.NewClient(&redis.Options{Addr: m.Addr()})
		info := c.Info(context.Background(), "cpu").Val()
		c.Close()
		for _, f := range []string{"used_cpu_sys", "used_cpu_user"} {
			v, _ := strconv.ParseFloat(infoField(info, f), 64)
			total += time.Duration(v * float64(time.Second))
		}
	}
	return total
}

// processesCPU is the CPU time the server processes have used (/proc).
func processesCPU(ps []*process) time.Duration {
	var total time.Duration
	for _, p := range ps {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			continue
		}
		// Fields after the command name: utime and stime are the 12th and 13th.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			total += time.Duration(u+s) * (time.Second / 100) // clock ticks of 1/100 s
		}
	}
	return total
}
