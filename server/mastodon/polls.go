package mastodon

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Polls are the native polls (CONTRACT §15) as Mastodon's Poll entity:
// its id is its status's. A vote is answered with the Poll; no streaming
// event goes out for it, as Mastodon sends none (its apps read the poll
// again, and megalodon-rs#72 notes that Mastodon streams no vote events),
// while the native live feed gets the coalesced poll event.

// Poll is Mastodon's Poll entity. Voted and OwnVotes are there only for a
// user's token, as Mastodon tells them.
type Poll struct {
	ID          string       `json:"id"`
	ExpiresAt   *string      `json:"expires_at"`
	Expired     bool         `json:"expired"`
	Multiple    bool         `json:"multiple"`
	VotesCount  int64        `json:"votes_count"`
	VotersCount *int64       `json:"voters_count"`
	Options     []PollOption `json:"options"`
	Emojis      []Emoji      `json:"emojis"`
	Voted       *bool        `json:"voted,omitempty"`
	OwnVotes    *[]int       `json:"own_votes,omitempty"`
}

// PollOption is one option of a Poll.
type PollOption struct {
	Title      string `json:"title"`
	VotesCount *int64 `json:"votes_count"`
}

// pollOf maps a post's poll; nil for none.
func pollOf(p *store.Poll) *Poll {
	if p == nil {
		return nil
	}
	exp := timeString(p.ExpiresAt)
	voters := p.VotersCount
	out := &Poll{ID: idString(p.ID), ExpiresAt: &exp, Expired: p.Expired, Multiple: p.Multiple,
		VotesCount: p.VotesCount, VotersCount: &voters, Options: make([]PollOption, len(p.Options)),
		Emojis: []Emoji{}, Voted: p.Voted}
	for i, o := range p.Options {
		n := o.VotesCount
		out.Options[i] = PollOption{Title: o.Title, VotesCount: &n}
	}
	if p.Voted != nil { // a user's token: its votes, [] for none
		own := append([]int{}, p.OwnVotes...)
		out.OwnVotes = &own
	}
	return out
}

// pollRoutes registers the routes of this area.
func (a *API) pollRoutes(r *router) {
	r.add(http.MethodGet, "/api/v1/polls/:id", a.getPoll, a.auth("read:statuses", false))
	r.add(http.MethodPost, "/api/v1/polls/:id/votes", a.votePoll, a.auth("write:statuses", true))
}

// getPoll answers a poll as the caller sees it: 200 Poll.
func (a *API) getPoll(c echo.Context) error {
	mid, err := statusID(c)
	if err != nil {
		return err
	}
	p, err := a.st.Poll(c.Request().Context(), viewer(c), mid)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pollOf(&p))
}

// votePoll votes choices[] (indexes, as strings or numbers): 200 Poll.
func (a *API) votePoll(c echo.Context) error {
	mid, err := statusID(c)
	if err != nil {
		return err
	}
	f, err := formOf(c)
	if err != nil {
		return err
	}
	var choices []int
	for _, s := range f["choices"] {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return store.NewError(store.ErrUnprocessable, store.CodeInvalidChoices, "Validation failed: choices must be the indexes of options")
		}
		choices = append(choices, n)
	}
	p, err := a.st.Vote(c.Request().Context(), viewer(c), mid, choices)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pollOf(&p))
}

// pollParams reads the poll of a new status: poll as a JSON object, or the
// form's poll[options][], poll[expires_in] and poll[multiple]; nil when
// there is none.
func pollParams(f url.Values) (*store.NewPoll, error) {
	bad := func() error {
		return store.NewError(store.ErrUnprocessable, store.CodeInvalidPoll, "Validation failed: the poll needs options[] and expires_in")
	}
	if raw := f.Get("poll"); raw != "" {
		var in struct {
			Options   []string        `json:"options"`
			ExpiresIn json.RawMessage `json:"expires_in"`
			Multiple  json.RawMessage `json:"multiple"`
		}
		if json.Unmarshal([]byte(raw), &in) != nil {
			return nil, bad()
		}
		secs, err := strconv.ParseInt(strings.Trim(string(in.ExpiresIn), `"`), 10, 64)
		if err != nil {
			return nil, bad()
		}
		return &store.NewPoll{Options: in.Options, ExpiresIn: secs, Multiple: isTrue(strings.Trim(string(in.Multiple), `"`))}, nil
	}
	opts, ok := f["poll[options]"]
	if !ok {
		return nil, nil
	}
	secs, err := strconv.ParseInt(f.Get("poll[expires_in]"), 10, 64)
	if err != nil {
		return nil, bad()
	}
	return &store.NewPoll{Options: opts, ExpiresIn: secs, Multiple: isTrue(f.Get("poll[multiple]"))}, nil
}
