package main

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"microblog/server/federation/fedifytest"
	"microblog/store"
)

// TestFedifyPollVotes: votes in polls, both ways, as Mastodon sends them.
// A local user's vote in the partner's poll (the native API, then a
// second poll through the Mastodon API) reaches the partner as one Create
// of a Note per option chosen, named after the option, inReplyTo the
// Question, addressed to the poll's author alone, without content, and
// counts here at once; the partner's votes in a local poll (one Note per
// option, a multiple-choice vote as two) are counted here, and a vote
// that is not an option, or a second one in a poll of one choice, is not.
func TestFedifyPollVotes(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t)
	bob, bobID := ts.register(t, "bob")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	ts.followRemote(t, bob, "bob", fedi)

	// Out, through the native API: two options of a multiple-choice poll.
	q := fedi.Post(t, fedifytest.Post{Content: "<p>Which drinks?</p>",
		Poll: &fedifytest.Poll{Options: []string{"tea", "coffee", "water"}, Multiple: true}})
	poll := ts.findPost(t, bob, "/api/v1/timelines/home", "the partner's poll", func(p store.Post) bool {
		return strings.Contains(p.Content, "Which drinks?") && p.Poll != nil
	})
	since := p.Seq(t)
	status, counted, body := ts.vote(t, bob, poll.ID, 0, 2)
	if status != http.StatusOK || !slices.Equal(optionCounts(counted), []int64{1, 0, 1}) || counted.VotersCount != 1 {
		t.Fatalf("vote: %d %s", status, body)
	}
	votes := map[string]fedifytest.Activity{}
	for len(votes) < 2 {
		a := p.Wait(t, since, fedWait, "bob's votes", func(a fedifytest.Activity) bool {
			return a.Type == "Create" && a.Actor == ts.actorURL(bobID) && a.InReplyTo == q.ID && votes[a.Name].ID == ""
		})
		votes[a.Name] = a
		since = a.Seq
	}
	for _, name := range []string{"tea", "water"} {
		a, ok := votes[name]
		if !ok {
			t.Fatalf("no vote for %q: %+v", name, votes)
		}
		if a.ObjectType != "Note" || a.Content != "" || !slices.Equal(a.To, []string{fedi.ID}) || len(a.CC) != 0 || a.AttributedTo != ts.actorURL(bobID) {
			t.Errorf("the vote for %q: %+v", name, a)
		}
	}
	if got := ts.fedPost(t, bob, poll.ID).Poll; got == nil || !slices.Equal(optionCounts(*got), []int64{1, 0, 1}) || !*got.Voted {
		t.Errorf("the poll here after the vote: %+v", got)
	}

	// Out, through the Mastodon API: one choice.
	q2 := fedi.Post(t, fedifytest.Post{Content: "<p>Morning or evening?</p>",
		Poll: &fedifytest.Poll{Options: []string{"morning", "evening"}}})
	poll2 := ts.findPost(t, bob, "/api/v1/timelines/home", "the second poll", func(p store.Post) bool {
		return strings.Contains(p.Content, "Morning or evening?") && p.Poll != nil
	})
	tok := ts.mastodonToken(t, "bob", bob, "")
	since = p.Seq(t)
	var mp struct {
		VotesCount int64 `json:"votes_count"`
		Voted      bool
		Options    []struct {
			Title      string
			VotesCount int64 `json:"votes_count"`
		}
	}
	ts.mastodonJSON(t, "POST", fmt.Sprintf("/api/v1/polls/%d/votes", poll2.ID), tok, url.Values{"choices[]": {"1"}}, &mp)
	if mp.VotesCount != 1 || !mp.Voted || len(mp.Options) != 2 || mp.Options[1].VotesCount != 1 {
		t.Errorf("the Mastodon API's vote: %+v", mp)
	}
	a := p.Wait(t, since, fedWait, "bob's vote through the Mastodon API", func(a fedifytest.Activity) bool {
		return a.Type == "Create" && a.Actor == ts.actorURL(bobID) && a.InReplyTo == q2.ID
	})
	if a.Name != "evening" || a.Content != "" || !slices.Equal(a.To, []string{fedi.ID}) {
		t.Errorf("the vote: %+v", a)
	}

	// A vote in a local poll sends nothing.
	alice, aliceID := ts.register(t, "alice")
	local := ts.pollPost(t, alice, "tabs or spaces?", map[string]any{"options": []string{"tabs", "spaces"}, "expires_in": 3600})
	since = p.Seq(t)
	if status, _, body := ts.vote(t, bob, local.ID, 0); status != http.StatusOK {
		t.Fatalf("a local vote: %d %s", status, body)
	}

	// In: the partner votes in alice's polls.
	voteIn := func(option string, mid int64) {
		fedi.Post(t, fedifytest.Post{Name: option, InReplyTo: ts.postURL(mid), Visibility: "direct", CC: []string{ts.actorURL(aliceID)}})
	}
	voteIn("spaces", local.ID)
	voteIn("tabs", local.ID) // a second vote in a poll of one choice: not taken
	voteIn("neither", local.ID)
	multi := ts.pollPost(t, alice, "which days?", map[string]any{"options": []string{"mon", "tue", "wed"}, "multiple": true, "expires_in": 3600})
	voteIn("mon", multi.ID)
	voteIn("wed", multi.ID)
	voteIn("wed", multi.ID) // the same choice again: once
	fedEventually(t, "the partner's votes counted", func() bool {
		p := ts.fedPost(t, alice, multi.ID).Poll
		return p != nil && slices.Equal(optionCounts(*p), []int64{1, 0, 1}) && p.VotersCount == 1
	}, func() string { return fmt.Sprintf("%+v", ts.fedPost(t, alice, multi.ID).Poll) })
	got := ts.fedPost(t, alice, local.ID).Poll
	if got == nil || !slices.Equal(optionCounts(*got), []int64{1, 1}) || got.VotesCount != 2 {
		t.Errorf("the one-choice poll after bob's and the partner's votes: %+v", got)
	}
	// None of it went out: bob's local vote, and the votes taken in. The
	// partner's inbox is shared by the tests that run beside this one: only
	// this server's actors count.
	seen, _ := p.Inbox(t, since)
	ours := strings.TrimSuffix(ts.actorURL(bobID), fmt.Sprint(bobID))
	for _, a := range seen {
		if a.Type == "Create" && a.InReplyTo != "" && strings.HasPrefix(a.Actor, ours) {
			t.Errorf("a vote in a local poll went out: %+v", a)
		}
	}
}
