package redisdb

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// The steps of each transition of the fan-out state machine (timeline_modes.go,
// where a table says what a failure at each step leaves). Each runs under
// the author's mode lock lk, on the state st read under it.

// setMode writes fields (field, value pairs; an empty value deletes the
// field) of author's user hash if its mode is still from and its drain
// token drain ("*": any), while lk is still held (mode_set.lua). It tells
// whether it wrote: not when the user or its state has changed.
func (s *Store) setMode(ctx context.Context, lk modeLock, author int64, from, drain string, fields ...any) (bool, error) {
	args := append([]any{lk.token, from, drain}, fields...)
	n, err := schema.ModeSet.Run(ctx, s.rdb, []string{s.keys.User(author), lk.key}, args...).Int()
	switch {
	case err != nil:
		return false, err
	case n < 0:
		return false, ErrModeLockLost
	}
	return n == 1, nil
}

// promote makes a pushed author a celebrity. In this order: readers start
// pulling its F set and the last id issued so far is read, and only then
// are its posts no longer pushed. A post's claim reads the mode before it
// draws its id, so every post that reads "pull" has an id above pull_from,
// and every post at or below it is pushed.
//
// The order takes two round trips, not one pipeline: on a cluster the
// commands of a pipeline go to their nodes side by side, so global:postid's
// node could be read after the user's node had already said "pull".
func (s *Store) promote(ctx context.Context, lk modeLock, st modeState) error {
	var joined *redis.IntCmd
	var last *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		joined = s.addCelebrity(ctx, pl, st.author)
		last = pl.Get(ctx, s.keys.LastPostID())
		return nil
	})
	if err == nil || errors.Is(err, redis.Nil) { // no message yet: pull_from 0
		err = joined.Err()
	}
	if err == nil {
		_, err = s.setMode(ctx, lk, st.author, "", "*",
			schema.FieldFanOut, schema.ModePull, schema.FieldPullFrom, parseID(last.Val()), schema.FieldDrain, "", schema.FieldDrainJob, "")
	}
	return s.Wrap("promote to celebrity", err)
}

// demote starts a celebrity's way back to push: its new posts are pushed
// again, and a backfill job pushes those written while it was pulled.
//
// The job is queued only once the mode says drain with the job's token, so
// that the job finds its drain when it runs: one pipeline would not keep
// that order on a cluster, where the user's hash and the queue are on
// different nodes, written side by side. Should the job not be queued (or
// its entry not be recorded), the author goes back to pull, which needs no
// job, and the next reconsider demotes it again; should that fail too, the
// drain is left without a recorded job, and requeue gives it one.
func (s *Store) demote(ctx context.Context, lk modeLock, st modeState) error {
	token := rand.Text()
	ok, err := s.setMode(ctx, lk, st.author, schema.ModePull, "*", schema.FieldFanOut, schema.ModeDrain, schema.FieldDrain, token, schema.FieldDrainJob, "")
	if err == nil && !ok {
		return nil // the account is gone
	}
	if err == nil {
		err = s.queueBackfill(ctx, lk, st.author, token)
	}
	if err != nil {
		_, back := s.setMode(context.WithoutCancel(ctx), lk, st.author, schema.ModeDrain, token,
			schema.FieldFanOut, schema.ModePull, schema.FieldDrain, "", schema.FieldDrainJob, "")
		return s.Wrap("demote celebrity", errors.Join(err, back))
	}
	return nil
}

// requeue gives a drain whose backfill job is gone (never queued, or lost)
// a new one with the drain's own token. A job it takes for gone may have
// been queued and not recorded: the two then carry one token, the first to
// end ends the drain, and the other finds it ended.
func (s *Store) requeue(ctx context.Context, lk modeLock, st modeState) error {
	return s.Wrap("requeue backfill", s.queueBackfill(ctx, lk, st.author, st.drain))
}

// queueBackfill queues the backfill job of author's drain token, then
// records its entry in the user hash (drain_job), in two round trips: the
// entry's id is known only once it is queued. The XADD goes in a pipeline
// of its own, as every job's does.
func (s *Store) queueBackfill(ctx context.Context, lk modeLock, author int64, token string) error {
	var add *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		add = pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.FanOutQueue(), Values: schema.Job{Op: schema.OpBackfill, Author: author, At: s.Now(), Drain: token}.Values()})
		return nil
	})
	if err != nil {
		return err
	}
	_, err = s.setMode(ctx, lk, author, schema.ModeDrain, token, schema.FieldDrainJob, add.Val())
	return err
}

// repromote makes a draining author pulled again, its fan count back at
// CelebrityFans. It keeps pull_from, so that the next drain's backfill
// covers the whole time the author was pulled, whatever this drain's had
// pushed; this drain's job finds its token gone and ends nothing. The
// author is a member of global:celebrities throughout.
func (s *Store) repromote(ctx context.Context, lk modeLock, st modeState) error {
	_, err := s.setMode(ctx, lk, st.author, schema.ModeDrain, st.drain, schema.FieldFanOut, schema.ModePull, schema.FieldDrain, "", schema.FieldDrainJob, "")
	return s.Wrap("promote draining celebrity", err)
}

// rejoin puts back into global:celebrities an author pulled or draining
// that readers would not find there.
func (s *Store) rejoin(ctx context.Context, _ modeLock, st modeState) error {
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.addCelebrity(ctx, pl, st.author)
		return nil
	})
	return s.Wrap("rejoin celebrities", err)
}

// leave takes out of global:celebrities a pushed author left there by a
// promotion or the end of a drain cut short: every one of its posts has
// been pushed. A deleted account leaves too.
func (s *Store) leave(ctx context.Context, _ modeLock, st modeState) error {
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.removeCelebrity(ctx, pl, st.author)
		return nil
	})
	return s.Wrap("leave celebrities", err)
}

// EndDrain ends author's drain of token once its backfill is done: its
// mode goes back to push and it leaves global:celebrities. A drain that is
// not token's any more (ended by another run of the job, or replaced)
// stays as it is.
func (s *Store) EndDrain(ctx context.Context, author int64, token string) error {
	return s.withModeLock(ctx, author, func(ctx context.Context, lk modeLock) error {
		ended, err := s.setMode(ctx, lk, author, schema.ModeDrain, token, schema.FieldFanOut, "", schema.FieldDrain, "", schema.FieldDrainJob, "")
		if err != nil || !ended {
			return err // not its drain any more: it stays as it is
		}
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			s.removeCelebrity(ctx, pl, author)
			return nil
		})
		return err
	})
}
