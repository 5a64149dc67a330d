// Command fedin, fedinbench, measures the shared inbox taking signed
// activities from another server: -actors accounts on a remote
// ActivityPub server (a real HTTP server on loopback in this process,
// answering WebFinger and its actors' documents with their public keys,
// checking each Follow's signature and accepting it with a signed Accept)
// are followed by -followers local users, through the native API by
// handle (name@host), so that the server stores the accounts and sends
// the Follows. Each follower keeps
// its live socket (/ws) open. Then Create(Note) activities, signed
// beforehand as Mastodon signs (draft-cavage rsa-sha256 over
// (request-target), host, date and Digest, with go-fed/httpsig; the
// Date is within the hour the server allows), are POSTed to the shared
// inbox at -rate a second for -duration by -senders connections.
//
// It prints the rate the inbox kept, the server's and Redis's CPU per
// activity taken (from /proc/<pid>/stat), and the delay to each
// follower's socket: from the inbox's answer (a frame that came before
// it counts 0) and from the request's sending, p50, p99, p99.9 and max,
// with the frames lost.
//
// It starts a fresh redis-server and server (-server: a build; default:
// built from this repository) with MICROBLOG_FEDERATION=on,
// MICROBLOG_PUBLIC_URL=self (its own origin) and
// MICROBLOG_FEDERATION_ALLOW_PRIVATE=on (the peer is on loopback);
// -pprof serves the server's profiles there (MICROBLOG_PPROF_ADDR).
//
//	go run -C server/bench ./fedin                                   # make bench-fedin
//	go run -C server/bench ./fedin -rate 300 -duration 5s -followers 3   # a quick look
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"microblog/server/bench/spawn"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fedinbench:", err)
		os.Exit(1)
	}
}

type config struct {
	server, redis string
	rate          int
	duration      time.Duration
	actors        int
	followers     int
	senders       int
	settle        time.Duration
	pprof         string
}

// result is one run's figures.
type result struct {
	sent, accepted, refused int
	firstRefusal            string
	wall                    time.Duration // first send to last answer
	serverCPU, redisCPU     time.Duration
	benchCPU                time.Duration
	machineBusy             float64 // of the whole machine, during the run
	answer                  []time.Duration
	fromAnswer, fromSend    []time.Duration
	want, got               int // frames expected on the sockets, and read
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fedin", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.server, "server", "", "the server binary (default: built from this repository)")
	fs.StringVar(&c.redis, "redis-server", "redis-server", "the redis-server binary")
	fs.IntVar(&c.rate, "rate", 1000, "activities a second asked of the shared inbox")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "how long they are sent")
	fs.IntVar(&c.actors, "actors", 20, "remote accounts the activities come from, 50 to a remote server (a loopback port)")
	fs.IntVar(&c.followers, "followers", 10, "local users following every remote account, each with its socket open")
	fs.IntVar(&c.senders, "senders", 128, "connections sending at once (the most requests under way)")
	fs.DurationVar(&c.settle, "settle", 30*time.Second, "how long after the last answer a frame may still come")
	fs.StringVar(&c.pprof, "pprof", "", "serve the server's profiles on this address (MICROBLOG_PPROF_ADDR), e.g. 127.0.0.1:6060")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := spawn.Positive(spawn.Flag{Name: "-rate", Value: float64(c.rate)}, spawn.Flag{Name: "-duration", Value: c.duration.Seconds()},
		spawn.Flag{Name: "-actors", Value: float64(c.actors)}, spawn.Flag{Name: "-followers", Value: float64(c.followers)},
		spawn.Flag{Name: "-senders", Value: float64(c.senders)}); err != nil {
		return err
	}
	if c.duration > 50*time.Minute {
		return errors.New("-duration must stay under the hour a signature's Date is good for")
	}
	r, err := measure(c, out)
	if err != nil {
		return err
	}
	r.print(out, c)
	return nil
}

// measure does one run and returns its figures; it writes its progress to
// log.
func measure(c config, log io.Writer) (*result, error) {
	dir, err := os.MkdirTemp("", "fedinbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := c.server
	if bin == "" {
		root, _ := filepath.Abs("../..")
		if bin, err = spawn.ServerBinary(root, dir); err != nil {
			return nil, err
		}
	}
	rp, redisURL, err := spawn.StartRedis(c.redis, dir)
	if err != nil {
		return nil, err
	}
	defer rp.Stop()
	env := []string{"MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self", "MICROBLOG_FEDERATION_ALLOW_PRIVATE=on"}
	if c.pprof != "" {
		env = append(env, "MICROBLOG_PPROF_ADDR="+c.pprof)
	}
	srv, err := spawn.StartServer("server", bin, redisURL, dir, env...)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()

	p, err := startPeer(c.actors, srv.URL+"/ap/inbox")
	if err != nil {
		return nil, err
	}
	defer p.close()

	// The followers sign up, follow every remote account by its handle
	// and open their sockets.
	client := &http.Client{Timeout: 30 * time.Second}
	tokens := make([]string, c.followers)
	for f := range tokens {
		var reg struct {
			Token string `json:"token"`
		}
		if err := spawn.Call(client, srv.URL, "POST", "/api/v1/users", "", map[string]string{"username": "fan" + strconv.Itoa(f),
			"password": "password123"}, 201, &reg); err != nil {
			return nil, err
		}
		tokens[f] = reg.Token
		for i := range c.actors {
			if err := spawn.Call(client, srv.URL, "PUT", "/api/v1/users/"+url.PathEscape(p.handle(i))+"/follow", reg.Token, nil, 204, nil); err != nil {
				return nil, err
			}
		}
	}
	if err := p.waitAccepted(c.followers*c.actors, 2*time.Minute); err != nil {
		return nil, err
	}
	total := int(float64(c.rate) * c.duration.Seconds())
	if total < 1 {
		total = 1
	}
	socks, err := openSockets(srv.URL, tokens, total)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range socks {
			s.conn.Close()
		}
	}()

	fmt.Fprintf(log, "fedinbench: signing %d Creates from %d remote accounts, %d local followers with their sockets open; %d CPUs, load %s\n",
		total, c.actors, c.followers, runtime.NumCPU(), spawn.LoadAvg())
	jobs, err := sign(p, total)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "fedinbench: sending %d a second for %v to %s; load %s\n", c.rate, c.duration, p.inbox, spawn.LoadAvg())

	r := &result{sent: total}
	sentAt := make([]time.Time, total)
	answeredAt := make([]time.Time, total)
	status := make([]int, total)
	var firstErr atomic.Value
	tr := &http.Transport{MaxIdleConnsPerHost: c.senders, MaxConnsPerHost: c.senders}
	defer tr.CloseIdleConnections()
	sender := &http.Client{Transport: tr, Timeout: time.Minute}
	queue := make(chan int, total)
	var wg sync.WaitGroup
	for range c.senders {
		wg.Go(func() {
			for i := range queue {
				req, _ := http.NewRequest("POST", p.inbox, bytes.NewReader(jobs[i].body))
				req.Header = jobs[i].header
				sentAt[i] = time.Now()
				resp, err := sender.Do(req)
				answeredAt[i] = time.Now()
				if err != nil {
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				status[i] = resp.StatusCode
				if resp.StatusCode != http.StatusAccepted {
					firstErr.CompareAndSwap(nil, resp.Status+": "+string(b))
				}
			}
		})
	}
	busy0, all0 := spawn.MachineCPU()
	srv0, redis0, self0 := srv.CPU(), rp.CPU(), spawn.ProcCPU("self")
	start := time.Now()
	tick := time.Duration(float64(time.Second) / float64(c.rate))
	for i := range total {
		if wait := time.Until(start.Add(time.Duration(i) * tick)); wait > 0 {
			time.Sleep(wait)
		}
		queue <- i
	}
	close(queue)
	wg.Wait()
	last := start
	for i := range total {
		if status[i] == http.StatusAccepted {
			r.accepted++
			if answeredAt[i].After(last) {
				last = answeredAt[i]
			}
		}
	}
	r.refused = total - r.accepted
	r.firstRefusal, _ = firstErr.Load().(string)
	r.wall = last.Sub(start)

	// Every follower's socket gets every accepted Create; a frame still
	// missing after -settle without any new one is lost.
	r.want = r.accepted * len(socks)
	for got, idle := 0, time.Now(); ; time.Sleep(20 * time.Millisecond) {
		n := 0
		for _, s := range socks {
			n += int(s.got.Load())
		}
		if n >= r.want {
			break
		}
		if n != got {
			got, idle = n, time.Now()
		} else if time.Since(idle) > c.settle {
			break
		}
	}
	r.serverCPU, r.redisCPU, r.benchCPU = srv.CPU()-srv0, rp.CPU()-redis0, spawn.ProcCPU("self")-self0
	busy1, all1 := spawn.MachineCPU()
	if all1 > all0 {
		r.machineBusy = float64(busy1-busy0) / float64(all1-all0)
	}
	for _, s := range socks {
		s.conn.Close()
		<-s.done
	}
	for i := range total {
		if status[i] == http.StatusAccepted {
			r.answer = append(r.answer, answeredAt[i].Sub(sentAt[i]))
		}
	}
	for _, s := range socks {
		for i, ns := range s.at {
			if ns == 0 || status[i] != http.StatusAccepted {
				continue
			}
			r.got++
			at := time.Unix(0, ns)
			r.fromAnswer = append(r.fromAnswer, max(0, at.Sub(answeredAt[i])))
			r.fromSend = append(r.fromSend, at.Sub(sentAt[i]))
		}
	}
	slices.Sort(r.answer)
	slices.Sort(r.fromAnswer)
	slices.Sort(r.fromSend)
	return r, nil
}

// job is a signed request's body and headers.
type job struct {
	body   []byte
	header http.Header
}

// mark starts the notes' text, before their number: what the sockets'
// readers look for.
const mark = "fedin "

// sign makes total public Create(Note) activities, the actors in turn,
// and signs them, on every core.
func sign(p *peer, total int) ([]job, error) {
	jobs := make([]job, total)
	now := time.Now()
	var next atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= total {
					return
				}
				a := n % len(p.keys)
				id := p.actor(a) + "/statuses/" + strconv.Itoa(n)
				body, _ := json.Marshal(map[string]any{"@context": "https://www.w3.org/ns/activitystreams",
					"id": id + "/activity", "type": "Create", "actor": p.actor(a), "published": now.UTC().Format(time.RFC3339),
					"to": []string{"https://www.w3.org/ns/activitystreams#Public"}, "cc": []string{p.followers(a)},
					"object": map[string]any{"id": id, "type": "Note", "attributedTo": p.actor(a), "url": p.base(a) + "/@" + p.name(a) + "/" + strconv.Itoa(n),
						"published": now.UTC().Format(time.RFC3339), "content": "<p>" + mark + strconv.Itoa(n) + " from the fediverse</p>",
						"to": []string{"https://www.w3.org/ns/activitystreams#Public"}, "cc": []string{p.followers(a)}}})
				req, err := p.signed(a, body, now)
				if err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				jobs[n] = job{body: body, header: req.Header}
			}
		})
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return nil, err
	}
	return jobs, nil
}

// socket is a follower's live feed, read until it closes.
type socket struct {
	conn *websocket.Conn
	at   []int64 // when the frame of each Create came (Unix ns; 0: not yet)
	got  atomic.Int64
	done chan struct{}
}

func openSockets(base string, tokens []string, total int) ([]*socket, error) {
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws?token="
	var socks []*socket
	for f, tok := range tokens {
		conn, _, err := websocket.DefaultDialer.Dial(ws+tok, nil)
		if err != nil {
			return socks, fmt.Errorf("follower %d's socket: %w", f, err)
		}
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, b, err := conn.ReadMessage(); err != nil || !bytes.HasPrefix(b, []byte(`{"event":"ready"`)) {
			conn.Close()
			return socks, fmt.Errorf("follower %d: no ready frame (%v)", f, err)
		}
		conn.SetReadDeadline(time.Time{})
		s := &socket{conn: conn, at: make([]int64, total), done: make(chan struct{})}
		socks = append(socks, s)
		go s.read()
	}
	return socks, nil
}

// read notes when each Create's post reaches the socket.
func (s *socket) read() {
	defer close(s.done)
	head, m := []byte(`{"event":"post"`), []byte(mark)
	for {
		_, b, err := s.conn.ReadMessage()
		if err != nil {
			return
		}
		now := time.Now().UnixNano()
		if !bytes.HasPrefix(b, head) {
			continue
		}
		i := bytes.Index(b, m)
		if i < 0 {
			continue
		}
		n, ok := leadingInt(b[i+len(m):])
		if ok && n < len(s.at) && s.at[n] == 0 {
			s.at[n] = now
			s.got.Add(1)
		}
	}
}

// leadingInt parses the decimal digits b starts with.
func leadingInt(b []byte) (int, bool) {
	n, digits := 0, 0
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
		digits++
	}
	return n, digits > 0
}

// q is the p quantile of sorted ds; 0 if there are none.
func q(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(p*float64(len(ds))))]
}

func (r *result) print(out io.Writer, c config) {
	per := func(d time.Duration) float64 {
		if r.accepted == 0 {
			return 0
		}
		return float64(d.Microseconds()) / float64(r.accepted)
	}
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
	}
	fmt.Fprintf(out, "\n  %-46s %14s\n", "", "value")
	fmt.Fprintf(out, "  %-46s %14d\n", "activities sent (signed Create of a Note)", r.sent)
	fmt.Fprintf(out, "  %-46s %14d\n", "accepted (202)", r.accepted)
	fmt.Fprintf(out, "  %-46s %14d\n", "refused or failed", r.refused)
	fmt.Fprintf(out, "  %-46s %14.0f\n", "accepted per second (asked "+strconv.Itoa(c.rate)+")", float64(r.accepted)/max(r.wall, time.Millisecond).Seconds())
	fmt.Fprintf(out, "  %-46s %14s\n", "first send to last answer (asked "+c.duration.String()+")", r.wall.Round(100*time.Millisecond).String())
	fmt.Fprintf(out, "  %-46s %14.0f\n", "server CPU per activity (µs)", per(r.serverCPU))
	fmt.Fprintf(out, "  %-46s %14.0f\n", "Redis CPU per activity (µs)", per(r.redisCPU))
	fmt.Fprintf(out, "  %-46s %14.0f\n", "bench CPU per activity (µs; sending, sockets)", per(r.benchCPU))
	fmt.Fprintf(out, "  %-46s %13.0f%%\n", "machine busy during the run (all processes)", 100*r.machineBusy)
	fmt.Fprintf(out, "  %-46s %14s\n", "inbox answer p50", ms(q(r.answer, 0.5)))
	fmt.Fprintf(out, "  %-46s %14s\n", "inbox answer p99", ms(q(r.answer, 0.99)))
	fmt.Fprintf(out, "  %-46s %14d\n", "frames expected (accepted × followers)", r.want)
	fmt.Fprintf(out, "  %-46s %14d\n", "frames lost", r.want-r.got)
	for _, d := range []struct {
		name string
		ds   []time.Duration
	}{{"answer → socket", r.fromAnswer}, {"sent → socket", r.fromSend}} {
		fmt.Fprintf(out, "  %-46s %14s\n", d.name+" p50", ms(q(d.ds, 0.5)))
		fmt.Fprintf(out, "  %-46s %14s\n", d.name+" p99", ms(q(d.ds, 0.99)))
		fmt.Fprintf(out, "  %-46s %14s\n", d.name+" p99.9", ms(q(d.ds, 0.999)))
		var top time.Duration
		if len(d.ds) > 0 {
			top = d.ds[len(d.ds)-1]
		}
		fmt.Fprintf(out, "  %-46s %14s\n", d.name+" max", ms(top))
	}
	if r.firstRefusal != "" {
		fmt.Fprintf(out, "\n  first refusal: %.300s\n", r.firstRefusal)
	}
	fmt.Fprintf(out, "\n  command: %s\n", spawn.CommandLine("fedin"))
}
