package main

import (
	"math/rand/v2"
	"sync"
	"time"
)

// pair is a user and what it acts on: the post it likes, the user it
// follows.
type pair struct{ who, what int64 }

// ledger is what the clients know at the end: every write acknowledged,
// every write tried and never acknowledged, and the state the
// acknowledgements leave (who likes what, who follows whom), which the
// checker holds the servers to. Counts by second feed the chart.
type ledger struct {
	start time.Time

	mu sync.Mutex
	// posts are the posts acknowledged, by Idempotency-Key: their id;
	// ids the same ids, in the order acknowledged.
	posts map[string]int64
	ids   []int64
	// ackedAt is when each was acknowledged, from the load's start.
	ackedAt map[int64]time.Duration
	// authorOf is the author of every post tried, by key.
	authorOf map[string]int64
	// unacked are the keys of posts tried and never acknowledged.
	unacked map[string]bool
	// likes and follows are the states the acknowledged writes left;
	// unsure the pairs whose last write was not acknowledged (it may have
	// been done or not).
	likes, follows             map[pair]bool
	likesUnsure, followsUnsure map[pair]bool
	acks                       map[string]int // writes acknowledged, by kind
	failed                     map[string]int // attempts to try again, by outcome
	unexpected                 map[string]int // answers the contract does not allow, by request and outcome
	reads, readsFailed         int
	perSecond                  []second
}

// second is what happened in one second of the run.
type second struct{ acks, failed int }

func newLedger() *ledger {
	return &ledger{start: time.Now(), posts: map[string]int64{}, ackedAt: map[int64]time.Duration{}, authorOf: map[string]int64{}, unacked: map[string]bool{},
		likes: map[pair]bool{}, follows: map[pair]bool{}, likesUnsure: map[pair]bool{}, followsUnsure: map[pair]bool{},
		acks: map[string]int{}, failed: map[string]int{}, unexpected: map[string]int{}}
}

// at is the ledger's count of second now.
func (l *ledger) at() *second {
	i := int(time.Since(l.start) / time.Second)
	for len(l.perSecond) <= i {
		l.perSecond = append(l.perSecond, second{})
	}
	return &l.perSecond[i]
}

// retried counts an attempt that failed and is tried again.
func (l *ledger) retried(outcome string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed[outcome]++
	l.at().failed++
}

// acked counts a write of kind acknowledged.
func (l *ledger) acked(kind string) {
	l.acks[kind]++
	l.at().acks++
}

// tryPost notes a post about to be tried.
func (l *ledger) tryPost(key string, author int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.authorOf[key] = author
	l.unacked[key] = true
}

// post notes a post acknowledged with id.
func (l *ledger) post(key string, id int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.unacked, key)
	l.posts[key] = id
	l.ids = append(l.ids, id)
	l.ackedAt[id] = time.Since(l.start)
	l.acked("post")
}

// mark notes a like or follow (on) or its undoing, acknowledged or not.
func (l *ledger) mark(kind string, p pair, on, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	state, unsure := l.likes, l.likesUnsure
	if kind == "follow" {
		state, unsure = l.follows, l.followsUnsure
	}
	if !ok {
		unsure[p] = true
		return
	}
	delete(unsure, p)
	state[p] = on
	if on {
		l.acked(kind)
	} else {
		l.acked("un" + kind)
	}
}

// surprise counts an answer the contract does not allow.
func (l *ledger) surprise(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unexpected[what]++
}

// read counts a read, answered or not.
func (l *ledger) read(ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	if !ok {
		l.readsFailed++
	}
}

// someAcked is an acknowledged post's id picked with rng, 0 while there
// is none.
func (l *ledger) someAcked(rng *rand.Rand) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ids) == 0 {
		return 0
	}
	return l.ids[rng.IntN(len(l.ids))]
}
