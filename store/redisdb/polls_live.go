package redisdb

import (
	"context"
	"time"

	"microblog/store"
)

// A poll's live updates are coalesced, for every process at once: the vote
// that finds no window mark (poll:<mid>:live) sets it for pollWindow, in
// the vote's own script, and its process publishes the poll's counts once
// the window is over (and pollSlack after, so that every vote the window
// held is counted: a vote that comes after the mark expired opens the next
// window). So a poll's event goes out at most once a window, however fast
// its votes come and however many processes take them, and the last vote
// of a burst is always in an event, at most pollWindow+pollSlack late.
const (
	pollWindow = 250 * time.Millisecond
	pollSlack  = 50 * time.Millisecond
)

// livePoll publishes the counts of post's poll once the window its vote
// opened is over.
func (s *Store) livePoll(post *store.Post) {
	ref := store.RefOf(post)
	poll := *post.Poll
	poll.Options = append([]store.PollOption(nil), poll.Options...)
	time.AfterFunc(pollWindow+pollSlack, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.publishPoll(ctx, post.Author.ID, poll, ref)
	})
}

// closePollLater publishes the final counts of post's poll (expired) when
// it closes, from the process that wrote it. It is a courtesy to open
// pages: a process that stops before then sends none, and clients close a
// poll by its expires_at anyway.
func (s *Store) closePollLater(post *store.Post) {
	if post.Poll == nil {
		return
	}
	ref := store.RefOf(post)
	poll := *post.Poll
	poll.Options = append([]store.PollOption(nil), poll.Options...)
	wait := time.Until(time.UnixMilli(int64(poll.ExpiresAt)).Add(pollSlack))
	time.AfterFunc(wait, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.publishPoll(ctx, post.Author.ID, poll, ref)
	})
}

// publishPoll reads the counts of poll and publishes them on its post's
// author's channel (to the author and its fans, as a counts event goes),
// with Voted and OwnVotes null: everyone gets the same frame.
func (s *Store) publishPoll(ctx context.Context, author int64, poll store.Poll, ref store.PostRef) {
	v, err := s.rdb.HMGet(ctx, s.keys.PollVotes(poll.ID), pollFields...).Result()
	if err != nil || len(v) != len(pollFields) {
		s.opt.Logger.WarnContext(ctx, "live poll", "poll", poll.ID, "err", err)
		return
	}
	if v[0] == nil { // its post was deleted meanwhile
		return
	}
	n := make([]int64, len(v)-1)
	for j := range n {
		n[j] = parseInt(v[j+1])
	}
	poll.SetCounts(n, parseInt(v[0]))
	poll.Expired = s.Now() >= int64(poll.ExpiresAt)
	poll.Voted, poll.OwnVotes = nil, nil
	s.publish(ctx, s.keys.AuthorChannel(author), store.EventPoll, store.PollData{PostID: poll.ID, Poll: &poll, PostRef: ref})
	s.opt.Metrics.pollEvents.Inc()
}
