package fed

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

var errKeyHalf = errors.New("another process's new key has no public half")

func sleep(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(20 * time.Millisecond):
		return nil
	}
}

// maxObjectID bounds an activity or object id kept as a key.
const maxObjectID = 2048

// FirstSeen records an incoming activity id (SET NX, for FedSeenTTL) and
// tells whether it is new.
func (f *Fed) FirstSeen(ctx context.Context, activityID string) (bool, error) {
	if activityID == "" || len(activityID) > maxObjectID {
		return false, store.Invalid(store.CodeBadRequest, "activity id missing or too long")
	}
	ok, err := f.rdb.SetNX(ctx, f.keys.FedSeen(activityID), 1, schema.FedSeenTTL*time.Second).Result()
	return ok, f.core.Wrap("activity seen", err)
}

// ForgetSeen takes an activity id back, so that a redelivery is handled.
func (f *Fed) ForgetSeen(ctx context.Context, activityID string) error {
	return f.core.Wrap("activity seen", f.rdb.Del(context.WithoutCancel(ctx), f.keys.FedSeen(activityID)).Err())
}

// ObjectPost is the local message of the remote object objectID, 0 when none.
func (f *Fed) ObjectPost(ctx context.Context, objectID string) (int64, error) {
	if objectID == "" || len(objectID) > maxObjectID {
		return 0, nil
	}
	mid, err := f.rdb.Get(ctx, f.keys.FedObject(objectID)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return mid, f.core.Wrap("remote object", err)
}

// SetObjectPost records mid as the local message of objectID, on both
// sides (the message hash's apid field).
func (f *Fed) SetObjectPost(ctx context.Context, objectID string, mid int64, url string) error {
	if objectID == "" || len(objectID) > maxObjectID {
		return store.Invalid(store.CodeBadRequest, "object id missing or too long")
	}
	// One round trip; the two keys may be on two slots of a cluster.
	_, err := f.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Set(ctx, f.keys.FedObject(objectID), mid, 0)
		if url != "" && len(url) <= maxObjectID {
			pl.HSet(ctx, f.keys.Post(mid), schema.FieldAPID, objectID, schema.FieldAPURL, url)
		} else {
			pl.HSet(ctx, f.keys.Post(mid), schema.FieldAPID, objectID)
		}
		return nil
	})
	return f.core.Wrap("remote object", err)
}

// PostObject is the remote object id of the message mid, "" for a local one.
func (f *Fed) PostObject(ctx context.Context, mid int64) (string, error) {
	v, err := f.rdb.HGet(ctx, f.keys.Post(mid), schema.FieldAPID).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, f.core.Wrap("remote object", err)
}

// DropObject forgets a remote object's message.
func (f *Fed) DropObject(ctx context.Context, objectID string) error {
	if objectID == "" || len(objectID) > maxObjectID {
		return nil
	}
	return f.core.Wrap("remote object", f.rdb.Del(ctx, f.keys.FedObject(objectID)).Err())
}
