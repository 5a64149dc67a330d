package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
)

// The server's keys on one Redis, without a prefix (store/redisdb/schema/keys.go;
// this module does not import the store, to keep its dependencies few).
const queueKey = "fanout:queue" // the STREAM of fan-out jobs

// fansKey is the ZSET of uid's fans.
func fansKey(uid int64) string { return "A:" + strconv.FormatInt(uid, 10) + ":fansID" }

// homeKey is the ZSET of uid's home timeline.
func homeKey(uid int64) string { return "G:" + strconv.FormatInt(uid, 10) + ":messageID" }

// author is one author of the load: its session and its made-up fans.
type author struct {
	token string
	fans  []int64
}

// post is a post answered: its id and its author (an index of authors).
type post struct {
	mid    int64
	author int
}

// setUp signs up the authors through the API, and makes each the star of
// fans made-up users of its own (never seen: all active), straight in
// Redis.
func setUp(ctx context.Context, client *http.Client, base string, rdb *redis.Client, authors, fans int) ([]author, error) {
	var out []author
	next := int64(1_000_000_000) // made-up fans, far from the authors' uids
	for i := range authors {
		var u struct {
			User struct {
				ID int64 `json:"id"`
			} `json:"user"`
			Token string `json:"token"`
		}
		err := spawn.Call(client, base, "POST", "/api/v1/users", "", map[string]string{
			"username": "author" + strconv.Itoa(i), "password": "rollingbench-password"}, http.StatusCreated, &u)
		if err != nil {
			return nil, err
		}
		a := author{token: u.Token}
		zs := make([]redis.Z, fans)
		for k := range zs {
			a.fans = append(a.fans, next)
			zs[k] = redis.Z{Score: float64(1_700_000_000_000 + k), Member: next}
			next++
		}
		if err := rdb.ZAdd(ctx, fansKey(u.User.ID), zs...).Err(); err != nil {
			return nil, fmt.Errorf("seed fans: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// load posts at a steady rate, the authors in turn, each post to the next
// process of the rotation; a request that fails is tried again on another,
// with the same Idempotency-Key, so a post is never made twice.
type load struct {
	quit    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	posts   []post
	retries int
	err     error
}

// maxTries bounds the tries of one post: a process that stops refuses
// connections only until the rotation has dropped it.
const maxTries = 5

// startLoad starts rate posts a second, c requests at a time at most.
func startLoad(client *http.Client, pool *rotation, authors []author, rate, c int) *load {
	l := &load{quit: make(chan struct{})}
	ticks := make(chan int)
	l.wg.Go(func() {
		defer close(ticks)
		t := time.NewTicker(time.Second / time.Duration(rate))
		defer t.Stop()
		for n := 0; ; n++ {
			select {
			case <-l.quit:
				return
			case <-t.C:
			}
			select {
			case ticks <- n:
			case <-l.quit:
				return
			}
		}
	})
	for range c {
		l.wg.Go(func() {
			for n := range ticks {
				l.one(client, pool, authors, n)
			}
		})
	}
	return l
}

// one makes post n.
func (l *load) one(client *http.Client, pool *rotation, authors []author, n int) {
	a := n % len(authors)
	key := "rolling-" + strconv.Itoa(n)
	var err error
	for try := range maxTries {
		var mid int64
		if mid, err = postTo(client, pool.pick().URL, authors[a].token, key); err == nil {
			l.mu.Lock()
			l.posts = append(l.posts, post{mid: mid, author: a})
			l.retries += try
			l.mu.Unlock()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	l.mu.Lock()
	l.err = fmt.Errorf("post %d: %d tries: %w", n, maxTries, err)
	l.mu.Unlock()
}

// stop ends the load and returns the posts answered and the retries.
func (l *load) stop() ([]post, int, error) {
	close(l.quit)
	l.wg.Wait()
	return l.posts, l.retries, l.err
}

// postTo posts once to base, with an Idempotency-Key, and returns the id.
func postTo(client *http.Client, base, token, key string) (int64, error) {
	body, _ := json.Marshal(map[string]string{"content": "Hello from the rolling restart"})
	req, err := http.NewRequest("POST", base+"/api/v1/posts", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return 0, fmt.Errorf("post: %s: %s", resp.Status, b)
	}
	var p struct {
		ID int64 `json:"id"`
	}
	return p.ID, json.Unmarshal(b, &p)
}

// check fails unless every post is in the home timeline (G set) of its
// author's first and last fan.
func check(ctx context.Context, rdb *redis.Client, authors []author, posts []post) error {
	cmds := make([]*redis.FloatCmd, 0, 2*len(posts))
	_, err := rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, p := range posts {
			fans := authors[p.author].fans
			for _, f := range []int64{fans[0], fans[len(fans)-1]} {
				cmds = append(cmds, pl.ZScore(ctx, homeKey(f), strconv.FormatInt(p.mid, 10)))
			}
		}
		return nil
	})
	if err != nil && err != redis.Nil {
		return fmt.Errorf("check home timelines: %w", err)
	}
	missing := 0
	for _, c := range cmds {
		if c.Err() != nil {
			missing++
		}
	}
	if missing > 0 {
		return fmt.Errorf("%d of %d home timeline entries missing after the queue emptied", missing, len(cmds))
	}
	return nil
}
