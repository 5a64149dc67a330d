// Command loadtest measures the live feed end to end: it signs up authors
// and fans on a running server, connects every fan's WebSocket, has the
// authors post at a steady rate over HTTP, and reports how many events
// arrived, how many were lost, the delay from the post request to receipt
// (p50/p99/max), and the server's memory per connection.
//
// Start the server with rate limits and connection caps off and fast password
// hashing, e.g.
//
//	redis-server --port 6390 --save '' --maxclients 20000 &
//	REDIS_URL=redis://127.0.0.1:6390/0 MICROBLOG_ADDR=127.0.0.1:8090 \
//	  MICROBLOG_RATE_LIMITS=off MICROBLOG_WS_MAX_PER_IP=0 MICROBLOG_MAX_CONNS_PER_IP=0 \
//	  MICROBLOG_BCRYPT_COST=4 MICROBLOG_LOG_LEVEL=warn go run ./server &
//	go run ./hub/loadtest -url http://127.0.0.1:8090 -fans 10000
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	var (
		base     = flag.String("url", "http://127.0.0.1:8080", "server base URL")
		fans     = flag.Int("fans", 1000, "WebSocket fans to connect")
		authors  = flag.Int("authors", 10, "authors posting; each fan follows one")
		rate     = flag.Float64("rate", 20, "posts per second, all authors together")
		duration = flag.Duration("duration", 20*time.Second, "how long the authors post")
		setupPar = flag.Int("parallel", 64, "concurrent requests while setting up")
	)
	flag.Parse()
	if err := raiseFileLimit(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: raise open-file limit:", err)
	}
	lt := &loadTest{base: strings.TrimRight(*base, "/"), client: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: *setupPar * 2},
	}}
	if _, err := lt.run(*fans, *authors, *rate, *duration, *setupPar); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// raiseFileLimit lifts RLIMIT_NOFILE to its hard limit: every fan is a socket.
func raiseFileLimit() error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	l.Cur = l.Max
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}

type loadTest struct {
	base   string
	client *http.Client
	run0   string // makes user names unique per run

	delivered, dups atomic.Int64
	mu              sync.Mutex
	delays          []time.Duration // guarded by mu
}

type account struct {
	token string
	name  string
}

// summary is what a run counted, for tests of the tool itself.
type summary struct {
	Expected, Delivered, Duplicates, FailedPosts int64
}

func (lt *loadTest) run(nFans, nAuthors int, rate float64, duration time.Duration, par int) (summary, error) {
	lt.run0 = strconv.FormatInt(time.Now().Unix()%100000, 36)
	fmt.Printf("loadtest: %s, %d fans, %d authors, %.0f posts/s for %s\n", lt.base, nFans, nAuthors, rate, duration)

	start := time.Now()
	authors, err := lt.signUp("a", nAuthors, par)
	if err != nil {
		return summary{}, err
	}
	fans, err := lt.signUp("f", nFans, par)
	if err != nil {
		return summary{}, err
	}
	err = parallel(nFans, par, func(i int) error {
		return lt.call("PUT", "/api/v1/users/"+authors[i%nAuthors].name+"/follow", fans[i].token, nil, nil)
	})
	if err != nil {
		return summary{}, err
	}
	fmt.Printf("setup: %d users and follows in %s\n", nFans+nAuthors, time.Since(start).Round(time.Millisecond))

	memBefore, err := lt.serverMemory()
	if err != nil {
		return summary{}, err
	}
	start = time.Now()
	conns := make([]*websocket.Conn, nFans)
	var readers sync.WaitGroup
	dialer := &websocket.Dialer{ReadBufferSize: 1024, WriteBufferSize: 256, HandshakeTimeout: 30 * time.Second}
	wsBase := "ws" + strings.TrimPrefix(lt.base, "http") + "/ws?token="
	err = parallel(nFans, par, func(i int) error {
		c, _, err := dialer.Dial(wsBase+fans[i].token, nil)
		if err != nil {
			return fmt.Errorf("connect fan %d: %w", i, err)
		}
		var f frame
		if err := c.ReadJSON(&f); err != nil || f.Event != "ready" {
			return fmt.Errorf("fan %d: no ready frame (%v)", i, err)
		}
		conns[i] = c
		return nil
	})
	if err != nil {
		return summary{}, err
	}
	fmt.Printf("connected: %d fans in %s\n", nFans, time.Since(start).Round(time.Millisecond))
	for _, c := range conns {
		readers.Add(1)
		go func() {
			defer readers.Done()
			lt.read(c)
		}()
	}
	time.Sleep(time.Second) // let the server settle before measuring it
	memAfter, err := lt.serverMemory()
	if err != nil {
		return summary{}, err
	}

	// Post at a steady rate; each post's content carries its send time.
	posts := int(rate * duration.Seconds())
	perAuthor := make([]atomic.Int64, nAuthors) // posts that succeeded
	interval := time.Duration(float64(time.Second) / rate)
	tick := time.NewTicker(interval)
	var posting sync.WaitGroup
	var failed atomic.Int64
	start = time.Now()
	for i := range posts {
		<-tick.C
		a := i % nAuthors
		posting.Add(1)
		go func() {
			defer posting.Done()
			body := map[string]string{"content": "load " + strconv.FormatInt(time.Now().UnixNano(), 10)}
			if err := lt.call("POST", "/api/v1/posts", authors[a].token, body, nil); err != nil {
				failed.Add(1)
				return
			}
			perAuthor[a].Add(1)
		}()
	}
	tick.Stop()
	posting.Wait()
	postTime := time.Since(start)

	expected := int64(0)
	for i := range nFans {
		expected += perAuthor[i%nAuthors].Load()
	}
	deadline := time.Now().Add(10 * time.Second)
	for lt.delivered.Load() < expected && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range conns {
		c.Close()
	}
	readers.Wait()

	lt.mu.Lock()
	defer lt.mu.Unlock()
	slices.Sort(lt.delays)
	pct := func(p float64) time.Duration {
		if len(lt.delays) == 0 {
			return 0
		}
		return lt.delays[min(len(lt.delays)-1, int(p*float64(len(lt.delays))))]
	}
	delivered := lt.delivered.Load()
	fmt.Printf("posted: %d posts in %s (%d failed)\n", posts, postTime.Round(time.Millisecond), failed.Load())
	fmt.Printf("events: expected %d, delivered %d, lost %d, duplicates %d\n", expected, delivered, max(0, expected-delivered), lt.dups.Load())
	fmt.Printf("delay from post request to receipt: p50 %s, p99 %s, max %s\n",
		pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), pct(1).Round(100*time.Microsecond))
	fmt.Printf("server memory: resident %.1f MiB → %.1f MiB with the fans, %.1f KiB per connection (Go heap %.1f KiB per connection)\n",
		memBefore.rss/(1<<20), memAfter.rss/(1<<20),
		(memAfter.rss-memBefore.rss)/float64(nFans)/1024, (memAfter.heap-memBefore.heap)/float64(nFans)/1024)
	return summary{Expected: expected, Delivered: delivered, Duplicates: lt.dups.Load(), FailedPosts: failed.Load()}, nil
}

type frame struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// read counts one fan's post events and records their delay.
func (lt *loadTest) read(c *websocket.Conn) {
	seen := make(map[int64]bool)
	var delays []time.Duration
	defer func() {
		lt.mu.Lock()
		lt.delays = append(lt.delays, delays...)
		lt.mu.Unlock()
	}()
	for {
		var f frame
		if err := c.ReadJSON(&f); err != nil {
			return
		}
		now := time.Now()
		if f.Event != "post" {
			continue
		}
		var p struct {
			ID      int64
			Content string
		}
		if json.Unmarshal(f.Data, &p) != nil {
			continue
		}
		if seen[p.ID] {
			lt.dups.Add(1)
			continue
		}
		seen[p.ID] = true
		if ns, err := strconv.ParseInt(strings.TrimPrefix(p.Content, "load "), 10, 64); err == nil {
			delays = append(delays, now.Sub(time.Unix(0, ns)))
		}
		lt.delivered.Add(1)
	}
}

func (lt *loadTest) signUp(prefix string, n, par int) ([]account, error) {
	accts := make([]account, n)
	err := parallel(n, par, func(i int) error {
		name := fmt.Sprintf("%s%s_%d", prefix, lt.run0, i)
		var out struct{ Token string }
		if err := lt.call("POST", "/api/v1/users", "", map[string]string{"username": name, "password": "load-test-password"}, &out); err != nil {
			return fmt.Errorf("sign up %s: %w", name, err)
		}
		accts[i] = account{token: out.Token, name: name}
		return nil
	})
	return accts, err
}

// call sends one API request and decodes the answer into out (if not nil).
func (lt *loadTest) call(method, path, token string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, lt.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := lt.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type memory struct{ rss, heap float64 }

// serverMemory reads the server's resident and Go heap memory from /metrics.
func (lt *loadTest) serverMemory() (memory, error) {
	resp, err := lt.client.Get(lt.base + "/metrics")
	if err != nil {
		return memory{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m memory
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
			m.rss, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			m.heap, _ = strconv.ParseFloat(v, 64)
		}
	}
	return m, nil
}

// parallel runs f(0..n-1) on par goroutines and returns the first error.
func parallel(n, par int, f func(i int) error) error {
	var (
		next    atomic.Int64
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	for range min(par, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					errOnce.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
