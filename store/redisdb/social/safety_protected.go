package social

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// A protected account's posts are for its fans: the author card says so
// (FieldProtected), and every read applies it (store.Lens), so turning
// protection on or off takes effect in one write, however many posts the
// account has, with nothing in between for a reader to see. What follows
// the switch only tidies up: the account's hot posts leave the public
// timeline (so that its pages need not skip them) or come back to it. A
// crash before that is tidied is harmless (the reads still skip them) and a
// second switch tidies again.

// SetProtected turns uid's protection on or off. Turning it off lets the
// waiting follow requests in.
func (s *Social) SetProtected(ctx context.Context, uid int64, on bool) (store.User, error) {
	value := ""
	if on {
		value = "1"
	}
	if err := s.setExisting(ctx, uid, schema.FieldProtected, value); err != nil {
		return store.User{}, err
	}
	s.authorChanged(ctx, uid)
	if err := s.tidyPublic(ctx, uid, on); err != nil {
		return store.User{}, err
	}
	if !on {
		if err := s.approveAll(ctx, uid); err != nil {
			return store.User{}, err
		}
	}
	return s.core.User(ctx, uid, uid)
}

// tidyPublic takes uid's hot posts out of the public timeline (protect) or
// puts them back (unprotect), keeping its newest HotWindow. Only uid's
// newest HotWindow posts can be among everyone's newest HotWindow, so no
// more are read: the switch takes as long for 100,000 posts as for 10
// (BenchmarkProtect). An older one still there (an archiver lagging behind)
// is hidden by every read all the same.
func (s *Social) tidyPublic(ctx context.Context, uid int64, protect bool) error {
	zs, err := s.rdb.ZRevRangeWithScores(ctx, s.keys.UserPosts(uid), 0, int64(s.opt.HotWindow-1)).Result()
	if err != nil || len(zs) == 0 {
		return s.core.Wrap("tidy public timeline", err)
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if protect {
			members := make([]any, len(zs))
			for i, z := range zs {
				members[i] = z.Member
			}
			pl.ZRem(ctx, s.keys.PublicTimeline(), members...)
			return nil
		}
		pl.ZAdd(ctx, s.keys.PublicTimeline(), zs...)
		if s.opt.Archive == nil { // else the archiver trims it, once what it trims is archived (as Create)
			pl.ZRemRangeByRank(ctx, s.keys.PublicTimeline(), 0, int64(-s.opt.HotWindow-1))
		}
		return nil
	})
	return s.core.Wrap("tidy public timeline", err)
}

// approveAll lets every waiting follow request of uid in.
func (s *Social) approveAll(ctx context.Context, uid int64) error {
	fans, err := s.rdb.ZRange(ctx, s.keys.FollowRequests(uid), 0, -1).Result()
	if err != nil {
		return s.core.Wrap("approve follow requests", err)
	}
	for _, f := range fans {
		if err := s.AnswerFollowRequest(ctx, uid, parseID(f), true); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// FollowOrAsk makes fan follow star, or asks star when it is protected and
// fan is not its fan yet: the request waits in star's FollowRequests and
// star is notified once. A suspended star takes no new fans (403
// suspended); those it had stay.
func (s *Social) FollowOrAsk(ctx context.Context, fan, star int64) (bool, error) {
	if fan == star {
		return false, store.ErrFollowSelf
	}
	if err := s.mayAct(ctx, fan, star); err != nil {
		return false, err
	}
	cards, err := s.core.Cards(ctx, []int64{star})
	if err != nil {
		return false, err
	}
	if cards[star].Suspended {
		return false, store.ErrSuspended // its posts are out of every view: following would bring none
	}
	if !cards[star].Protected {
		return false, s.Follow(ctx, fan, star)
	}
	if _, err := s.core.Username(ctx, star); err != nil {
		return false, err
	}
	err = s.rdb.ZScore(ctx, s.keys.Fans(star), id(fan)).Err()
	if err == nil {
		return false, nil // a fan already: nothing to ask
	}
	if !errors.Is(err, redis.Nil) {
		return false, s.core.Wrap("ask to follow", err)
	}
	added, err := s.rdb.ZAddNX(ctx, s.keys.FollowRequests(star), redis.Z{Score: float64(s.core.Now()), Member: fan}).Result()
	if err != nil {
		return false, s.core.Wrap("ask to follow", err)
	}
	if added == 1 {
		s.notify(ctx, fan, store.NotifyFollowRequest, 0, star)
	}
	return true, nil
}

// FollowRequests is a page of the users asking to follow uid, newest first.
func (s *Social) FollowRequests(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.User], error) {
	q.Viewer = uid
	return s.relationPage(ctx, s.keys.FollowRequests(uid), q)
}

// AnswerFollowRequest approves fan's request (fan follows uid) or rejects it.
func (s *Social) AnswerFollowRequest(ctx context.Context, uid, fan int64, approve bool) error {
	n, err := s.rdb.ZRem(ctx, s.keys.FollowRequests(uid), fan).Result()
	if err != nil {
		return s.core.Wrap("answer follow request", err)
	}
	if n == 0 {
		return errNoRequest
	}
	if !approve {
		return nil
	}
	if err := s.Follow(ctx, fan, uid); err != nil {
		// Back in the list, so that the answer can be given again.
		s.rdb.ZAdd(ctx, s.keys.FollowRequests(uid), redis.Z{Score: float64(s.core.Now()), Member: fan})
		return err
	}
	s.notify(ctx, uid, store.NotifyFollowAccepted, 0, fan)
	return nil
}
