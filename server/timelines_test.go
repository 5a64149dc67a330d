package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// These tests drive the hybrid timelines through the HTTP API and look into
// Redis only to check where posts are (pushed into G or not).

// homeIDs pages token's whole home timeline with ?limit=limit and the
// cursor, newest first; query is added to the first page's URL.
func (ts *testServer) homeIDs(t testing.TB, token string, limit int, query string) []int64 {
	t.Helper()
	var out []int64
	path := "/api/v1/timelines/home?limit=" + strconv.Itoa(limit) + query
	for range 1000 {
		status, body := ts.call(t, "GET", path, token, nil)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		var page struct {
			Items      []struct{ ID int64 }
			NextCursor *string `json:"next_cursor"`
		}
		mustDecode(t, body, &page)
		for _, p := range page.Items {
			out = append(out, p.ID)
		}
		if page.NextCursor == nil {
			return out
		}
		path = "/api/v1/timelines/home?limit=" + strconv.Itoa(limit) + "&cursor=" + *page.NextCursor
	}
	t.Fatal("home timeline pages without end")
	return nil
}

// settle waits until every fan-out job is done.
func settle(t testing.TB, rdb redis.UniversalClient) {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for {
		n, err := rdb.XLen(context.Background(), keysOf(rdb).FanOutQueue()).Result()
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fan-out queue still holds %d jobs (%v)", n, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// inG tells whether mid was pushed into uid's G set.
func inG(rdb redis.UniversalClient, uid, mid int64) bool {
	_, err := rdb.ZScore(context.Background(), keysOf(rdb).Home(uid), strconv.FormatInt(mid, 10)).Result()
	return err == nil
}

func reversed(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}

// TestCelebrityPostsArePulled: with the threshold at 3, a celebrity's posts
// reach its fans' home timelines merged by id with an ordinary star's, 300
// of them page with no gap and no duplicate, after= works, and the fans' G
// sets never hold the celebrity's posts.
func TestCelebrityPostsArePulled(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_CELEBRITY_FANS=3")
	rdb := ts.rdb()
	celebTok, celebID := ts.register(t, "celeb")
	plainTok, _ := ts.register(t, "plain")
	var fanToks []string
	var fanIDs []int64
	for _, name := range []string{"fan1", "fan2", "fan3"} {
		tok, id := ts.register(t, name)
		ts.follow(t, tok, "celeb", true)
		ts.follow(t, tok, "plain", true)
		fanToks, fanIDs = append(fanToks, tok), append(fanIDs, id)
	}
	var all, byCeleb []int64
	for i := range 300 {
		if i%3 == 0 {
			all = append(all, ts.newPost(t, plainTok, fmt.Sprint("plain ", i)))
			continue
		}
		id := ts.newPost(t, celebTok, fmt.Sprint("celeb ", i))
		all, byCeleb = append(all, id), append(byCeleb, id)
	}
	want := reversed(all)
	for i, tok := range fanToks {
		// Read at once, fan-outs perhaps still in flight: nothing may be missing.
		if got := ts.homeIDs(t, tok, 37, ""); !slices.Equal(got, want) {
			t.Fatalf("fan%d's home (%d posts) differs from the %d written", i+1, len(got), len(want))
		}
	}
	if got := ts.homeIDs(t, fanToks[0], 10, "&after="+strconv.FormatInt(all[279], 10)); !slices.Equal(got, want[:20]) {
		t.Fatalf("after=%d gave %v, want %v", all[279], got, want[:20])
	}
	settle(t, rdb)
	for _, fan := range fanIDs {
		for _, mid := range byCeleb {
			if inG(rdb, fan, mid) {
				t.Fatalf("celebrity %d's post %d was pushed into fan %d's G", celebID, mid, fan)
			}
		}
	}
}

// TestCrossingTheCelebrityThreshold: fans follow and unfollow around the
// threshold while the author posts; no post is lost or doubled in any fan's
// home timeline, during the changes or after.
func TestCrossingTheCelebrityThreshold(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_CELEBRITY_FANS=3")
	starTok, _ := ts.register(t, "star")
	steady := map[string]string{}
	for _, name := range []string{"a1", "a2"} {
		tok, _ := ts.register(t, name)
		ts.follow(t, tok, "star", true)
		steady[name] = tok
	}
	var extra []string
	for _, name := range []string{"b1", "b2", "b3"} {
		tok, _ := ts.register(t, name)
		extra = append(extra, tok)
	}
	var posts []int64
	check := func(when string) {
		want := reversed(posts)
		for name, tok := range steady {
			if got := ts.homeIDs(t, tok, 7, ""); !slices.Equal(got, want) {
				t.Fatalf("%s: %s sees %v, want %v", when, name, got, want)
			}
		}
	}
	for round := range 6 {
		tok := extra[round%len(extra)]
		ts.follow(t, tok, "star", true) // 3 fans: up
		posts = append(posts, ts.newPost(t, starTok, "as a celebrity"))
		check(fmt.Sprint("round ", round, " up"))
		ts.follow(t, tok, "star", false) // 2 fans: down
		posts = append(posts, ts.newPost(t, starTok, "pushed again"))
		check(fmt.Sprint("round ", round, " down"))
	}
	settle(t, ts.rdb())
	check("settled")
}

// TestInactiveFanPullsOnReturn: a fan away for longer than
// MICROBLOG_INACTIVE_AFTER gets no pushes (its G untouched), and on its
// return sees exactly what a twin who stayed active sees.
func TestInactiveFanPullsOnReturn(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_INACTIVE_AFTER=2s")
	rdb := ts.rdb()
	s1, _ := ts.register(t, "star1")
	s2, _ := ts.register(t, "star2")
	awayTok, awayID := ts.register(t, "away")
	twinTok, _ := ts.register(t, "twin")
	for _, tok := range []string{awayTok, twinTok} {
		ts.follow(t, tok, "star1", true)
		ts.follow(t, tok, "star2", true)
	}
	ts.newPost(t, s1, "seen by both")
	settle(t, rdb)
	ts.homeIDs(t, awayTok, 20, "")
	gKey := keysOf(rdb).Home(awayID)
	gBefore := rdb.ZRange(context.Background(), gKey, 0, -1).Val()

	// The twin keeps reading; the other one stays away.
	for deadline := time.Now().Add(2500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		ts.homeIDs(t, twinTok, 20, "")
	}
	for i := range 8 {
		ts.newPost(t, []string{s1, s2}[i%2], fmt.Sprint("while away ", i))
		ts.homeIDs(t, twinTok, 20, "")
	}
	settle(t, rdb)
	if gNow := rdb.ZRange(context.Background(), gKey, 0, -1).Val(); !slices.Equal(gNow, gBefore) {
		t.Fatalf("pushes reached a fan away for 2.5s: G holds %v, held %v", gNow, gBefore)
	}
	twin := ts.homeIDs(t, twinTok, 3, "")
	if back := ts.homeIDs(t, awayTok, 3, ""); !slices.Equal(back, twin) || len(twin) != 9 {
		t.Fatalf("back after 2.5s the fan sees %v; the twin sees %v", back, twin)
	}
	if n := metric(t, ts, "microblog_timeline_rebuilds_total"); n < 1 {
		t.Fatalf("%v rebuilds counted, want at least 1", n)
	}
}
