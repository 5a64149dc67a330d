package social

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Web Push subscriptions (push:subs:<uid>), the queue of pushes to send
// (push:queue) and the deployment's VAPID keys (global:vapid). The pushes
// themselves are sent by the pusher runner, off the request path.

var errNoPushSubscription = store.NewError(store.ErrNotFound, store.CodeNotFound, "Record not found")

// PutPushSubscription stores sub as its owner's one subscription,
// replacing any; a new one (ID 0) is given an id.
func (s *Social) PutPushSubscription(ctx context.Context, sub store.PushSubscription) (store.PushSubscription, error) {
	if sub.ID == 0 {
		nid, err := s.rdb.Incr(ctx, s.keys.LastPushSubscriptionID()).Result()
		if err != nil {
			return store.PushSubscription{}, s.core.Wrap("push subscription", err)
		}
		sub.ID, sub.Created = nid, store.Time(s.core.Now())
	}
	raw, _ := json.Marshal(sub)
	err := s.rdb.HSet(ctx, s.keys.PushSubscriptions(sub.UID), sub.Owner, raw).Err()
	return sub, s.core.Wrap("push subscription", err)
}

// PushSubscription is owner's subscription, ErrNotFound when it has none.
func (s *Social) PushSubscription(ctx context.Context, uid int64, owner string) (store.PushSubscription, error) {
	raw, err := s.rdb.HGet(ctx, s.keys.PushSubscriptions(uid), owner).Result()
	if errors.Is(err, redis.Nil) {
		return store.PushSubscription{}, errNoPushSubscription
	}
	if err != nil {
		return store.PushSubscription{}, s.core.Wrap("push subscription", err)
	}
	var sub store.PushSubscription
	if err := json.Unmarshal([]byte(raw), &sub); err != nil {
		return store.PushSubscription{}, fmt.Errorf("social: push subscription: %w", err)
	}
	return sub, nil
}

// DeletePushSubscription removes owner's subscription, if any.
func (s *Social) DeletePushSubscription(ctx context.Context, uid int64, owner string) error {
	return s.core.Wrap("push subscription", s.rdb.HDel(ctx, s.keys.PushSubscriptions(uid), owner).Err())
}

// ownerHash is the token hash of a subscription's owner: a native
// session's, or a Mastodon access token's (which has a session too).
func ownerHash(owner string) string {
	_, hash, _ := strings.Cut(owner, ":")
	return hash
}

// PushSubscriptions are uid's subscriptions whose owner is still signed
// in. Those of an ended session or revoked token (logout, a new password,
// the account deleted, expiry) are removed here, whichever way it ended.
func (s *Social) PushSubscriptions(ctx context.Context, uid int64) ([]store.PushSubscription, error) {
	all, err := s.rdb.HGetAll(ctx, s.keys.PushSubscriptions(uid)).Result()
	if err != nil || len(all) == 0 {
		return nil, s.core.Wrap("push subscriptions", err)
	}
	subs := make([]store.PushSubscription, 0, len(all))
	alive := make([]*redis.IntCmd, 0, len(all))
	member := make([]*redis.BoolCmd, 0, len(all))
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for owner, raw := range all {
			var sub store.PushSubscription
			if json.Unmarshal([]byte(raw), &sub) != nil {
				continue
			}
			sub.Owner = owner
			subs = append(subs, sub)
			alive = append(alive, pl.Exists(ctx, s.keys.Session(ownerHash(owner))))
			member = append(member, pl.SIsMember(ctx, s.keys.UserSessions(uid), ownerHash(owner)))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.core.Wrap("push subscriptions", err)
	}
	out := subs[:0]
	var gone []string
	for i, sub := range subs {
		if alive[i].Val() == 0 || !member[i].Val() {
			gone = append(gone, sub.Owner)
			continue
		}
		out = append(out, sub)
	}
	if len(gone) > 0 {
		s.rdb.HDel(ctx, s.keys.PushSubscriptions(uid), gone...)
	}
	return out, nil
}

// PushNotification is notification nid as uid would be shown it now:
// false when it is gone, or when its actor or post is hidden from uid.
func (s *Social) PushNotification(ctx context.Context, uid, nid int64) (store.Notification, bool, error) {
	raw, err := s.rdb.HGet(ctx, s.keys.Notes(uid), id(nid)).Result()
	if errors.Is(err, redis.Nil) {
		return store.Notification{}, false, nil
	}
	if err != nil {
		return store.Notification{}, false, s.core.Wrap("push notification", err)
	}
	var n note
	if err := json.Unmarshal([]byte(raw), &n); err != nil {
		return store.Notification{}, false, nil
	}
	ns, err := s.hydrateNotes(ctx, uid, []int64{nid}, []note{n}, 0)
	if err != nil || len(ns) == 0 {
		return store.Notification{}, false, err
	}
	return ns[0], true, nil
}

// PushFrom tells whether uid hears from actor under policy: never from
// one uid's feed hides (blocks either way, mutes).
func (s *Social) PushFrom(ctx context.Context, uid, actor int64, policy string) (bool, error) {
	if policy == store.PushPolicyNone {
		return false, nil
	}
	lens, err := s.lens(ctx, uid)
	if err != nil {
		return false, err
	}
	if lens.HidesUser(actor, store.InFeed) {
		return false, nil
	}
	var key string
	switch policy {
	case store.PushPolicyFollowed:
		key = s.keys.Stars(uid)
	case store.PushPolicyFollower:
		key = s.keys.Fans(uid)
	default:
		return true, nil
	}
	err = s.rdb.ZScore(ctx, key, id(actor)).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, s.core.Wrap("push policy", err)
}

// VAPIDKeys are the deployment's VAPID keys: the first process to ask
// makes them with generate and stores them (SET NX), so that every process
// signs with the same pair; the others read that pair.
func (s *Social) VAPIDKeys(ctx context.Context, generate func() (string, string, error)) (string, string, error) {
	type pair struct {
		Public  string `json:"public"`
		Private string `json:"private"`
	}
	read := func() (pair, error) {
		var p pair
		raw, err := s.rdb.Get(ctx, s.keys.VAPIDKeys()).Result()
		if err == nil {
			err = json.Unmarshal([]byte(raw), &p)
		}
		return p, err
	}
	p, err := read()
	if err == nil && p.Public != "" && p.Private != "" {
		return p.Public, p.Private, nil
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", "", s.core.Wrap("vapid keys", err)
	}
	pub, priv, err := generate()
	if err != nil {
		return "", "", fmt.Errorf("social: vapid keys: %w", err)
	}
	raw, _ := json.Marshal(pair{pub, priv})
	if err := s.rdb.SetNX(ctx, s.keys.VAPIDKeys(), raw, 0).Err(); err != nil {
		return "", "", s.core.Wrap("vapid keys", err)
	}
	if p, err = read(); err != nil {
		return "", "", s.core.Wrap("vapid keys", err)
	}
	return p.Public, p.Private, nil
}

// queuePush queues the push of job, in pl.
func (s *Social) queuePush(ctx context.Context, pl redis.Pipeliner, job store.PushJob) {
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.PushQueue(), MaxLen: schema.PushQueueMax, Approx: true,
		Values: schema.PushEntry(job)})
}
