package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"microblog/server/bench/spawn"
)

// loadTest talks to the server under test as its clients do: HTTP for
// signing up, following and posting, WebSockets for the live feed.
type loadTest struct {
	client *http.Client
	par    int    // concurrent requests and dials while setting up
	run0   string // makes user names unique per run
	out    io.Writer
	settle time.Duration // see benchConfig
}

func newLoadTest(par int, out io.Writer, settle time.Duration) *loadTest {
	return &loadTest{
		par:    par,
		out:    out,
		settle: settle,
		run0:   strconv.FormatInt(time.Now().Unix()%100000, 36),
		client: &http.Client{
			Timeout:   30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: par * 2},
		},
	}
}

// account is a user the bench signed up: its name, its session's token,
// and its Mastodon access token if it was given one (mastodonLogin).
type account struct {
	Token    string `json:"token"`
	Name     string `json:"name"`
	Mastodon string `json:"mastodon,omitempty"`
}

// benchPassword is every user's password.
const benchPassword = "load-test-password"

// signUp creates n users named <prefix><run>_<i> on the server at base.
func (lt *loadTest) signUp(base, prefix string, n int) ([]account, error) {
	accts := make([]account, n)
	err := parallel(n, lt.par, func(i int) error {
		name := fmt.Sprintf("%s%s_%d", prefix, lt.run0, i)
		var out struct{ Token string }
		if err := spawn.Call(lt.client, base, "POST", "/api/v1/users", "", map[string]string{"username": name, "password": benchPassword}, http.StatusCreated, &out); err != nil {
			return fmt.Errorf("sign up %s: %w", name, err)
		}
		accts[i] = account{Token: out.Token, Name: name}
		return nil
	})
	return accts, err
}

// follow has fans[i] follow authors[(first+i) % len(authors)]: each author
// gets the same share of fans whichever slice of them is passed.
func (lt *loadTest) follow(base string, fans []account, first int, authors []account) error {
	return parallel(len(fans), lt.par, func(i int) error {
		a := authors[(first+i)%len(authors)]
		return spawn.Call(lt.client, base, "PUT", "/api/v1/users/"+a.Name+"/follow", fans[i].Token, nil, http.StatusNoContent, nil)
	})
}

// deliveryResult is what one delivery run measured.
type deliveryResult struct {
	Label string `json:"label"`
	// Kind is the feed the fans read: kindNative (also when empty, as in
	// the results of older runs) or kindMastodon.
	Kind     string        `json:"kind,omitempty"`
	Round    int           `json:"round"`
	Fans     int           `json:"fans"`
	Authors  int           `json:"authors"`
	Rate     float64       `json:"posts_per_second"`
	Duration time.Duration `json:"duration_ns"`

	Posts       int64 `json:"posts"`
	FailedPosts int64 `json:"failed_posts"`
	Expected    int64 `json:"expected"`
	Delivered   int64 `json:"delivered"`
	Duplicates  int64 `json:"duplicates"`

	// Delay is the delay from the post request to receipt, in ms, at every
	// 0.1% from the fastest (Delay[0]) to the slowest (Delay[1000]).
	Delay []float64 `json:"delay_ms_permille"`
	// PostLatency is the post requests' own latency in ms, same spacing.
	PostLatency []float64 `json:"post_latency_ms_permille"`

	ConnectTime time.Duration `json:"connect_ns"`
	MemBefore   memory        `json:"memory_before"`
	MemAfter    memory        `json:"memory_after"` // with every fan connected, before the posts

	// CPU is the CPU seconds used while posting and delivering, Wall the
	// time that took; the server's and Redis's are zero where unknown (a
	// server started by someone else).
	CPU  cpuShare `json:"cpu_seconds"`
	Wall float64  `json:"wall_seconds"`
}

// feed is the kind of feed the fans read.
func (r deliveryResult) feed() string {
	if r.Kind == "" {
		return kindNative
	}
	return r.Kind
}

// residentPerConn is what the server's resident memory grew by per fan
// connected, in bytes, before anything was posted to them.
func (r deliveryResult) residentPerConn() float64 {
	return (r.MemAfter.RSS - r.MemBefore.RSS) / float64(max(1, r.Fans))
}

// otherCores is how many cores, on average, processes other than the
// server, Redis and the tool took during the run: work the bench does not
// control on a shared machine.
func (r deliveryResult) otherCores() float64 {
	if r.Wall == 0 {
		return 0
	}
	return max(0, r.CPU.Machine-r.CPU.Server-r.CPU.Redis-r.CPU.Tool) / r.Wall
}

// cpuShare is the CPU seconds each part took while posting and delivering.
type cpuShare struct {
	Server  float64 `json:"server"`
	Redis   float64 `json:"redis"`
	Tool    float64 `json:"loadtest"`
	Machine float64 `json:"machine_busy"`
	Cores   float64 `json:"machine_total"`
}

// probes read the CPU time of the server and Redis, when the bench
// started them; nil otherwise.
type probes struct {
	server, redis func() time.Duration
	// posting, if set, is called as the posts start and returns what to
	// call when they are delivered (the bench records a CPU profile).
	posting func() (done func())
}

// deliver connects every fan's feed of kind to the server at base from
// the loopback address source (empty: any), has the authors post rate
// posts per second for duration, and measures what arrives. Each fan
// follows one author.
func (lt *loadTest) deliver(base, source, kind string, fans, authors []account, rate float64, duration time.Duration, pr probes) (deliveryResult, error) {
	res := deliveryResult{Kind: kind, Fans: len(fans), Authors: len(authors), Rate: rate, Duration: duration}
	var err error
	if res.MemBefore, err = lt.settledMemory(base); err != nil {
		return res, err
	}
	parse := parsePost
	switch kind {
	case kindMastodon:
		parse = parseStatus
	case kindSSE:
		parse = parseStatusEntity
	}
	start := time.Now()
	f, err := lt.listen(base, source, kind, fans, parse)
	if err != nil {
		return res, err
	}
	res.ConnectTime = time.Since(start)
	fmt.Fprintf(lt.out, "  connected %d fans in %s\n", len(fans), res.ConnectTime.Round(time.Millisecond))
	if res.MemAfter, err = lt.settledMemory(base); err != nil {
		f.close()
		return res, err
	}

	// Post at a steady rate; each post's content carries its send time.
	perAuthor := make([]atomic.Int64, len(authors)) // posts that succeeded
	w := lt.steady(pr, rate, duration, func(i int, body map[string]string) error {
		a := i % len(authors)
		if err := spawn.Call(lt.client, base, "POST", "/api/v1/posts", authors[a].Token, body, http.StatusCreated, nil); err != nil {
			return err
		}
		perAuthor[a].Add(1)
		return nil
	})
	for i := range fans {
		res.Expected += perAuthor[i%len(authors)].Load()
	}
	res.Wall, res.CPU = f.wait(lt, w, res.Expected)
	res.Posts, res.FailedPosts = int64(w.sent), w.failed
	res.Delivered, res.Duplicates = f.rec.delivered.Load(), f.rec.dups.Load()
	res.Delay = permille(f.rec.delays)
	res.PostLatency = permille(w.lat)
	return res, nil
}

// feeds are the live feeds of some users, each read by a goroutine that
// records the events it gets.
type feeds struct {
	conns   []io.Closer
	rec     *recorder
	readers sync.WaitGroup
}

// listen connects the users' live feeds of kind and reads them, counting
// the frames parse recognizes.
func (lt *loadTest) listen(base, source, kind string, users []account, parse func([]byte) (int64, time.Time, bool)) (*feeds, error) {
	f := &feeds{rec: &recorder{parse: parse}}
	if kind == kindSSE {
		bodies, err := lt.connectSSE(base, source, users, func(rd *bufio.Reader) {
			f.readers.Add(1)
			go func() {
				defer f.readers.Done()
				f.rec.readSSE(rd)
			}()
		})
		if err != nil {
			f.readers.Wait() // connectSSE closed what it opened
			return nil, err
		}
		f.conns = bodies
		return f, nil
	}
	conns, err := lt.connect(base, source, kind, users, func(c *websocket.Conn) {
		f.readers.Add(1)
		go func() {
			defer f.readers.Done()
			f.rec.read(c)
		}()
	})
	if err != nil {
		f.readers.Wait() // connect closed what it opened
		return nil, err
	}
	for _, c := range conns {
		f.conns = append(f.conns, c)
	}
	return f, nil
}

// close closes the connections and waits for their readers.
func (f *feeds) close() {
	for _, c := range f.conns {
		c.Close()
	}
	f.readers.Wait()
}

// wait waits (a minute at most: a busy machine is slow, not lossy) until
// expected events have arrived, closes the feeds, and returns the time
// since the writes began and the CPU they took.
func (f *feeds) wait(lt *loadTest, w writes, expected int64) (float64, cpuShare) {
	deadline := time.Now().Add(time.Minute)
	for f.rec.delivered.Load() < expected && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	wall := time.Since(w.start).Seconds()
	if w.profiled != nil {
		w.profiled()
	}
	cpu1 := lt.cpuNow(w.pr)
	busy1, total1 := spawn.MachineCPU()
	cpu := cpuShare{
		Server: (cpu1.server - w.cpu0.server).Seconds(), Redis: (cpu1.redis - w.cpu0.redis).Seconds(),
		Tool: (cpu1.tool - w.cpu0.tool).Seconds(), Machine: (busy1 - w.busy0).Seconds(), Cores: (total1 - w.total0).Seconds(),
	}
	f.close()
	return wall, cpu
}

// writes is how a steady run of writes went, and what its CPU started at.
type writes struct {
	sent          int
	failed        int64
	lat           []time.Duration // each successful write's request
	start         time.Time
	pr            probes
	cpu0          cpuTimes
	busy0, total0 time.Duration
	profiled      func() // ends the profile, if one was started
}

// steady makes rate writes a second for duration, each with write(i, body)
// in a goroutine of its own, body's content carrying its send time, and
// returns once all have answered.
func (lt *loadTest) steady(pr probes, rate float64, duration time.Duration, write func(i int, body map[string]string) error) writes {
	w := writes{sent: int(rate * duration.Seconds()), pr: pr, cpu0: lt.cpuNow(pr)}
	w.busy0, w.total0 = spawn.MachineCPU()
	if pr.posting != nil {
		w.profiled = pr.posting()
	}
	var (
		wg     sync.WaitGroup
		failed atomic.Int64
		latMu  sync.Mutex
	)
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	w.start = time.Now()
	for i := range w.sent {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			body := map[string]string{"content": loadMark + strconv.FormatInt(t0.UnixNano(), 10)}
			if err := write(i, body); err != nil {
				failed.Add(1)
				return
			}
			d := time.Since(t0)
			latMu.Lock()
			w.lat = append(w.lat, d)
			latMu.Unlock()
		}()
	}
	tick.Stop()
	wg.Wait()
	w.failed = failed.Load()
	return w
}

type cpuTimes struct{ server, redis, tool time.Duration }

func (lt *loadTest) cpuNow(pr probes) cpuTimes {
	t := cpuTimes{tool: spawn.ProcCPU("self")}
	if pr.server != nil {
		t.server = pr.server()
	}
	if pr.redis != nil {
		t.redis = pr.redis()
	}
	return t
}

// recorder counts the frames of one kind the users get (those parse
// recognizes: parsePost, parseMessage) and their delays.
type recorder struct {
	parse           func([]byte) (id int64, sent time.Time, ok bool)
	delivered, dups atomic.Int64
	mu              sync.Mutex
	delays          []time.Duration // guarded by mu
}

// read counts one fan's post events and records their delay, until the
// connection ends. It reads each frame into one reused buffer and decodes
// only what it needs, so that the tool takes as little of the machine as
// it can from the server it measures.
func (r *recorder) read(c *websocket.Conn) {
	seen := make(map[int64]bool)
	var delays []time.Duration
	defer func() {
		r.mu.Lock()
		r.delays = append(r.delays, delays...)
		r.mu.Unlock()
	}()
	var buf bytes.Buffer
	for {
		_, rd, err := c.NextReader()
		if err != nil {
			return
		}
		buf.Reset()
		if _, err := buf.ReadFrom(rd); err != nil {
			return
		}
		delays = r.note(buf.Bytes(), time.Now(), seen, delays)
	}
}

// note counts one frame b that arrived at now, if parse recognizes it:
// once per id (seen), its delay appended to delays.
func (r *recorder) note(b []byte, now time.Time, seen map[int64]bool, delays []time.Duration) []time.Duration {
	id, sent, ok := r.parse(b)
	if !ok {
		return delays
	}
	if seen[id] {
		r.dups.Add(1)
		return delays
	}
	seen[id] = true
	if !sent.IsZero() {
		delays = append(delays, now.Sub(sent))
	}
	r.delivered.Add(1)
	return delays
}

// readSSE is read for a stream of server-sent events: each data line
// after "event: update" is a frame (a Status), the rest is skipped.
func (r *recorder) readSSE(rd *bufio.Reader) {
	seen := make(map[int64]bool)
	var delays []time.Duration
	defer func() {
		r.mu.Lock()
		r.delays = append(r.delays, delays...)
		r.mu.Unlock()
	}()
	update := false
	var long []byte // a line longer than rd's buffer, put together
	for {
		line, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if err != nil {
			return
		}
		if long != nil {
			line, long = append(long, line...), long[:0:0]
		}
		switch {
		case bytes.Equal(line, []byte("event: update\n")):
			update = true
		case update && bytes.HasPrefix(line, []byte("data: ")):
			delays = r.note(line[len("data: "):], time.Now(), seen, delays)
			update = false
		case len(line) == 1: // the blank line that ends an event
			update = false
		}
	}
}

// permille returns the values at every 0.1% of ds, in ms.
func permille(ds []time.Duration) []float64 {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	out := make([]float64, 1001)
	for i := range out {
		out[i] = float64(ds[min(len(ds)-1, i*len(ds)/1000)]) / float64(time.Millisecond)
	}
	out[1000] = float64(ds[len(ds)-1]) / float64(time.Millisecond)
	return out
}

// pct is the p-th percentile (0–100) of a permille slice.
func pct(pm []float64, p float64) float64 {
	if len(pm) == 0 {
		return 0
	}
	return pm[min(1000, int(p*10+0.5))]
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
