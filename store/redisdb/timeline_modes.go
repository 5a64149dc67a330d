package redisdb

import (
	"context"
	"crypto/rand"
	"microblog/store/redisdb/internal/reqpath"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/retry"
	"microblog/store/redisdb/schema"
)

// An author's fan-out mode says whether its posts are pushed into its fans'
// home timelines or pulled from its F set when they read. It is a state
// machine, whose state is four fields of the user hash (fanout, pull_from,
// drain, drain_job) and the author's entry in its shard of
// global:celebrities (timeline_pulls.go), which home reads look up:
//
//	push   fanout ""     each post queues a push job; not a celebrity.
//	pull   fanout pull   a celebrity: posts are not pushed, readers merge
//	                     its F set; pull_from is the last id issued before.
//	drain  fanout drain  leaving pull: posts are pushed again, readers still
//	                     merge F, and a backfill job pushes the posts after
//	                     pull_from; drain is the token that job carries, and
//	                     drain_job its entry in fanout:queue once recorded.
//
// Changes keep one order so that no post is ever in neither place: an
// author joins global:celebrities before its posts stop being pushed, and
// leaves it only after every post written while pulled has been pushed.
// Each step is its own round trip where that order matters: on a cluster
// the commands of one pipeline go to their nodes side by side, unordered.
//
// The transitions (timeline_modes_steps.go; the backfill's end, runner/modes_backfill.go),
// each step and what a failure at it leaves: a Redis error, or the process
// dying after the step, which leaves what Redis holds. Every one ends in a
// state that needs no operator: valid as it stands, or found and mended by
// the next reconsider.
//
//	promote    push → pull, at CelebrityFans fans or more
//	  1 SADD global:celebrities,    push, perhaps a member: valid (reads
//	    GET global:postid           merge a pushed F for nothing); promoted
//	                                again, or below the count, leave
//	  2 fanout=pull, pull_from      as 1, or done
//	demote     pull → drain, below CelebrityFans
//	  1 fanout=drain, drain=T       drain with no job: requeue
//	  2 XADD backfill{drain T}      fanout=pull again (the job, if queued,
//	                                finds T gone and does nothing); should
//	                                that fail too: drain with no job, requeue
//	  3 drain_job=<entry id>        as 2, or (the process died) a drain whose
//	                                job is queued but not recorded: requeue
//	                                queues a second with token T, harmless
//	                                (the first to end ends the drain, the
//	                                other finds it ended)
//	backfill   drain → push, the job (runner/modes_backfill.go)
//	  1 read fanout, pull_from,     not drain T: stale, done (it reconsiders)
//	    drain
//	  2 read F after pull_from      the job stays pending: retried whole, by
//	  3… push them to every fan     another process after ClaimIdle
//	  n fanout=push if drain T      as 2 (nothing changed, or ended: then as
//	                                n+1)
//	  n+1 SREM global:celebrities   push and a member: leave
//	repromote  drain → pull, at CelebrityFans again while draining
//	  1 fanout=pull, keep pull_from drain or pull, both valid; the running
//	                                backfill finds T gone and ends nothing
//	requeue    drain → drain, a drain whose job is gone
//	  1, 2 as demote's 2 and 3, with the drain's own T
//	rejoin     pull or drain, not a member: SADD (one step)
//	leave      push, a member, below CelebrityFans: SREM (one step)
//
// Taking the lock (SET NX) is a step of each: if it fails nothing changed;
// if its reply was lost, or the process died holding it, the author's
// changes wait ModeLockTTL.
//
// The repairs run wherever reconsider runs: at every follow and unfollow of
// the author, at the end of each backfill, and in the checker's pass over
// global:celebrities every run (runner/checker_modes.go). The follow or unfollow
// mends at once the authors people act on, and makes a retried request
// finish the change its first attempt began; the checker mends within a
// RepairInterval the others, such as a drain left with no job whose author
// nobody follows or unfollows any more. That pass is cheap: the set holds
// only the authors pulled or draining, and those a failure left there. A
// state the checker cannot find (pushed, not a member, its count at the
// threshold: the promotion never began) is valid as it stands, and the
// author's next follow promotes it.
//
// Every transition runs under the author's mode lock, re-reading the state
// first, and writes the user hash only through setMode, a script that
// checks the mode it expects and that the lock is still its own: a process
// that stalled past the lock's TTL changes nothing. A drain's token makes
// each drain its own: a backfill ends only the drain it was queued for, not
// a later one (a job taken over while still running, whose first run ends
// after the author was promoted and demoted again). A drain with no job is
// recognised under the lock, which demote holds from its step 1 to its
// step 3: drain_job unset, or naming an entry no longer in fanout:queue (a
// job is deleted only once done, and a done job has ended its drain or
// found it stale).
//
// The SREM that ends a drain is not fenced (global:celebrities is on
// another node): a process that stalls between its ModeSet and its SREM for
// longer than the lock's TTL, while the author is promoted again, leaves it
// pulled but not a member. Readers then miss its posts until the next
// follow or unfollow rejoins it; nothing is lost, F holds them.

// A change of mode that finds the lock taken tries again after
// modeLockWaitMin, then twice as long each time up to modeLockWaitMax: the
// change it waits for takes a round trip or two.
const (
	modeLockWaitMin = time.Millisecond
	modeLockWaitMax = 50 * time.Millisecond
)

// ErrModeLockLost is a change of mode whose lock expired while it ran
// (it outlived ModeLockTTL: Redis or the process stalled). It changed
// nothing since, so the request answers 503 and its retry is safe.
var ErrModeLockLost = store.NewError(store.ErrUnavailable, store.CodeUnavailable,
	"a change of the author's fan-out took too long and was stopped; try again")

// modeState is what a transition is chosen on: the author's fan-out state
// as one read (readMode) found it.
type modeState struct {
	author int64
	exists bool // the user hash: a deleted account only leaves
	fans   int64
	mode   string // FieldFanOut: "" (push), modePull, modeDrain
	drain  string // FieldDrain: the drain's token
	job    string // FieldDrainJob: its backfill job's entry, once recorded
	member bool   // in its shard of global:celebrities
	// queued says the drain's job is in fanout:queue (not yet done).
	queued bool
}

// transition is one change of an author's fan-out state.
type transition struct {
	name string // as in the table above; the label of its repairs
	run  func(s *Store, ctx context.Context, lk modeLock, st modeState) error
}

// The transitions reconsider makes (timeline_modes_steps.go).
var (
	promote   = transition{"promote", (*Store).promote}
	demote    = transition{"demote", (*Store).demote}
	repromote = transition{"repromote", (*Store).repromote}
	requeue   = transition{"requeue", (*Store).requeue}
	rejoin    = transition{"rejoin", (*Store).rejoin}
	leave     = transition{"leave", (*Store).leave}
)

// next is the transition st calls for, or nil: the transition function.
// The repairs of a state a failure left (rejoin, leave, requeue) come
// before the changes the fan count asks for.
func next(st modeState, celebrityFans int) *transition {
	celebrity := st.exists && st.fans >= int64(celebrityFans)
	switch {
	case st.mode != "" && !st.member:
		return &rejoin
	case st.mode == "" && celebrity:
		return &promote
	case st.mode == "" && st.member:
		return &leave
	case st.mode == schema.ModePull && !celebrity:
		return &demote
	case st.mode == schema.ModeDrain && celebrity:
		return &repromote
	case st.mode == schema.ModeDrain && !st.queued:
		return &requeue
	}
	return nil
}

// Reconsider brings author's fan-out state to where its fan count and the
// machine above say: follow and unfollow call it, as do the end of a
// backfill (the count may have crossed back meanwhile) and the checker.
func (s *Store) Reconsider(ctx context.Context, author int64) error {
	_, err := s.Reconsidered(ctx, author)
	return err
}

// Reconsidered is reconsider, returning the names of the transitions made.
// Each is chosen again under the author's mode lock before anything
// changes. After a change it looks again: a follow or unfollow that read
// the old state while the change was being made decided nothing, and its
// count must still be heard.
func (s *Store) Reconsidered(ctx context.Context, author int64) ([]string, error) {
	var made []string
	for i := range 4 {
		st, err := s.readMode(ctx, author)
		if err != nil {
			return made, err
		}
		if i == 0 && st.exists { // the ranking of suggestions follows the count, whatever the mode
			if err := s.rdb.ZAdd(ctx, s.keys.Popular(), redis.Z{Score: float64(st.fans), Member: author}).Err(); err != nil {
				return made, s.Wrap("fan-out mode", err)
			}
		}
		if next(st, s.opt.CelebrityFans) == nil {
			return made, nil
		}
		var ran *transition
		err = s.withModeLock(ctx, author, func(ctx context.Context, lk modeLock) error {
			st, err := s.readMode(ctx, author)
			if err != nil {
				return err
			}
			if ran = next(st, s.opt.CelebrityFans); ran == nil {
				return nil
			}
			return ran.run(s, ctx, lk, st)
		})
		if err != nil {
			return made, err
		}
		if ran != nil {
			made = append(made, ran.name)
		}
	}
	return made, nil
}

// readMode reads author's fan-out state in one round trip, and for a drain
// with a recorded job a second one that looks for the job in fanout:queue.
func (s *Store) readMode(ctx context.Context, author int64) (modeState, error) {
	st := modeState{author: author}
	var fans *redis.IntCmd
	var hash *redis.SliceCmd
	var member *redis.BoolCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		fans = pl.ZCard(ctx, s.keys.Fans(author))
		hash = pl.HMGet(ctx, s.keys.User(author), schema.FieldUsername, schema.FieldFanOut, schema.FieldDrain, schema.FieldDrainJob)
		member = pl.SIsMember(ctx, s.keys.CelebritiesShard(s.keys.PullShard(author)), author)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return st, s.Wrap("fan-out mode", err)
	}
	v := hash.Val()
	name, _ := v[0].(string)
	st.mode, _ = v[1].(string)
	st.drain, _ = v[2].(string)
	st.job, _ = v[3].(string)
	st.exists, st.fans, st.member = name != "", fans.Val(), member.Val()
	if st.mode != schema.ModeDrain || st.job == "" {
		return st, nil
	}
	entries, err := s.rdb.XRangeN(ctx, s.keys.FanOutQueue(), st.job, st.job, 1).Result()
	if err != nil {
		return st, s.Wrap("fan-out mode: look for the backfill job", err)
	}
	st.queued = len(entries) > 0
	return st, nil
}

// modeLock is an author's mode lock, held with a token of its holder's own.
type modeLock struct{ key, token string }

// withModeLock runs change while holding the author's mode lock, so that
// changes of one author's mode never interleave. A change takes a round trip
// or two, so a caller that finds the lock taken waits its turn. The lock
// lasts ModeLockTTL at most: a process that dies holding it holds back the
// author's changes that long.
func (s *Store) withModeLock(ctx context.Context, author int64, change func(context.Context, modeLock) error) error {
	lk := modeLock{key: s.keys.FanOutLock(author), token: rand.Text()}
	wait := retry.Backoff{Min: modeLockWaitMin, Max: modeLockWaitMax}
	for {
		ok, err := s.rdb.SetNX(ctx, lk.key, lk.token, s.opt.ModeLockTTL).Result()
		if err != nil {
			return s.Wrap("fan-out mode lock", err)
		}
		if ok {
			break
		}
		if wait.Sleep(ctx); ctx.Err() != nil {
			return s.Wrap("fan-out mode lock", ctx.Err())
		}
	}
	defer schema.DelIfEquals.Run(context.WithoutCancel(ctx), s.rdb, []string{lk.key}, lk.token)
	return change(ctx, lk)
}
