package federation

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"microblog/store"
)

// Polls that arrive: a Question's choices (oneOf, or anyOf for several
// choices) become the post's poll, closing at its endTime (within the
// service's bounds: 5 minutes to a week from now), and its counts
// (replies.totalItems of each choice, votersCount) are its server's, set
// when it arrives and again with each Update. A Question the service
// cannot keep as a poll (not 2 to 4 choices, or choices that are not
// distinct names) arrives as its text alone.

// questionChoice is one choice of a Question as peers send it.
type questionChoice struct {
	Name    string `json:"name"`
	Replies struct {
		TotalItems int64 `json:"totalItems"`
	} `json:"replies"`
}

// choicesOf reads a Question's choices, and whether several may be chosen.
func choicesOf(obj *inDoc) ([]questionChoice, bool) {
	raw, multiple := obj.OneOf, false
	if len(obj.AnyOf) > 0 && string(obj.AnyOf) != "null" {
		raw, multiple = obj.AnyOf, true
	}
	if len(raw) == 0 {
		return nil, false
	}
	var list []questionChoice
	if raw[0] != '[' {
		raw = json.RawMessage("[" + string(raw) + "]")
	}
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	return list, multiple
}

// pollOf is the poll of a Question, nil for any other note or a poll the
// service cannot keep.
func pollOf(obj *inDoc, now time.Time) *store.NewPoll {
	if obj.typeOf() != "Question" {
		return nil
	}
	choices, multiple := choicesOf(obj)
	if len(choices) < store.MinPollOptions || len(choices) > store.MaxPollOptions {
		return nil
	}
	np := &store.NewPoll{Multiple: multiple, ExpiresIn: 24 * 3600}
	for _, c := range choices {
		np.Options = append(np.Options, truncate(strings.TrimSpace(plainText(c.Name)), store.MaxPollOptionLen))
	}
	end, err := time.Parse(time.RFC3339, obj.EndTime)
	if err != nil {
		end, err = time.Parse(time.RFC3339, firstString(obj.Closed))
	}
	if err == nil {
		np.ExpiresIn = int64(end.Sub(now) / time.Second)
	}
	np.ExpiresIn = min(max(np.ExpiresIn, store.MinPollExpiry), store.MaxPollExpiry)
	if np.Check() != nil {
		return nil
	}
	return np
}

// takePollCounts sets the counts of post mid's poll as a Question reports
// them; a store that keeps no remote counts, or a note without choices,
// changes nothing.
func (s *Service) takePollCounts(ctx context.Context, mid int64, obj *inDoc) error {
	rp, ok := s.st.(store.RemotePolls)
	if !ok || obj.typeOf() != "Question" {
		return nil
	}
	choices, multiple := choicesOf(obj)
	if len(choices) < store.MinPollOptions || len(choices) > store.MaxPollOptions {
		return nil
	}
	counts := make([]int64, len(choices))
	var votes int64
	for i, c := range choices {
		counts[i] = max(c.Replies.TotalItems, 0)
		votes += counts[i]
	}
	voters := votes // one vote each, unless several may be chosen
	if obj.VotersCount != nil {
		voters = *obj.VotersCount
	} else if multiple {
		voters = 0
		for _, n := range counts {
			voters = max(voters, n)
		}
	}
	return rp.SetPollCounts(ctx, mid, counts, voters)
}

// Votes that arrive: a remote user's vote in a local poll comes as
// Mastodon sends it, a Create of a Note per option chosen, whose name is
// the option's text and inReplyTo the poll's post, with no content.

// voteIn tells whether obj is a vote in a local post's poll, and which.
func (s *Service) voteIn(obj *inDoc) (int64, bool) {
	if obj.Name == "" || obj.typeOf() != "Note" || strings.TrimSpace(htmlToText(obj.Content)) != "" {
		return 0, false
	}
	return s.LocalPost(idOf(obj.InReplyTo))
}

// takeVote records actor's choice named in obj in post mid's poll; a vote
// the poll cannot take (closed, already made, no such option, a post
// without a poll or that the actor may not see) changes nothing.
func (s *Service) takeVote(ctx context.Context, actor store.RemoteActor, mid int64, obj *inDoc) error {
	rp, ok := s.st.(store.RemotePolls)
	if !ok {
		return ignore(ctx)
	}
	p, err := s.st.Post(ctx, mid, actor.UID)
	if err != nil || p.Poll == nil {
		if err != nil && !isRefusal(err) && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrPostNotFound) {
			return err
		}
		return ignore(ctx)
	}
	name := strings.TrimSpace(plainText(obj.Name))
	for i, o := range p.Poll.Options {
		if o.Title != name {
			continue
		}
		_, err := rp.AddVote(ctx, actor.UID, mid, i)
		if err != nil && !isRefusal(err) && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrPostNotFound) {
			return err
		}
		if err != nil {
			s.opt.Logger.Info("federation: vote not taken", "post", mid, "err", err)
		}
		return nil
	}
	return ignore(ctx)
}

// hasCode tells whether err is the store's error of code (the store's
// errors of one code are not all one value: the editor's refusal is not
// store.ErrNotAuthor).
func hasCode(err error, code store.Code) bool {
	var e *store.Error
	return errors.As(err, &e) && e.Code == code
}
