package redisdb

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// newQuietStore is a testStore on rdb whose jobs no worker takes unless
// the test runs one, as one process's workers would.
func newQuietStore(t *testing.T, rdb redis.UniversalClient, opt Options) testStore {
	opt.BcryptCost = bcrypt.MinCost
	return testStore{Store: New(rdb, opt), t: t, ctx: context.Background()}
}

// takeJobs reads the jobs waiting in the fan-out queue through f, which
// then holds them (pending) without doing them.
func takeJobs(t *testing.T, f *runner.FanOut) []schema.Job {
	t.Helper()
	jobs, err := f.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// state reads author's fan-out state as reconsider does.
func (s testStore) state(author int64) modeState {
	s.t.Helper()
	st, err := s.readMode(s.ctx, author)
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// TestStaleBackfillEndsNoLaterDrain: a backfill job taken over while its
// first run was still going (the process stalled) is done by the process
// that took it over; the author is then promoted and demoted again. The
// first run, finishing late, must not end the later drain: the posts of the
// second pull would be in no fan's G and no longer merged by readers.
func TestStaleBackfillEndsNoLaterDrain(t *testing.T) {
	parallel(t)
	s := newQuietStore(t, storetest.NewBackend(t).Client(), Options{CelebrityFans: 3})
	stalled := runner.NewFanOut(s.Store, runner.FanOutOptions{ClaimIdle: time.Second})
	star, f1, f2, f3 := s.user("star"), s.user("f1"), s.user("f2"), s.user("f3")
	for _, f := range []int64{f1, f2, f3} {
		s.follow(f, star)
	}
	first := s.post(store.NewPost{Author: star, Content: "first pull"})
	if err := s.Unfollow(s.ctx, f3, star); err != nil {
		t.Fatal(err)
	}
	jobs := takeJobs(t, stalled)
	if len(jobs) != 1 || jobs[0].Op != schema.OpBackfill || jobs[0].Drain == "" {
		t.Fatalf("the demotion queued %+v, want one backfill with its drain's token", jobs)
	}
	late := jobs[0]
	// Another process takes the job over and does it: the drain ends.
	runner.NewFanOut(s.Store, runner.FanOutOptions{}).Do(s.ctx, jobs)
	if st := s.state(star); st.mode != "" || st.member || !s.inHome(f1, first.ID) {
		t.Fatalf("after the backfill the author is %+v (first post pushed: %v), want push", st, s.inHome(f1, first.ID))
	}

	s.follow(f3, star) // pulled again
	second := s.post(store.NewPost{Author: star, Content: "second pull"})
	if err := s.Unfollow(s.ctx, f3, star); err != nil {
		t.Fatal(err)
	}
	if err := stalled.Backfill(s.ctx, late); err != nil {
		t.Fatal(err)
	}
	if st := s.state(star); st.mode != schema.ModeDrain || !st.member {
		t.Fatalf("the first drain's job, finishing late, left the second drain as %+v", st)
	}
	stalled.Do(s.ctx, takeJobs(t, stalled)) // the second drain's own job
	if st := s.state(star); st.mode != "" || st.member {
		t.Fatalf("after the second backfill the author is %+v, want push", st)
	}
	for _, f := range []int64{f1, f2} {
		if !s.inHome(f, second.ID) {
			t.Fatalf("post %d, written during the second pull, is not in fan %d's G", second.ID, f)
		}
	}
}

// TestDrainWithoutJobIsRequeued: a demotion whose process died after the
// mode said drain and before its job was queued (or whose job could not be
// queued, nor the mode set back) leaves a drain with no job. The checker
// finds it, queues its backfill, and the drain ends with every post pushed;
// so does the next follow or unfollow of the author.
func TestDrainWithoutJobIsRequeued(t *testing.T) {
	parallel(t)
	for _, repair := range []string{"checker", "unfollow"} {
		t.Run(repair, func(t *testing.T) {
			s := newTestStoreWith(t, Options{CelebrityFans: 3})
			star, f1, f2, f3, f4 := s.user("star"), s.user("f1"), s.user("f2"), s.user("f3"), s.user("f4")
			for _, f := range []int64{f1, f2, f3} {
				s.follow(f, star)
			}
			p := s.post(store.NewPost{Author: star, Content: "pulled"})
			s.settle()
			// What demote's first step leaves, on its own: 2 fans, draining.
			s.rdb.ZRem(s.ctx, s.keys.Fans(star), f3)
			s.rdb.ZRem(s.ctx, s.keys.Stars(f3), star)
			s.rdb.HSet(s.ctx, s.keys.User(star), schema.FieldFanOut, schema.ModeDrain, schema.FieldDrain, "a-token")
			if st := s.state(star); st.queued || next(st, 3) != &requeue {
				t.Fatalf("a drain with no job reads %+v", st)
			}
			switch repair {
			case "checker":
				n, err := runner.NewChecker(s.Store, runner.CheckerOptions{Grace: time.Nanosecond}).Check(s.ctx)
				if err != nil || n == 0 {
					t.Fatalf("the checker made %d repairs (%v)", n, err)
				}
			case "unfollow": // of someone who did not follow: the count is unchanged
				if err := s.Unfollow(s.ctx, f4, star); err != nil {
					t.Fatal(err)
				}
			}
			s.settle()
			if st := s.state(star); st.mode != "" || st.member {
				t.Fatalf("after the repair and its backfill the author is %+v, want push", st)
			}
			for _, f := range []int64{f1, f2} {
				if !s.inHome(f, p.ID) {
					t.Fatalf("post %d, written while pulled, is not in fan %d's G", p.ID, f)
				}
			}
		})
	}
}
