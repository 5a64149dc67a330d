package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"microblog/store"
)

// pollPost posts content with poll as token's user and returns the Post.
func (ts *testServer) pollPost(t testing.TB, token, content string, poll map[string]any) store.Post {
	t.Helper()
	status, body := ts.call(t, "POST", "/api/v1/posts", token, map[string]any{"content": content, "poll": poll})
	if status != http.StatusCreated {
		t.Fatalf("post with a poll: %d %s", status, body)
	}
	var p store.Post
	mustDecode(t, body, &p)
	if p.Poll == nil {
		t.Fatalf("post with a poll has none: %s", body)
	}
	return p
}

// vote votes choices in poll id as token's user and returns the status and Poll.
func (ts *testServer) vote(t testing.TB, token string, id int64, choices ...int) (int, store.Poll, []byte) {
	t.Helper()
	status, body := ts.call(t, "POST", fmt.Sprintf("/api/v1/polls/%d/votes", id), token, map[string]any{"choices": choices})
	var p store.Poll
	if status == http.StatusOK {
		mustDecode(t, body, &p)
	}
	return status, p, body
}

func optionCounts(p store.Poll) []int64 {
	var out []int64
	for _, o := range p.Options {
		out = append(out, o.VotesCount)
	}
	return out
}

// TestPollValidation: a poll out of the contract's bounds is 422
// invalid_poll, and nothing is stored.
func TestPollValidation(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	long51 := ""
	for range 51 {
		long51 += "长"
	}
	for _, poll := range []map[string]any{
		{"options": []string{"one"}, "expires_in": 3600},
		{"options": []string{"a", "b", "c", "d", "e"}, "expires_in": 3600},
		{"options": []string{"a", ""}, "expires_in": 3600},
		{"options": []string{"a", "  "}, "expires_in": 3600},
		{"options": []string{"a", long51}, "expires_in": 3600},
		{"options": []string{"a", "a"}, "expires_in": 3600},
		{"options": []string{"a", "b"}, "expires_in": 299},
		{"options": []string{"a", "b"}, "expires_in": 604801},
		{"options": []string{"a", "b"}},
	} {
		status, body := ts.call(t, "POST", "/api/v1/posts", alice, map[string]any{"content": "poll", "poll": poll})
		if status != http.StatusUnprocessableEntity || errorCode(t, body) != "invalid_poll" {
			t.Errorf("poll %v: %d %s, want 422 invalid_poll", poll, status, body)
		}
	}
	p := ts.newPost(t, alice, "a post")
	status, body := ts.call(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", p), alice,
		map[string]any{"content": "c", "poll": map[string]any{"options": []string{"a", "b"}, "expires_in": 600}})
	if status != http.StatusCreated { // a comment takes no poll field: it is not read there
		t.Fatalf("comment: %d %s", status, body)
	}
	var me store.User
	ts.getJSON(t, alice, "/api/v1/me", &me)
	if me.PostsCount != 1 {
		t.Fatalf("posts_count %d after refused polls, want 1", me.PostsCount)
	}
	ts.wantStatus(t, "POST", "/api/v1/polls/999999/votes", alice, map[string]any{"choices": []int{0}}, 404, "post_not_found")
	ts.wantStatus(t, "POST", fmt.Sprintf("/api/v1/polls/%d/votes", p), alice, map[string]any{"choices": []int{0}}, 404, "poll_not_found")
}

// TestPollVotes: a poll reads with no votes, takes one vote per user (409
// already_voted), checks the choices (422 invalid_choices), counts votes
// and voters, shows each reader its own votes (null when anonymous), is
// 404 on a post the voter may not see, and 422 poll_expired once closed.
func TestPollVotes(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	before := time.Now()
	p := ts.pollPost(t, alice, "Tea or coffee?", map[string]any{"options": []string{" Tea ", "Coffee", "水"}, "expires_in": 3600})
	poll := p.Poll
	if poll.ID != p.ID || len(poll.Options) != 3 || poll.Options[0].Title != "Tea" || poll.Multiple || poll.Expired ||
		poll.VotesCount != 0 || poll.Voted == nil || *poll.Voted || poll.OwnVotes == nil {
		t.Fatalf("new poll %+v", *poll)
	}
	exp := time.UnixMilli(int64(poll.ExpiresAt))
	if exp.Before(before.Add(3599*time.Second)) || exp.After(time.Now().Add(3601*time.Second)) {
		t.Fatalf("expires_at %v, want an hour from now", exp)
	}
	status, got, body := ts.vote(t, bob, p.ID, 1)
	if status != http.StatusOK || !slices.Equal(optionCounts(got), []int64{0, 1, 0}) || got.VotersCount != 1 ||
		got.VotesCount != 1 || got.Voted == nil || !*got.Voted || !slices.Equal(got.OwnVotes, []int{1}) {
		t.Fatalf("bob's vote: %d %s", status, body)
	}
	if status, _, body := ts.vote(t, bob, p.ID, 0); status != http.StatusConflict || errorCode(t, body) != "already_voted" {
		t.Fatalf("bob's second vote: %d %s", status, body)
	}
	for _, choices := range [][]int{{0, 1}, {3}, {-1}, {}} {
		if status, _, body := ts.vote(t, carol, p.ID, choices...); status != http.StatusUnprocessableEntity || errorCode(t, body) != "invalid_choices" {
			t.Fatalf("carol's vote %v: %d %s", choices, status, body)
		}
	}
	ts.wantStatus(t, "POST", fmt.Sprintf("/api/v1/polls/%d/votes", p.ID), "", map[string]any{"choices": []int{0}}, 401, "")
	if status, _, _ := ts.vote(t, carol, p.ID, 1); status != http.StatusOK {
		t.Fatal("carol's vote")
	}
	// Every reader sees the counts; each its own votes; the anonymous none.
	var read store.Post
	ts.getJSON(t, bob, fmt.Sprintf("/api/v1/posts/%d", p.ID), &read)
	if !slices.Equal(optionCounts(*read.Poll), []int64{0, 2, 0}) || read.Poll.VotersCount != 2 || !*read.Poll.Voted || !slices.Equal(read.Poll.OwnVotes, []int{1}) {
		t.Fatalf("bob reads %+v", *read.Poll)
	}
	status, body = ts.call(t, "GET", fmt.Sprintf("/api/v1/posts/%d", p.ID), "", nil)
	var raw struct {
		Poll map[string]json.RawMessage `json:"poll"`
	}
	mustDecode(t, body, &raw)
	if status != 200 || string(raw.Poll["voted"]) != "null" || string(raw.Poll["own_votes"]) != "null" {
		t.Fatalf("anonymous read: %d %s", status, body)
	}
	ts.getJSON(t, alice, "/api/v1/timelines/home", new(store.Page[store.Post]))
	var home store.Page[store.Post]
	ts.getJSON(t, alice, "/api/v1/timelines/home", &home)
	if len(home.Items) == 0 || home.Items[0].Poll == nil || home.Items[0].Poll.VotersCount != 2 || *home.Items[0].Poll.Voted {
		t.Fatalf("alice's home: %+v", home.Items)
	}

	// A multiple-choice poll takes several choices, each once.
	m := ts.pollPost(t, alice, "Pick any", map[string]any{"options": []string{"a", "b", "c", "d"}, "expires_in": 300, "multiple": true})
	if !m.Poll.Multiple {
		t.Fatal("multiple not kept")
	}
	if status, _, body := ts.vote(t, bob, m.ID, 0, 0); status != 422 {
		t.Fatalf("a choice twice: %d %s", status, body)
	}
	if status, got, body := ts.vote(t, bob, m.ID, 0, 3); status != 200 || !slices.Equal(optionCounts(got), []int64{1, 0, 0, 1}) || got.VotesCount != 2 || got.VotersCount != 1 {
		t.Fatalf("multiple vote: %d %s", status, body)
	}

	// A protected author's poll: 404 to whom may not see it, as its post.
	ts.wantStatus(t, "PATCH", "/api/v1/me", alice, map[string]any{"protected": true}, 200, "")
	if status, _, body := ts.vote(t, carol, m.ID, 1); status != 404 || errorCode(t, body) != "post_not_found" {
		t.Fatalf("vote on a hidden post: %d %s", status, body)
	}
	ts.wantStatus(t, "PATCH", "/api/v1/me", alice, map[string]any{"protected": false}, 200, "")

	// Closed: its time has passed (the poll's own close time, which the
	// vote script checks, set back an hour).
	rdb := ts.rdb()
	if err := rdb.HSet(context.Background(), keysOf(rdb).PollVotes(m.ID), "expires", time.Now().Add(-time.Hour).UnixMilli()).Err(); err != nil {
		t.Fatal(err)
	}
	if status, _, body := ts.vote(t, carol, m.ID, 1); status != 422 || errorCode(t, body) != "poll_expired" {
		t.Fatalf("vote on a closed poll: %d %s", status, body)
	}
	// Deleting the post takes its votes' keys with it.
	ts.wantStatus(t, "DELETE", fmt.Sprintf("/api/v1/posts/%d", m.ID), alice, nil, 204, "")
	if n := rdb.Exists(context.Background(), keysOf(rdb).PollVotes(m.ID), keysOf(rdb).PollVoters(m.ID)).Val(); n != 0 {
		t.Fatalf("%d poll keys left after its post's delete", n)
	}
}

// TestPollLiveCoalesced: 40 votes as fast as 8 clients can send them reach
// the author's live feed as a few poll events, not 40, the last with every
// vote counted; a vote is one round trip more than reading the post.
func TestPollLiveCoalesced(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	const voters = 40
	tokens := make([]string, voters)
	for i := range tokens {
		tokens[i], _ = ts.register(t, fmt.Sprint("voter", i))
	}
	ws := ts.dialWS(t, alice, "")
	ws.ready(t)
	p := ts.pollPost(t, alice, "Live?", map[string]any{"options": []string{"yes", "no"}, "expires_in": 600})
	ws.expect(t, store.EventPost, p.ID)

	// Round trips: a vote costs no more than reading its post, whose poll's
	// counts it does not read (its script answers them), once the script is
	// loaded (the very first call sends it whole). The votes' span starts
	// here: these first two open windows of their own when the machine is
	// slow to get to the burst below.
	start := time.Now()
	ts.vote(t, tokens[0], p.ID, 0)
	ts.getJSON(t, tokens[1], fmt.Sprintf("/api/v1/posts/%d", p.ID), new(store.Post)) // the session remembered
	read0 := ts.roundTrips(t, "GET", "/api/v1/posts/:id")
	ts.getJSON(t, tokens[1], fmt.Sprintf("/api/v1/posts/%d", p.ID), new(store.Post))
	read := ts.roundTrips(t, "GET", "/api/v1/posts/:id") - read0
	vote0 := ts.roundTrips(t, "POST", "/api/v1/polls/:id/votes")
	ts.vote(t, tokens[1], p.ID, 0)
	if n := ts.roundTrips(t, "POST", "/api/v1/polls/:id/votes") - vote0; n != read {
		t.Fatalf("a vote: %v round trips, want %v, as reading the post (its hash; then the script, for the poll's counts)", n, read)
	}

	var wg sync.WaitGroup
	next := make(chan string)
	for range 8 {
		wg.Go(func() {
			for tok := range next {
				if status, _, body := ts.vote(t, tok, p.ID, len(tok)%2); status != 200 {
					t.Errorf("vote: %d %s", status, body)
				}
			}
		})
	}
	for _, tok := range tokens[2:] {
		next <- tok
	}
	close(next)
	wg.Wait()
	took := time.Since(start)
	events := 0
	for {
		f := ws.expect(t, store.EventPoll, 0)
		var d store.PollData
		if err := json.Unmarshal(f.Data, &d); err != nil || d.PostID != p.ID || d.Poll == nil {
			t.Fatalf("poll frame %s", f)
		}
		if d.Poll.Voted != nil || d.Poll.OwnVotes != nil {
			t.Fatalf("a live poll carries someone's own votes: %s", f)
		}
		events++
		if d.Poll.VotersCount == voters {
			break
		}
	}
	// One event per 250 ms window of the votes' span at most, and the first
	// vote's own.
	if most := int(took/(250*time.Millisecond)) + 2; events > most {
		t.Fatalf("%d poll events for %d votes in %v, want at most %d", events, voters, took, most)
	}
	t.Logf("%d votes in %v: %d live events", voters, took, events)
}

// TestPollArchived: a poll's definition goes to the archive with its post,
// and its votes stay in Redis when the post leaves the hot window: the
// archived post shows its counts and still takes votes.
func TestPollArchived(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_HOT_WINDOW=10")
	alice, _ := ts.register(t, "alice")
	bob, _ := ts.register(t, "bob")
	carol, _ := ts.register(t, "carol")
	p := ts.pollPost(t, alice, "Archived poll", map[string]any{"options": []string{"left", "right"}, "expires_in": 86400})
	if status, _, _ := ts.vote(t, bob, p.ID, 1); status != 200 {
		t.Fatal("bob's vote")
	}
	for i := range 12 {
		ts.newPost(t, alice, fmt.Sprint("newer ", i))
	}
	rdb := ts.rdb()
	deadline := time.Now().Add(hangWait)
	for rdb.Exists(context.Background(), keysOf(rdb).Post(p.ID)).Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the poll's post never left Redis")
		}
		archiveSettled(t, rdb)
		time.Sleep(20 * time.Millisecond)
	}
	var read store.Post
	ts.getJSON(t, bob, fmt.Sprintf("/api/v1/posts/%d", p.ID), &read)
	if read.Poll == nil || read.Poll.Options[1].Title != "right" || !slices.Equal(optionCounts(*read.Poll), []int64{0, 1}) ||
		!*read.Poll.Voted || read.Poll.ExpiresAt != p.Poll.ExpiresAt {
		t.Fatalf("archived poll read: %+v", read.Poll)
	}
	status, got, body := ts.vote(t, carol, p.ID, 0)
	if status != 200 || !slices.Equal(optionCounts(got), []int64{1, 1}) || got.VotersCount != 2 {
		t.Fatalf("vote on an archived post's poll: %d %s", status, body)
	}
	if status, _, _ := ts.vote(t, bob, p.ID, 0); status != 409 {
		t.Fatalf("bob votes again on the archived poll: %d", status)
	}
}

// TestPollLiveHidden (CONTRACT.md §17): a poll event never reaches a
// socket whose user may not see the poll's post: kai follows alice but
// mutes her, lou follows her; lou gets the poll's counts, kai nothing of
// them before carol's later post.
func TestPollLiveHidden(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	alice, _ := ts.register(t, "alice")
	carol, _ := ts.register(t, "carol")
	bob, _ := ts.register(t, "bob")
	kai, _ := ts.register(t, "kai")
	lou, _ := ts.register(t, "lou")
	for _, fan := range []string{kai, lou} {
		ts.follow(t, fan, "alice", true)
	}
	ts.follow(t, kai, "carol", true)
	ts.wantStatus(t, "PUT", "/api/v1/users/alice/mute", kai, nil, http.StatusNoContent, "")
	kws, lws := ts.dialWS(t, kai, ""), ts.dialWS(t, lou, "")
	kws.ready(t)
	lws.ready(t)
	p := ts.pollPost(t, alice, "muted poll", map[string]any{"options": []string{"a", "b"}, "expires_in": 600})
	if status, _, body := ts.vote(t, bob, p.ID, 0); status != http.StatusOK {
		t.Fatalf("vote: %d %s", status, body)
	}
	lws.expect(t, store.EventPost, p.ID)
	f := lws.expect(t, store.EventPoll, 0)
	if !strings.Contains(string(f.Data), fmt.Sprintf(`"post_id":%d`, p.ID)) {
		t.Fatalf("lou's poll frame %s", f)
	}
	later := ts.newPost(t, carol, "after the poll")
	for {
		f := kws.Next(t, hangWait)
		if f.Event == store.EventPoll || (f.Event == store.EventPost && f.ID() == p.ID) {
			t.Fatalf("kai, who mutes alice, got %s", f)
		}
		if f.Event == store.EventPost && f.ID() == later {
			break
		}
	}
}

// TestMastodonPollJSON: a Mastodon app that sends JSON (as masto does)
// posts a status with a poll object, votes with choices as strings, and
// reads the Poll: the author's shows voted false and own_votes [].
func TestMastodonPollJSON(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	author, _ := ts.mastodonUser(t, "mauthor", "")
	voter, _ := ts.mastodonUser(t, "mvoter", "")
	status, body := ts.call(t, "POST", "/api/v1/statuses", author,
		map[string]any{"status": "JSON poll", "poll": map[string]any{"options": []string{"one", "two"}, "expires_in": "300", "multiple": true}})
	var st struct {
		ID   string
		Poll struct {
			ID       string
			Multiple bool
			Options  []struct{ Title string }
		}
	}
	mustDecode(t, body, &st)
	if status != 200 || st.Poll.ID != st.ID || !st.Poll.Multiple || len(st.Poll.Options) != 2 {
		t.Fatalf("status with a poll: %d %s", status, body)
	}
	status, body = ts.call(t, "POST", "/api/v1/polls/"+st.ID+"/votes", voter, map[string]any{"choices": []string{"0", "1"}})
	if status != 200 || !strings.Contains(string(body), `"own_votes":[0,1]`) || !strings.Contains(string(body), `"voters_count":1`) {
		t.Fatalf("vote: %d %s", status, body)
	}
	status, body = ts.call(t, "GET", "/api/v1/polls/"+st.ID, author, nil)
	if status != 200 || !strings.Contains(string(body), `"voted":false,"own_votes":[]`) || !strings.Contains(string(body), `"votes_count":2`) {
		t.Fatalf("the author's poll: %d %s", status, body)
	}
	status, body = ts.call(t, "POST", "/api/v1/statuses", author, map[string]any{"status": "bad", "poll": map[string]any{"options": []string{"one"}, "expires_in": 300}})
	if status != 422 {
		t.Fatalf("a one-option poll: %d %s", status, body)
	}
}
