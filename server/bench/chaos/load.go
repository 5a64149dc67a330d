package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// world is the run's users and what they do through the public API:
// authors post (each post with an Idempotency-Key of its own, retried with
// that key as the contract asks), fans follow a fixed set of the authors,
// read their live feeds (live.go) and like and unlike posts, and churners
// follow and unfollow authors and read timelines.
type world struct {
	cfg      config
	b        *backends
	client   *http.Client
	led      *ledger
	authors  []*user
	fans     []*user
	churners []*user
	// stars are the authors each fan follows, by the fan's index.
	stars [][]*user
}

// setUp signs the users up and has each fan follow about half the authors
// (one at least), chosen with rng.
func setUp(ctx context.Context, cfg config, b *backends, led *ledger, rng *rand.Rand) (*world, error) {
	w := &world{cfg: cfg, b: b, led: led, client: &http.Client{
		Timeout:   15 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64},
	}}
	pick := func() string { return b.pick(rng) }
	for _, role := range []struct {
		name string
		n    int
		to   *[]*user
	}{{"author", cfg.authors, &w.authors}, {"fan", cfg.fans, &w.fans}, {"churner", cfg.churners, &w.churners}} {
		for i := range role.n {
			u, err := register(ctx, w.client, pick, rng, role.name+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			*role.to = append(*role.to, u)
		}
	}
	for _, f := range w.fans {
		var stars []*user
		for _, a := range w.authors {
			if rng.IntN(2) == 0 {
				stars = append(stars, a)
			}
		}
		if len(stars) == 0 {
			stars = append(stars, w.authors[rng.IntN(len(w.authors))])
		}
		for _, a := range stars {
			if !w.setMark(ctx, ctx, pick, rng, "follow", f, a.id, "/api/v1/users/"+a.name+"/follow", true) {
				return nil, fmt.Errorf("%s could not follow %s", f.name, a.name)
			}
		}
		w.stars = append(w.stars, stars)
	}
	return w, nil
}

// run starts the load: it writes until load ends, and a write under way
// then goes on being retried until grace ends. wait waits for the end.
func (w *world) run(load, grace context.Context, seed uint64) (wait func()) {
	var wg sync.WaitGroup
	stream := uint64(0)
	goEach := func(users []*user, act func(load, grace context.Context, u *user, i int, rng *rand.Rand)) {
		for i, u := range users {
			stream++
			rng := rand.New(rand.NewPCG(seed, stream))
			wg.Go(func() { act(load, grace, u, i, rng) })
		}
	}
	goEach(w.authors, w.author)
	goEach(w.fans, w.liker)
	goEach(w.churners, w.churner)
	return wg.Wait
}

// pause sleeps about d (half to one and a half times), or until ctx ends.
func pause(ctx context.Context, rng *rand.Rand, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d/2 + time.Duration(rng.Int64N(int64(d)+1))):
	}
}

// author posts, one post at a time, about cfg.rate posts a second over all
// authors.
func (w *world) author(load, grace context.Context, a *user, _ int, rng *rand.Rand) {
	pick := func() string { return w.b.pick(rng) }
	every := time.Duration(float64(time.Second) * float64(len(w.authors)) / w.cfg.rate)
	for n := 0; load.Err() == nil; n++ {
		key := fmt.Sprintf("%s-%d", a.name, n)
		w.led.tryPost(key, a.id)
		ans, err := retry(grace, w.client, pick, rng, w.led.retried, "POST", "/api/v1/posts", a.token, key,
			map[string]string{"content": postContent(key)})
		switch {
		case err != nil: // never acknowledged
		case ans.status == http.StatusCreated:
			var p struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal(ans.body, &p); err != nil || p.ID == 0 {
				w.led.surprise("post 201 without an id")
				continue
			}
			w.led.post(key, p.ID)
		default:
			w.led.surprise("post " + ans.outcome())
		}
		pause(load, rng, every)
	}
}

// postContent is the text of the post whose Idempotency-Key is key: the
// checker finds the key in it.
func postContent(key string) string { return "chaos " + key }

// liker likes an acknowledged post, or unlikes one it liked, about
// cfg.likeRate times a second over all fans.
func (w *world) liker(load, grace context.Context, f *user, _ int, rng *rand.Rand) {
	pick := func() string { return w.b.pick(rng) }
	every := time.Duration(float64(time.Second) * float64(len(w.fans)) / w.cfg.likeRate)
	liked := map[int64]bool{}
	for load.Err() == nil {
		pause(load, rng, every)
		mid := w.led.someAcked(rng)
		if mid == 0 {
			continue
		}
		on := !liked[mid]
		w.setMark(load, grace, pick, rng, "like", f, mid, "/api/v1/posts/"+strconv.FormatInt(mid, 10)+"/like", on)
		liked[mid] = on
	}
}

// churner follows an author it does not follow, or unfollows one it does,
// then reads its home timeline and the author's posts, about
// cfg.followRate times a second over all churners.
func (w *world) churner(load, grace context.Context, c *user, _ int, rng *rand.Rand) {
	pick := func() string { return w.b.pick(rng) }
	every := time.Duration(float64(time.Second) * float64(len(w.churners)) / w.cfg.followRate)
	follows := map[int64]bool{}
	for load.Err() == nil {
		pause(load, rng, every)
		a := w.authors[rng.IntN(len(w.authors))]
		on := !follows[a.id]
		w.setMark(load, grace, pick, rng, "follow", c, a.id, "/api/v1/users/"+a.name+"/follow", on)
		follows[a.id] = on
		for _, path := range []string{"/api/v1/timelines/home?limit=20", "/api/v1/users/" + a.name + "/posts?limit=20"} {
			ans := call(load, w.client, pick(), "GET", path, c.token, "", nil)
			w.led.read(ans.err == nil && ans.status == http.StatusOK)
		}
	}
}

// setMark likes (kind "like") or follows what, or undoes it (on false),
// with PUT or DELETE at path, retried as the contract asks until grace
// ends, and notes in the ledger whether it was acknowledged. A write is
// started only while load lasts.
func (w *world) setMark(load, grace context.Context, pick func() string, rng *rand.Rand, kind string, u *user, what int64, path string, on bool) bool {
	if load.Err() != nil {
		return false
	}
	method := "PUT"
	if !on {
		method = "DELETE"
	}
	ans, err := retry(grace, w.client, pick, rng, w.led.retried, method, path, u.token, "", nil)
	ok := err == nil && ans.status == http.StatusNoContent
	if err == nil && !ok {
		w.led.surprise(kind + " " + ans.outcome())
	}
	w.led.mark(kind, pair{u.id, what}, on, ok)
	return ok
}
