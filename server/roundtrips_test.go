package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"microblog/store/storetest"
)

// roundTrips reads microblog_redis_round_trips_total of one route and
// method from /metrics (0 when the route has made none yet).
func (ts *testServer) roundTrips(t *testing.T, method, route string) float64 {
	t.Helper()
	_, body := ts.call(t, "GET", "/metrics", "", nil)
	want := fmt.Sprintf(`microblog_redis_round_trips_total{method=%q,route=%q} `, method, route)
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, want); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return n
		}
	}
	return 0
}

// A post by an author with fans, below the celebrity threshold, waits on
// Redis at most three times, its session's check included (twice once the
// session is remembered), on one Redis; on a cluster three more: a message
// and its indexes live on different masters, so its indexes follow it, its
// mark comes off (it is shown) once every index write has succeeded, and
// only then does its live event go out (a post is never shown live unless
// it is written whole and readable).
func TestPostRoundTrips(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	author, _ := ts.register(t, "author")
	for i := range 10 {
		fan, _ := ts.register(t, fmt.Sprintf("fan%d", i))
		ts.follow(t, fan, "author", true)
	}
	perPost := 3.0
	if storetest.ClusterMode() {
		perPost = 6
	}
	const route = "/api/v1/posts"
	// A script run on its own goes as EVALSHA, and once per Redis lifetime
	// as EVAL too, after the NOSCRIPT that a Redis that has never run it
	// answers: one post first, so that what is counted is a post's own
	// (the fresh Redis's first post took 5 round trips, once in a few runs,
	// when no fan-out or follow had run its scripts before it).
	ts.newPost(t, author, "the scripts' first run")
	// A session not checked yet: the first post checks it.
	fresh := ts.loginToken(t, "author", testPassword)
	before := ts.roundTrips(t, "POST", route)
	ts.newPost(t, fresh, "the first post of a new session")
	if n := ts.roundTrips(t, "POST", route) - before; n > perPost || n < 2 {
		t.Fatalf("a post with its session's check: %v round trips, want 2 to %v", n, perPost)
	}
	before = ts.roundTrips(t, "POST", route)
	const posts = 20
	for i := range posts {
		ts.newPost(t, author, fmt.Sprintf("post %d", i))
	}
	if n := (ts.roundTrips(t, "POST", route) - before) / posts; n > perPost {
		t.Fatalf("%v round trips per post, want at most %v", n, perPost)
	}
}
