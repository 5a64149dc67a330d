package redisdb

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/account"
	"microblog/store/redisdb/dm"
	"microblog/store/redisdb/schema"
	"microblog/store/redisdb/social"
)

// relationBatch is how many follows one pipeline of a deletion undoes.
const relationBatch = 500

// DeleteAccount removes user uid once its password is proved (under at's
// guard, as a login). Once begun it goes on whatever the client does, in
// this order, each step safe to run again should the process stop half way
// (the user can then log in and delete again):
//
//  1. every session ends (its sockets are closed with 4001);
//  2. its posts are deleted one by one with Delete, paging UserPosts, so
//     each leaves every index and fan's home timeline as a delete does;
//  3. it leaves the fan lists of its stars and the star lists of its fans
//     (whose live connections stop listening to it);
//  4. its own keys go: home timeline, follow sets, notifications, known
//     addresses, pins and bookmarks, the rankings, the avatar file, its
//     side of its conversations of private messages, its federation
//     signing key and sent activities' ids;
//  5. last, its links to other sign-in services (so that signing in there
//     makes a new account), its profile hash and its name (index and
//     skeleton), so that the name may be taken again.
//
// What it wrote elsewhere stays: comments on others' posts and likes, and
// the private messages the other users of its conversations hold.
func (s *Store) DeleteAccount(ctx context.Context, uid int64, password string, at store.Attempt) error {
	if err := account.ProveOwner(ctx, s.Accounts, uid, password, at); err != nil {
		return err
	}
	return s.removeAccount(context.WithoutCancel(ctx), uid)
}

// removeAccount does the steps of DeleteAccount.
func (s *Store) removeAccount(ctx context.Context, uid int64) error {
	var h schema.UserHash
	if err := s.rdb.HGetAll(ctx, s.keys.User(uid)).Scan(&h); err != nil {
		return s.Wrap("delete account", err)
	}
	if h.Username == "" {
		return store.ErrUserNotFound
	}
	if err := s.LogoutAll(ctx, uid); err != nil {
		return err
	}
	if err := s.deleteAllPosts(ctx, uid); err != nil {
		return err
	}
	if err := s.leaveStars(ctx, uid); err != nil {
		return err
	}
	if err := s.leaveFans(ctx, uid); err != nil {
		return err
	}
	if err := s.leaveSafety(ctx, uid); err != nil {
		return err
	}
	if err := dm.LeaveConversations(ctx, s.DMs, uid); err != nil {
		return err
	}
	if err := social.DropLists(ctx, s.Social, uid); err != nil {
		return err
	}
	if err := account.ReleaseEmail(ctx, s.Accounts, uid); err != nil {
		return err
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Del(ctx, s.keys.Home(uid), s.keys.UserPosts(uid), s.keys.UserComments(uid))
		pl.Del(ctx, s.keys.Fans(uid), s.keys.Stars(uid))
		pl.Del(ctx, s.keys.Notifications(uid), s.keys.Notes(uid))
		pl.Del(ctx, s.keys.KnownClients(uid), s.keys.UserSessions(uid), s.keys.UserLikes(uid))
		pl.Del(ctx, s.keys.Pinned(uid), s.keys.Bookmarks(uid), s.keys.Markers(uid), s.keys.FollowedTags(uid))
		pl.Del(ctx, s.keys.UserReposts(uid))
		pl.Del(ctx, s.keys.PushSubscriptions(uid))
		// Federation's: its signing key and the ids of what it sent (the
		// Delete of its actor, queued by the federation, carries the key).
		pl.Del(ctx, s.keys.FedKey(uid), s.keys.FedActivities(uid))
		pl.ZRem(ctx, s.keys.Popular(), uid)
		pl.ZRem(ctx, s.keys.LastSeen(), uid)
		if h.DisplayName != "" {
			pl.ZRem(ctx, s.keys.DisplayNames(), displayNameEntry(h.DisplayName, uid))
		}
		s.removeCelebrity(ctx, pl, uid)
		return nil
	})
	s.caches.seen.forget(uid)
	if err != nil {
		return s.Wrap("delete account: keys", err)
	}
	if s.opt.Files != nil {
		for _, f := range []string{h.Avatar, h.Header} {
			if f != "" {
				s.opt.Files.Remove(f)
			}
		}
	}
	if err := account.UnlinkAll(ctx, s.Accounts, uid); err != nil {
		return err
	}
	return account.FreeName(ctx, s.Accounts, uid, h.Username)
}

// deleteAllPosts deletes each of uid's posts with Delete, a page at a time.
func (s *Store) deleteAllPosts(ctx context.Context, uid int64) error {
	q := store.PageQuery{Limit: 100, Viewer: uid} // protected or suspended, its own posts are its own
	for {
		page, err := s.UserPosts(ctx, uid, q)
		if err != nil {
			return err
		}
		for _, p := range page.Items {
			if err := s.Delete(ctx, uid, p.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if page.NextCursor == nil {
			return nil
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			return s.Wrap("delete account: posts", err)
		}
	}
}

// leaveStars takes uid out of the fan list of each user it follows.
func (s *Store) leaveStars(ctx context.Context, uid int64) error {
	for {
		stars, err := s.rdb.ZRange(ctx, s.keys.Stars(uid), 0, relationBatch-1).Result()
		if err != nil {
			return s.Wrap("delete account: stars", err)
		}
		if len(stars) == 0 {
			return nil
		}
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, star := range stars {
				pl.ZRem(ctx, s.keys.Fans(parseID(star)), uid)
			}
			pl.ZRem(ctx, s.keys.Stars(uid), toAny(stars)...)
			return nil
		})
		if err != nil {
			return s.Wrap("delete account: stars", err)
		}
		// A star that drops below the celebrity threshold is pushed again.
		for _, star := range stars {
			if err := s.Reconsider(ctx, parseID(star)); err != nil {
				s.opt.Logger.WarnContext(ctx, "delete account: fan-out mode", "star", star, "err", err)
			}
		}
	}
}

// leaveFans takes uid out of the star list of each of its fans and tells
// their live connections to stop listening to it.
func (s *Store) leaveFans(ctx context.Context, uid int64) error {
	for {
		fans, err := s.rdb.ZRange(ctx, s.keys.Fans(uid), 0, relationBatch-1).Result()
		if err != nil {
			return s.Wrap("delete account: fans", err)
		}
		if len(fans) == 0 {
			return nil
		}
		if err := social.LeaveListsOf(ctx, s.Social, schema.ParseIDs(fans), uid); err != nil {
			return err
		}
		_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, f := range fans {
				fan := parseID(f)
				pl.ZRem(ctx, s.keys.Stars(fan), uid)
				pl.Del(ctx, s.keys.FollowNoted(uid, fan))
				s.queuePublish(ctx, pl, s.keys.NotifyChannel(fan), store.EventStars, store.StarsData{StarID: uid, Following: false})
			}
			pl.ZRem(ctx, s.keys.Fans(uid), toAny(fans)...)
			return nil
		})
		if err != nil {
			return s.Wrap("delete account: fans", err)
		}
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}

// leaveSafety takes uid's blocks and mutes off both sides, and its follow
// requests.
func (s *Store) leaveSafety(ctx context.Context, uid int64) error {
	var blocking, blockedBy, muting, mutedBy *redis.StringSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		blocking = pl.ZRange(ctx, s.keys.Blocking(uid), 0, -1)
		blockedBy = pl.SMembers(ctx, s.keys.BlockedBy(uid))
		muting = pl.ZRange(ctx, s.keys.Muting(uid), 0, -1)
		mutedBy = pl.SMembers(ctx, s.keys.MutedBy(uid))
		return nil
	})
	if err != nil {
		return s.Wrap("delete account: blocks and mutes", err)
	}
	var others []int64
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, o := range schema.ParseIDs(blocking.Val()) {
			pl.SRem(ctx, s.keys.BlockedBy(o), uid)
			others = append(others, o)
		}
		for _, o := range schema.ParseIDs(blockedBy.Val()) {
			pl.ZRem(ctx, s.keys.Blocking(o), uid)
			others = append(others, o)
		}
		for _, o := range schema.ParseIDs(muting.Val()) {
			pl.SRem(ctx, s.keys.MutedBy(o), uid)
		}
		for _, o := range schema.ParseIDs(mutedBy.Val()) {
			pl.ZRem(ctx, s.keys.Muting(o), uid)
			others = append(others, o)
		}
		pl.Del(ctx, s.keys.Blocking(uid), s.keys.BlockedBy(uid), s.keys.Muting(uid), s.keys.MutedBy(uid))
		pl.Del(ctx, s.keys.FollowRequests(uid))
		return nil
	})
	if err != nil {
		return s.Wrap("delete account: blocks and mutes", err)
	}
	if len(others) > 0 {
		s.lensChanged(ctx, others...)
	}
	return nil
}
