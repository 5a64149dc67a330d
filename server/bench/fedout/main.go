// Command fedout, fedoutbench, measures the delivery of one post to the
// servers of its author's followers: an account followed from -servers
// ActivityPub servers (one follower each, each a real HTTP server on
// loopback in this process with a shared inbox that checks every request:
// Digest against the body, and the draft-cavage signature with
// go-fed/httpsig against the author's public key, fetched from the
// server's actor once), of which -dead refuse connections and -slow
// answer after -slow-delay. For each of -posts posts it times each
// healthy server's delay from the post's answer to its inbox taking the
// Create, and counts the server process's CPU time per delivery.
//
// It starts a fresh redis-server and server (-server: a build; default:
// built from this repository) with MICROBLOG_FEDERATION=on and
// MICROBLOG_FEDERATION_ALLOW_PRIVATE=on (the servers are on loopback),
// writes the remote accounts and their follows straight into Redis (as the
// inbox leaves an accepted Follow), and prints a table.
//
//	go run -C server/bench ./fedout                      # make bench-fedout
//	go run -C server/bench ./fedout -servers 200 -posts 2   # a quick look
package main

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-fed/httpsig"
	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
	"microblog/store"
	"microblog/store/redisdb"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fedoutbench:", err)
		os.Exit(1)
	}
}

type config struct {
	server, redis       string
	servers, dead, slow int
	slowDelay           time.Duration
	posts               int
	keep                bool
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fedout", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.server, "server", "", "the server binary (default: built from this repository)")
	fs.StringVar(&c.redis, "redis-server", "redis-server", "the redis-server binary")
	fs.IntVar(&c.servers, "servers", 1000, "remote servers following the author, one follower each")
	fs.IntVar(&c.dead, "dead", 50, "of them, servers that refuse connections")
	fs.IntVar(&c.slow, "slow", 50, "of them, servers that answer after -slow-delay")
	fs.DurationVar(&c.slowDelay, "slow-delay", 5*time.Second, "how long the slow servers take to answer")
	fs.IntVar(&c.posts, "posts", 5, "posts, one after the other")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.dead+c.slow >= c.servers || c.posts < 1 {
		return fmt.Errorf("want -dead + -slow below -servers, and -posts at least 1")
	}
	dir, err := os.MkdirTemp("", "fedoutbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := c.server
	if bin == "" {
		root, _ := filepath.Abs("../..")
		if bin, err = spawn.ServerBinary(root, dir); err != nil {
			return err
		}
	}
	rp, redisURL, err := spawn.StartRedis(c.redis, dir)
	if err != nil {
		return err
	}
	defer rp.Stop()
	srv, err := spawn.StartServer("server", bin, redisURL, dir, "MICROBLOG_FEDERATION=on", "MICROBLOG_PUBLIC_URL=self",
		"MICROBLOG_FEDERATION_ALLOW_PRIVATE=on")
	if err != nil {
		return err
	}
	defer srv.Stop()

	client := &http.Client{Timeout: 30 * time.Second}
	var reg struct {
		Token string `json:"token"`
		User  struct {
			ID int64 `json:"id"`
		} `json:"user"`
	}
	if err := spawn.Call(client, srv.URL, "POST", "/api/v1/users", "", map[string]string{"username": "star", "password": "password123"}, 201, &reg); err != nil {
		return err
	}
	star := reg.User.ID

	fleet, err := startFleet(c)
	if err != nil {
		return err
	}
	defer fleet.close()
	opt, _ := redis.ParseURL(redisURL)
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := follow(rdb, star, fleet); err != nil {
		return err
	}
	// The followers' servers fetched the author's actor when they followed
	// it: its key is made by then, not on the first post.
	if _, err := fleet.key(fmt.Sprintf("%s/ap/users/%d#main-key", srv.URL, star)); err != nil {
		return fmt.Errorf("fetch the author's actor: %w", err)
	}
	fmt.Fprintf(out, "fedoutbench: %d servers follow one account (%d dead, %d slow by %v), %d posts, %d CPUs, load %s\n",
		c.servers, c.dead, c.slow, c.slowDelay, c.posts, runtime.NumCPU(), spawn.LoadAvg())

	var healthyDelays []time.Duration
	var cpu time.Duration
	var wall time.Duration
	delivered := 0
	for i := range c.posts {
		fleet.reset()
		cpu0 := srv.CPU()
		t0 := time.Now()
		var p struct {
			ID int64 `json:"id"`
		}
		if err := spawn.Call(client, srv.URL, "POST", "/api/v1/posts", reg.Token, map[string]string{"content": fmt.Sprintf("post %d to the fediverse", i)}, 201, &p); err != nil {
			return err
		}
		answered := time.Now()
		if err := fleet.waitHealthy(2 * time.Minute); err != nil {
			return err
		}
		healthyDone := time.Now()
		if err := fleet.waitSlow(2*time.Minute + c.slowDelay); err != nil {
			return err
		}
		cpu += srv.CPU() - cpu0
		wall += healthyDone.Sub(t0)
		delivered += fleet.healthyCount() + c.slow
		for _, d := range fleet.healthyArrivals() {
			healthyDelays = append(healthyDelays, d.Sub(answered))
		}
		if bad := fleet.refusals(); bad > 0 {
			return fmt.Errorf("the inboxes refused %d deliveries: %s", bad, fleet.firstRefusal())
		}
	}
	slices.Sort(healthyDelays)
	q := func(p float64) time.Duration {
		return healthyDelays[min(len(healthyDelays)-1, int(p*float64(len(healthyDelays))))]
	}
	healthy := fleet.healthyCount() * c.posts
	fmt.Fprintf(out, "\n  %-44s %12s\n", "", "value")
	fmt.Fprintf(out, "  %-44s %12d\n", "deliveries (healthy + slow; dead retried later)", delivered)
	fmt.Fprintf(out, "  %-44s %12.0f\n", "healthy deliveries/s (post answered → last)", float64(healthy)/wall.Seconds())
	fmt.Fprintf(out, "  %-44s %12.1f\n", "server CPU per delivery (µs)", float64(cpu.Microseconds())/float64(delivered))
	fmt.Fprintf(out, "  %-44s %12v\n", "healthy servers' delay p50", q(0.50).Round(time.Millisecond))
	fmt.Fprintf(out, "  %-44s %12v\n", "healthy servers' delay p99", q(0.99).Round(time.Millisecond))
	fmt.Fprintf(out, "  %-44s %12v\n", "healthy servers' delay max", healthyDelays[len(healthyDelays)-1].Round(time.Millisecond))
	fmt.Fprintf(out, "\n  command: %s\n", spawn.CommandLine("fedout"))
	return nil
}

// follow writes one remote account per server of the fleet and makes it
// follow star, as an accepted Follow through the inbox does.
func follow(rdb *redis.Client, star int64, f *fleet) error {
	st := redisdb.New(rdb, redisdb.Options{})
	ctx := context.Background()
	for i, base := range f.bases {
		name := fmt.Sprintf("f%d", i)
		host := strings.TrimPrefix(base, "http://")
		uid, err := st.SaveRemoteActor(ctx, store.RemoteActor{ID: base + "/users/" + name, Handle: name + "@" + host,
			Inbox: base + "/users/" + name + "/inbox", SharedInbox: base + "/inbox", URL: base + "/@" + name})
		if err != nil {
			return fmt.Errorf("remote account %d: %w", i, err)
		}
		if err := st.Follow(ctx, uid, star); err != nil {
			return fmt.Errorf("follow %d: %w", i, err)
		}
	}
	return st.MarkFedFans(ctx, star)
}

// fleet is the remote servers: httpServers healthy or slow, and the
// addresses of the dead ones.
type fleet struct {
	bases   []string
	servers []*http.Server
	inboxes []*inbox
	keys    sync.Map // key id → *rsa.PublicKey, fetched once for all
	bad     atomic.Int64
	badMsg  atomic.Value
}

// inbox is one remote server's shared inbox.
type inbox struct {
	slow bool
	dead bool
	mu   sync.Mutex
	at   time.Time // when it took the current post's Create (zero: not yet)
}

func startFleet(c config) (*fleet, error) {
	f := &fleet{}
	for i := range c.servers {
		in := &inbox{dead: i < c.dead, slow: i >= c.dead && i < c.dead+c.slow}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		f.bases = append(f.bases, "http://"+l.Addr().String())
		f.inboxes = append(f.inboxes, in)
		if in.dead {
			l.Close() // connection refused from now on
			continue
		}
		hs := &http.Server{Handler: f.handler(in, c.slowDelay), ReadHeaderTimeout: 10 * time.Second}
		f.servers = append(f.servers, hs)
		go hs.Serve(l)
	}
	return f, nil
}

func (f *fleet) close() {
	for _, s := range f.servers {
		s.Close()
	}
}

func (f *fleet) handler(in *inbox, slowDelay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := f.verify(r, body); err != nil {
			f.bad.Add(1)
			f.badMsg.Store(err.Error())
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if in.slow {
			time.Sleep(slowDelay)
		}
		in.mu.Lock()
		if in.at.IsZero() {
			in.at = time.Now()
		}
		in.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
}

// verify checks a delivery as a peer does.
func (f *fleet) verify(r *http.Request, body []byte) error {
	sum := sha256.Sum256(body)
	if r.Header.Get("Digest") != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
		return fmt.Errorf("digest does not match")
	}
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return err
	}
	pub, err := f.key(v.KeyId())
	if err != nil {
		return err
	}
	return v.Verify(pub, httpsig.RSA_SHA256)
}

func (f *fleet) key(keyID string) (*rsa.PublicKey, error) {
	if k, ok := f.keys.Load(keyID); ok {
		return k.(*rsa.PublicKey), nil
	}
	actor, _, _ := strings.Cut(keyID, "#")
	req, _ := http.NewRequest("GET", actor, nil)
	req.Header.Set("Accept", "application/activity+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var doc struct{ PublicKey struct{ PublicKeyPem string } }
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, err
	}
	block, _ := pem.Decode([]byte(doc.PublicKey.PublicKeyPem))
	if block == nil {
		return nil, fmt.Errorf("no key at %s", actor)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	f.keys.Store(keyID, k)
	return k.(*rsa.PublicKey), nil
}

func (f *fleet) reset() {
	for _, in := range f.inboxes {
		in.mu.Lock()
		in.at = time.Time{}
		in.mu.Unlock()
	}
}

func (f *fleet) healthyCount() int {
	n := 0
	for _, in := range f.inboxes {
		if !in.dead && !in.slow {
			n++
		}
	}
	return n
}

// healthyArrivals are when each healthy inbox took the current post.
func (f *fleet) healthyArrivals() []time.Time {
	var out []time.Time
	for _, in := range f.inboxes {
		if !in.dead && !in.slow {
			in.mu.Lock()
			out = append(out, in.at)
			in.mu.Unlock()
		}
	}
	return out
}

func (f *fleet) waitFor(within time.Duration, which func(*inbox) bool) error {
	deadline := time.Now().Add(within)
	for {
		left := 0
		for _, in := range f.inboxes {
			if which(in) {
				in.mu.Lock()
				if in.at.IsZero() {
					left++
				}
				in.mu.Unlock()
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d inboxes did not get the post within %v (refusals: %d %v)", left, within, f.bad.Load(), f.badMsg.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (f *fleet) waitHealthy(within time.Duration) error {
	return f.waitFor(within, func(in *inbox) bool { return !in.dead && !in.slow })
}

func (f *fleet) waitSlow(within time.Duration) error {
	return f.waitFor(within, func(in *inbox) bool { return in.slow })
}

func (f *fleet) refusals() int64 { return f.bad.Load() }

func (f *fleet) firstRefusal() any { return f.badMsg.Load() }
