package fed

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// maxActorID bounds an actor id kept as a key.
const maxActorID = 2048

// SaveRemoteActor records a remote actor: the first time a new user named
// a.Handle (its lower form claimed in the name index) with the actor's
// hash beside it, later a refresh of both. Two concurrent first saves of
// one actor agree on one uid (fed:actorid is claimed with SET NX; the
// loser's user is taken out again).
func (f *Fed) SaveRemoteActor(ctx context.Context, a store.RemoteActor) (int64, error) {
	if a.ID == "" || len(a.ID) > maxActorID || !strings.Contains(a.Handle, "@") {
		return 0, store.Invalid(store.CodeBadRequest, "remote actor: no id or handle")
	}
	uid, err := f.rdb.Get(ctx, f.keys.FedActorID(a.ID)).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, f.core.Wrap("remote actor", err)
	}
	if uid == 0 {
		if uid, err = f.createRemote(ctx, a); err != nil {
			return 0, err
		}
	}
	a.UID = uid
	if err := f.writeActor(ctx, a); err != nil {
		return 0, err
	}
	return uid, nil
}

// createRemote makes the user of a new remote actor and claims its actor
// id and name; it returns the winner's uid when another save claimed the
// actor id first.
func (f *Fed) createRemote(ctx context.Context, a store.RemoteActor) (int64, error) {
	uid, err := f.rdb.Incr(ctx, f.keys.LastUserID()).Result()
	if err != nil {
		return 0, f.core.Wrap("remote actor: new user", err)
	}
	lower := strings.ToLower(a.Handle)
	// The hash first, the index after, as a registration does: an index
	// never points at a missing hash.
	h := schema.UserHash{Username: a.Handle, Created: f.core.Now(), Remote: a.ID, RemoteURL: a.URL}
	if err := f.rdb.HSet(ctx, f.keys.User(uid), h).Err(); err != nil {
		return 0, f.core.Wrap("remote actor: new user", err)
	}
	ok, err := f.rdb.SetNX(ctx, f.keys.FedActorID(a.ID), uid, 0).Result()
	if err != nil || !ok {
		f.rdb.Del(context.WithoutCancel(ctx), f.keys.User(uid))
		if err != nil {
			return 0, f.core.Wrap("remote actor: claim", err)
		}
		winner, err := f.rdb.Get(ctx, f.keys.FedActorID(a.ID)).Int64()
		return winner, f.core.Wrap("remote actor: claim", err)
	}
	// A handle held by an account that moved away (another actor id under
	// the same name) goes to the newest: names of remote accounts are
	// the remote servers' to give.
	f.rdb.Set(ctx, f.keys.UsernameIndex(lower), uid, 0)
	_, err = f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		f.core.IndexUser(ctx, pl, uid, lower)
		return nil
	})
	return uid, f.core.Wrap("remote actor: index", err)
}

// writeActor writes a's hash and its profile into the user hash.
func (f *Fed) writeActor(ctx context.Context, a store.RemoteActor) error {
	// "1" or "0" in the actor's hash; the user's protected field "1" or
	// absent, as the store keeps it.
	locked := "0"
	if a.Locked {
		locked = "1"
	}
	fetched := a.Fetched
	if fetched == 0 {
		fetched = f.core.Now()
	}
	_, err := f.rdb.TxPipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, f.keys.FedActor(a.UID),
			schema.FedActorFieldID, a.ID, schema.FedActorFieldHandle, a.Handle,
			schema.FedActorFieldInbox, a.Inbox, schema.FedActorFieldSharedInbox, a.SharedInbox,
			schema.FedActorFieldOutbox, a.Outbox, schema.FedActorFieldFollowers, a.Followers,
			schema.FedActorFieldFollowing, a.Following, schema.FedActorFieldKeyID, a.KeyID,
			schema.FedActorFieldKeyPEM, a.KeyPEM, schema.FedActorFieldURL, a.URL,
			schema.FedActorFieldLocked, locked, schema.FedActorFieldFetched, fetched)
		pl.HSet(ctx, f.keys.User(a.UID), schema.FieldDisplayName, a.Name, schema.FieldBio, a.Bio,
			schema.FieldAvatar, a.Avatar, schema.FieldHeader, a.Header,
			schema.FieldRemote, a.ID, schema.FieldRemoteURL, a.URL)
		if a.Locked {
			pl.HSet(ctx, f.keys.User(a.UID), schema.FieldProtected, "1")
		} else {
			pl.HDel(ctx, f.keys.User(a.UID), schema.FieldProtected)
		}
		return nil
	})
	if err != nil {
		return f.core.Wrap("remote actor: save", err)
	}
	f.core.ProfileChanged(ctx, a.UID)
	return nil
}

// RemoteActorByID returns the remote actor whose id is actorID.
func (f *Fed) RemoteActorByID(ctx context.Context, actorID string) (store.RemoteActor, error) {
	if actorID == "" || len(actorID) > maxActorID {
		return store.RemoteActor{}, store.ErrUserNotFound
	}
	uid, err := f.rdb.Get(ctx, f.keys.FedActorID(actorID)).Int64()
	if errors.Is(err, redis.Nil) {
		return store.RemoteActor{}, store.ErrUserNotFound
	}
	if err != nil {
		return store.RemoteActor{}, f.core.Wrap("remote actor", err)
	}
	return f.RemoteActorByUID(ctx, uid)
}

// RemoteActorByUID returns the remote actor of uid.
func (f *Fed) RemoteActorByUID(ctx context.Context, uid int64) (store.RemoteActor, error) {
	as, err := f.RemoteActorsByUID(ctx, []int64{uid})
	if err != nil {
		return store.RemoteActor{}, err
	}
	if len(as) == 0 {
		return store.RemoteActor{}, store.ErrUserNotFound
	}
	return as[0], nil
}

// RemoteActorsByUID reads the actors of uids in one round trip, skipping
// local and unknown ones.
func (f *Fed) RemoteActorsByUID(ctx context.Context, uids []int64) ([]store.RemoteActor, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	actors := make([]*redis.MapStringStringCmd, len(uids))
	users := make([]*redis.SliceCmd, len(uids))
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, uid := range uids {
			actors[i] = pl.HGetAll(ctx, f.keys.FedActor(uid))
			users[i] = pl.HMGet(ctx, f.keys.User(uid), schema.FieldDisplayName, schema.FieldBio, schema.FieldAvatar, schema.FieldHeader)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, f.core.Wrap("remote actors", err)
	}
	var out []store.RemoteActor
	for i, uid := range uids {
		h := actors[i].Val()
		if h[schema.FedActorFieldID] == "" {
			continue
		}
		a := store.RemoteActor{UID: uid, ID: h[schema.FedActorFieldID], Handle: h[schema.FedActorFieldHandle],
			Inbox: h[schema.FedActorFieldInbox], SharedInbox: h[schema.FedActorFieldSharedInbox],
			Outbox: h[schema.FedActorFieldOutbox], Followers: h[schema.FedActorFieldFollowers],
			Following: h[schema.FedActorFieldFollowing], KeyID: h[schema.FedActorFieldKeyID],
			KeyPEM: h[schema.FedActorFieldKeyPEM], URL: h[schema.FedActorFieldURL],
			Locked: h[schema.FedActorFieldLocked] == "1", Fetched: parseID(h[schema.FedActorFieldFetched])}
		if v := users[i].Val(); len(v) == 4 {
			a.Name, a.Bio, a.Avatar, a.Header = str(v[0]), str(v[1]), str(v[2]), str(v[3])
		}
		out = append(out, a)
	}
	return out, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ForgetRemoteActor removes the remote account uid: its user as a deletion
// of an account removes one (its posts, follows both ways...), then its
// actor and the key leading to it.
func (f *Fed) ForgetRemoteActor(ctx context.Context, uid int64) error {
	a, err := f.RemoteActorByUID(ctx, uid)
	if err != nil {
		return err
	}
	if err := f.core.RemoveAccount(ctx, uid); err != nil {
		return fmt.Errorf("remove remote account: %w", err)
	}
	err = f.rdb.Del(ctx, f.keys.FedActor(uid)).Err()
	if err == nil {
		err = schema.DelIfEquals.Run(ctx, f.rdb, []string{f.keys.FedActorID(a.ID)}, id(uid)).Err()
	}
	return f.core.Wrap("remove remote account", err)
}
