package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"microblog/store"
)

// question is a Question of the peer's actor name with choices counted as
// given (anyOf when multiple).
func question(p *fakePeer, name, id string, multiple bool, counts map[string]int, order ...string) map[string]any {
	var choices []map[string]any
	for _, o := range order {
		choices = append(choices, map[string]any{"type": "Note", "name": o,
			"replies": map[string]any{"type": "Collection", "totalItems": counts[o]}})
	}
	q := map[string]any{"id": id, "type": "Question", "attributedTo": p.actor(name), "content": "<p>Which one?</p>",
		"to": []string{"https://www.w3.org/ns/activitystreams#Public"}, "endTime": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	if multiple {
		q["anyOf"] = choices
	} else {
		q["oneOf"] = choices
	}
	return q
}

// TestFedInQuestion: a remote Question arrives as a post with its poll
// (choices, closing time, multiple choice) and its server's counts, and an
// Update of it sets the new counts; another actor's Update is refused and
// changes nothing; a Question the service cannot keep as a poll (six
// choices) arrives as its text alone.
func TestFedInQuestion(t *testing.T) {
	parallel(t)
	ts := newFedServer(t)
	peer := newFakePeer(t)
	peer.addActor("quiz")
	peer.addActor("mallory")
	tok, _ := ts.register(t, "alice")
	inbox := ts.URL + "/ap/inbox"
	id := peer.actor("quiz") + "/questions/1"
	order := []string{"tea", "coffee", "water"}

	q := question(peer, "quiz", id, true, map[string]int{"tea": 2, "coffee": 1}, order...)
	if st := peer.send(t, inbox, "quiz", map[string]any{"id": id + "/create", "type": "Create", "object": q}); st != http.StatusAccepted {
		t.Fatalf("Create: %d", st)
	}
	posts := func() []store.Post {
		var page struct{ Items []store.Post }
		ts.getJSON(t, tok, "/api/v1/users/"+peer.handle("quiz")+"/posts", &page)
		return page.Items
	}
	ps := posts()
	if len(ps) != 1 || ps[0].Poll == nil {
		t.Fatalf("the Question's post: %+v", ps)
	}
	poll := ps[0].Poll
	if len(poll.Options) != 3 || poll.Options[1].Title != "coffee" || !poll.Multiple ||
		poll.Options[0].VotesCount != 2 || poll.Options[1].VotesCount != 1 || poll.VotersCount != 2 {
		t.Errorf("the poll: %+v", poll)
	}
	if left := time.Until(time.UnixMilli(int64(poll.ExpiresAt))); left < 55*time.Minute || left > 65*time.Minute {
		t.Errorf("the poll closes in %v, want an hour", left)
	}

	counts := func() string {
		p := ts.fedPost(t, tok, ps[0].ID).Poll
		return fmt.Sprintf("%d %d %d / %d", p.Options[0].VotesCount, p.Options[1].VotesCount, p.Options[2].VotesCount, p.VotersCount)
	}
	q = question(peer, "quiz", id, true, map[string]int{"tea": 5, "coffee": 4, "water": 1}, order...)
	q["votersCount"] = 7
	if st := peer.send(t, inbox, "quiz", map[string]any{"id": id + "/update/1", "type": "Update", "object": q}); st != http.StatusAccepted {
		t.Fatalf("Update: %d", st)
	}
	if got := counts(); got != "5 4 1 / 7" {
		t.Errorf("counts after the Update: %s, want 5 4 1 / 7", got)
	}

	// Another's Update of it: refused, nothing changed.
	forged := question(peer, "quiz", id, true, map[string]int{"water": 99}, order...)
	forged["votersCount"] = 99
	if st := peer.send(t, inbox, "mallory", map[string]any{"id": peer.actor("mallory") + "/update/1", "type": "Update", "object": forged}); st == http.StatusAccepted {
		t.Errorf("mallory's Update of quiz's Question: %d, want a refusal", st)
	}
	if got := counts(); got != "5 4 1 / 7" {
		t.Errorf("counts after mallory's Update: %s", got)
	}

	// Six choices: its text alone.
	id2 := peer.actor("quiz") + "/questions/2"
	q = question(peer, "quiz", id2, false, nil, "a", "b", "c", "d", "e", "f")
	q["content"] = "<p>Too many</p>"
	if st := peer.send(t, inbox, "quiz", map[string]any{"id": id2 + "/create", "type": "Create", "object": q}); st != http.StatusAccepted {
		t.Fatalf("Create of the second: %d", st)
	}
	ps = posts()
	if len(ps) != 2 || !strings.Contains(ps[0].Content, "Too many\n○ a\n○ b") || ps[0].Poll != nil {
		t.Errorf("the second Question: %+v", ps)
	}
}
