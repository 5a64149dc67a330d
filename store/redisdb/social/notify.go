package social

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"microblog/store/redisdb/internal/reqpath"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// maxNotifications is how many notifications a user keeps in Redis (the
// newest): the list is a hot window too.
const maxNotifications = 200

// note is a notification as stored in N:<uid>:notes; actor and post are
// read fresh when it is listed.
type note struct {
	Kind  string `json:"k"`
	Actor int64  `json:"a"`
	Post  int64  `json:"p,omitempty"`
	At    int64  `json:"t"`
	Undo  string `json:"u,omitempty"`
}

// undoField names the notification an action made, for undoing it: only
// likes and follows can be undone.
func undoField(kind string, actor, post int64) string {
	if kind != store.NotifyLike && kind != store.NotifyFollow {
		return ""
	}
	return fmt.Sprintf("k:%s:%d:%d", kind, actor, post)
}

// notify tells each of recipients (but the actor itself) that actor did
// kind (on post, 0 for none): it stores the notifications and publishes
// them live. A notification is a side effect of a write that has already
// succeeded, so failures are logged, not returned.
func (s *Social) notify(ctx context.Context, actor int64, kind string, post int64, recipients ...int64) {
	var to []int64
	for _, r := range recipients {
		if r != actor && r > 0 && !slices.Contains(to, r) {
			to = append(to, r)
		}
	}
	to = s.notHiding(ctx, actor, to)
	if len(to) == 0 {
		return
	}
	if err := s.storeNotes(ctx, actor, kind, post, to); err != nil {
		s.opt.Logger.WarnContext(ctx, "notify", "kind", kind, "actor", actor, "post", post, "err", err)
	}
}

// notHiding are those of to whose feed does not hide actor (whom they
// block, are blocked by or mute): nothing is stored for the others, so
// that their unread count does not count what they would never be shown.
// When Redis cannot tell, all of them (a reader's lens still hides the
// notification).
func (s *Social) notHiding(ctx context.Context, actor int64, to []int64) []int64 {
	out := to[:0:0]
	for _, uid := range to {
		if lens, err := s.lens(ctx, uid); err != nil || !lens.HidesUser(actor, store.InFeed) {
			out = append(out, uid)
		}
	}
	return out
}

func (s *Social) storeNotes(ctx context.Context, actor int64, kind string, post int64, to []int64) error {
	last, err := s.rdb.IncrBy(ctx, s.keys.LastNotificationID(), int64(len(to))).Result()
	if err != nil {
		return err
	}
	n := note{Kind: kind, Actor: actor, Post: post, At: s.core.Now(), Undo: undoField(kind, actor, post)}
	raw, _ := json.Marshal(n)
	pushes := make([]*redis.IntCmd, len(to)) // whether each has a device to push to (push.go)
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, uid := range to {
			nid := last - int64(len(to)) + 1 + int64(i)
			schema.NotifyAdd.Eval(ctx, pl, []string{s.keys.Notifications(uid), s.keys.Notes(uid)}, nid, raw, n.Undo, maxNotifications)
			pushes[i] = pl.Exists(ctx, s.keys.PushSubscriptions(uid))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The live events, each as its recipient sees the actor and the post.
	frames := make([][]byte, len(to))
	for i, uid := range to {
		nid := last - int64(len(to)) + 1 + int64(i)
		ns, err := s.hydrateNotes(ctx, uid, []int64{nid}, []note{n}, 0)
		if err != nil {
			return err
		}
		if len(ns) == 0 {
			continue // hidden from uid (or gone meanwhile)
		}
		if frames[i], err = store.EncodeFrame(store.EventNotification, ns[0]); err != nil {
			return err
		}
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, uid := range to {
			if frames[i] != nil {
				s.core.QueuePublishFrame(ctx, pl, s.keys.NotifyChannel(uid), frames[i])
				if pushes[i].Val() > 0 {
					s.queuePush(ctx, pl, store.PushJob{UID: uid, Notification: last - int64(len(to)) + 1 + int64(i)})
				}
			}
		}
		return nil
	})
	return err
}

// unnotify takes back the notification of an undone like or follow.
func (s *Social) unnotify(ctx context.Context, to, actor int64, kind string, post int64) {
	res, err := schema.NotifyRemove.Run(ctx, s.rdb, []string{s.keys.Notifications(to), s.keys.Notes(to)}, undoField(kind, actor, post)).Result()
	if errors.Is(err, redis.Nil) {
		return
	}
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "take back notification", "kind", kind, "actor", actor, "err", err)
		return
	}
	nid, _ := strconv.ParseInt(fmt.Sprint(res), 10, 64)
	s.core.Publish(ctx, s.keys.NotifyChannel(to), store.EventNotificationRemoved, store.DeleteData{ID: nid})
}

// Notifications is a page of uid's notifications, newest first; those
// about a post that is gone are left out.
func (s *Social) Notifications(ctx context.Context, uid int64, q store.PageQuery) (store.Page[store.Notification], error) {
	limit := q.Size()
	before := "+inf"
	if q.Cursor.Score > 0 {
		before = "(" + id(q.Cursor.Score)
	}
	var ids *redis.StringSliceCmd
	var read *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		ids = pl.ZRevRangeByScore(ctx, s.keys.Notifications(uid), &redis.ZRangeBy{Max: before, Min: "-inf", Count: int64(limit + 1)})
		read = pl.HGet(ctx, s.keys.User(uid), schema.FieldNotificationsRead)
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return store.Page[store.Notification]{}, s.core.Wrap("notifications", err)
	}
	nids := schema.ParseIDs(ids.Val())
	page := store.Page[store.Notification]{Items: []store.Notification{}}
	if len(nids) > limit {
		nids = nids[:limit]
		page.NextCursor = store.NextCursor(store.Cursor{Score: nids[limit-1]})
	}
	if len(nids) == 0 {
		return page, nil
	}
	fields := make([]string, len(nids))
	for i, n := range nids {
		fields[i] = id(n)
	}
	raws, err := s.rdb.HMGet(ctx, s.keys.Notes(uid), fields...).Result()
	if err != nil {
		return store.Page[store.Notification]{}, s.core.Wrap("notifications", err)
	}
	notes := make([]note, len(nids))
	for i, r := range raws {
		str, _ := r.(string)
		json.Unmarshal([]byte(str), &notes[i])
	}
	items, err := s.hydrateNotes(ctx, uid, nids, notes, parseID(read.Val()))
	page.Items = append(page.Items, items...)
	return page, err
}

// hydrateNotes turns stored notes into Notifications as uid sees them,
// dropping those whose actor or post is gone or hidden from uid's feed. Ids up to readUpTo are read.
func (s *Social) hydrateNotes(ctx context.Context, uid int64, nids []int64, notes []note, readUpTo int64) ([]store.Notification, error) {
	var actors, posts []int64
	for _, n := range notes {
		actors = append(actors, n.Actor)
		if n.Post != 0 {
			posts = append(posts, n.Post)
		}
	}
	users, err := s.core.Users(ctx, actors, uid)
	if err != nil {
		return nil, err
	}
	byUser := make(map[int64]store.User, len(users))
	for _, u := range users {
		byUser[u.ID] = u
	}
	ps, err := s.core.Posts(ctx, posts, uid)
	if err != nil {
		return nil, err
	}
	if err := s.sieve(ctx, ps, uid, store.InFeed); err != nil {
		return nil, err
	}
	lens, err := s.lens(ctx, uid)
	if err != nil {
		return nil, err
	}
	byPost := make(map[int64]*store.Post, len(ps))
	for _, p := range ps {
		if p != nil {
			byPost[p.ID] = p
		}
	}
	out := make([]store.Notification, 0, len(notes))
	for i, n := range notes {
		actor, ok := byUser[n.Actor]
		post := byPost[n.Post]
		if !ok || n.Kind == "" || (n.Post != 0 && post == nil) || lens.HidesUser(n.Actor, store.InFeed) {
			continue
		}
		out = append(out, store.Notification{ID: nids[i], Kind: n.Kind, Actor: actor, Post: post,
			CreatedAt: store.Time(n.At), Read: nids[i] <= readUpTo})
	}
	return out, nil
}

// MarkRead marks uid's notifications up to upTo read (never unread again).
func (s *Social) MarkRead(ctx context.Context, uid, upTo int64) error {
	if upTo <= 0 {
		return store.Invalid(store.CodeInvalidField, "up_to must be a notification id")
	}
	read, err := s.rdb.HGet(ctx, s.keys.User(uid), schema.FieldNotificationsRead).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.core.Wrap("mark read", err)
	}
	if upTo <= parseID(read) {
		return nil
	}
	return s.core.Wrap("mark read", s.rdb.HSet(ctx, s.keys.User(uid), schema.FieldNotificationsRead, upTo).Err())
}

// unread counts uid's notifications newer than its read mark.
func (s *Social) unread(ctx context.Context, uid int64) (int64, error) {
	read, err := s.rdb.HGet(ctx, s.keys.User(uid), schema.FieldNotificationsRead).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, s.core.Wrap("unread notifications", err)
	}
	n, err := s.rdb.ZCount(ctx, s.keys.Notifications(uid), "("+id(parseID(read)), "+inf").Result()
	return n, s.core.Wrap("unread notifications", err)
}
