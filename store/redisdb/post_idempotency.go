package redisdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// The Idempotency-Key of a post: its claim, its result, and what a request
// that failed leaves of it (see the package documentation, Idempotency).

// queueIdemClaim claims uid's Idempotency-Key key for the request reqHash
// in a pipeline, with a token of this request's own: it returns the key's
// name, this request's claim, and the command that tells, once run, what
// holds the key (the claim, when it is this request's).
func (s *Store) queueIdemClaim(ctx context.Context, pl redis.Pipeliner, uid int64, key, reqHash string) (idemKey, claim string, held *redis.Cmd) {
	idemKey = s.keys.Idempotency(uid, store.TokenHash(key))
	claim = schema.ClaimValue(rand.Text(), reqHash)
	held = schema.IdemClaim.Eval(ctx, pl, []string{idemKey}, claim,
		schema.ClaimTTL.Milliseconds(), (schema.IdempotencyTTL - schema.ClaimTTL).Milliseconds())
	return idemKey, claim, held
}

// requestHash is what an Idempotency-Key is bound to: the request's route
// (a post, or a comment on which message) and its body in canonical form,
// its fields rather than its bytes.
func requestHash(np store.NewPost) string {
	if len(np.MediaIDs) == 0 {
		np.MediaIDs = nil
	}
	b, _ := json.Marshal([]any{np.Parent, np.RepostOf, np.MediaIDs, np.Content})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// release gives up the idempotency key of a request that failed before it
// wrote anything, so that a retry may try again; it leaves the key alone if
// another request holds it.
func (s *Store) release(ctx context.Context, d *draft) {
	if d.idemKey != "" {
		s.dropClaim(ctx, d.idemKey, d.claim, schema.ResultValue(d.post.ID, d.reqHash))
	}
}

// dropClaim deletes the Idempotency-Key key while it holds this request's
// claim or result. A request fails most often because Redis went away (a
// restart, a failover): then the delete fails too, and the claim would hold
// the key for claimTTL, refusing the client's retries with 409 long after
// Redis is back. So the delete is tried until Redis answers (untilAnswered).
func (s *Store) dropClaim(ctx context.Context, key string, values ...any) {
	s.untilAnswered(ctx, func(ctx context.Context) error {
		return schema.DelIfEquals.Run(ctx, s.rdb, []string{key}, values...).Err()
	})
}

// untilAnsweredMax is the longest untilAnswered waits between two tries:
// a retry waits on the failed request's claim until one of them gets
// through, so the claim is given back within this much of Redis coming
// back (the tries are one small command each).
const untilAnsweredMax = 200 * time.Millisecond

// untilAnswered runs do, the last step of a request that failed, and if
// Redis did not answer it runs it again in the background, a little later
// each time, until Redis answers or the claim would have ended by itself
// (claimTTL). do must be safe to run more than once. It tells whether the
// first run was answered.
func (s *Store) untilAnswered(ctx context.Context, do func(context.Context) error) bool {
	ctx = context.WithoutCancel(ctx)
	try := func() bool {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		err := do(ctx)
		return err == nil || errors.Is(err, redis.Nil) || errors.Is(err, redis.ErrClosed)
	}
	if try() {
		return true
	}
	go func() {
		end := time.Now().Add(schema.ClaimTTL)
		for wait := 50 * time.Millisecond; time.Now().Before(end); wait = min(2*wait, untilAnsweredMax) {
			time.Sleep(wait)
			if try() {
				return
			}
		}
	}()
	return false
}

// settle decides what became of a write that failed without Redis telling
// what it did (a reply lost, a timeout, a node gone in the middle), once
// Redis answers again, and only then gives the Idempotency-Key back: a key
// given back while the post it made stands would let the retry make a
// second one. A message that may have been shown live stays; one that
// cannot have been goes.
//
// On one Redis the message, its indexes, its key's result and its live
// event are one transaction, so the message's E key tells whether all of it
// ran. If it did not, nothing was written and the claim is given back (only
// the claim: should the transaction land after all, its result stays with
// it). If it did, post_finish.lua is run again (doing nothing twice) to
// tell whether it stands: then it stays, its event went out with it, and
// the retry gets it from its key; if not, it goes, never shown live.
//
// On a cluster nothing is published, nor the key's result recorded, before
// the message is written and indexed whole (finish). A message not written
// whole is taken out, and only then is the key given back; one written
// whole is finished again (its events may go out twice: the hub drops
// repeats by id).
func (s *Store) settle(ctx context.Context, d *draft) {
	s.untilAnswered(ctx, func(ctx context.Context) error {
		if s.keys.Cluster() && !d.written {
			return s.unwrite(ctx, d)
		}
		if s.keys.Cluster() {
			if err := s.finish(ctx, d); err != nil {
				return err
			}
		} else {
			written, err := s.rdb.Exists(ctx, s.keys.Author(d.post.ID)).Result()
			switch {
			case err != nil:
				return s.Wrap("settle post", err)
			case written == 0 && d.idemKey == "":
				return nil
			case written == 0:
				return schema.DelIfEquals.Run(ctx, s.rdb, []string{d.idemKey}, d.claim).Err()
			}
			d.finished = s.queuePostFinish(ctx, s.rdb, d, nil)
			if err := d.finished.Err(); err != nil {
				return s.Wrap("settle post", err)
			}
		}
		if d.lost() != nil {
			return s.unwrite(ctx, d)
		}
		return s.repush(ctx, d)
	})
}

// firstResult answers a request whose Idempotency-Key another request holds
// (held is the key's value): with that request's post once it is done, or
// 409 while it is still running; with 400 if that request was another one
// (as Stripe does: a key names one request, not a slot to fill).
func (s *Store) firstResult(ctx context.Context, d *draft, held string) (store.Post, error) {
	st := schema.ParseIdem(held)
	if st.ReqHash != "" && st.ReqHash != d.reqHash {
		return store.Post{}, store.ErrIdemKeyReused
	}
	if st.Running {
		return store.Post{}, store.ErrInProgress
	}
	p, err := s.Post(ctx, st.Mid, d.np.Author)
	if errors.Is(err, store.ErrPostNotFound) && s.keys.Cluster() {
		// Its result is recorded and the post not shown yet: its request
		// (or its settle) is about to.
		if mark, _ := s.rdb.HGet(ctx, s.keys.Post(st.Mid), schema.FieldUnfinished).Result(); mark == "1" {
			return store.Post{}, store.ErrInProgress
		}
		p, err = s.Post(ctx, st.Mid, d.np.Author) // shown since the first read, or gone for good
	}
	if err == nil && s.keys.Cluster() {
		if err := s.sendAgain(ctx, p); err != nil {
			return store.Post{}, err
		}
	}
	return p, err
}

// sendAgain publishes the live events of post p, which a retry is about to
// acknowledge, on a cluster. There a post's result is recorded, and the
// post shown, before its events go out (finish): when a master fails over
// between the two, the write's settle sends them in the background once
// Redis answers, while the retry is answered from the key at once. Its
// author's next post could then reach fans before it, or it could be missed
// live for good by a fan that resumed meanwhile (the chaos run found both
// after a failover). So the retry sends them itself before it answers: a
// post is acknowledged only once its events are out, and an author's posts
// go out in the order they were acknowledged. The hub drops the repeats by
// id. If the events cannot go out, the retry gets 503, as its first attempt
// did, and tries again.
//
// Comments are left to the settle: their event is a notification to the
// parent's author, whom reading the parent would cost a round trip more.
func (s *Store) sendAgain(ctx context.Context, p store.Post) error {
	if p.ParentID != nil {
		return nil
	}
	no := false
	p.Liked, p.Pinned, p.Bookmarked, p.Reposted, p.Encoded = &no, &no, &no, &no, nil // as its first event had them: the author's own view is not for fans
	if p.RepostOf != nil {
		o := *p.RepostOf
		o.Reposted = nil
		p.RepostOf = &o
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("create post: encode live event: %w", err)
	}
	return s.Wrap("create post: live event", s.publishEvents(ctx, s.liveEvents(p, raw, 0)))
}
